"""The kit's client driver (harness/docs/client-driver.md) for credit402_client.py: JSON lines in, one reply each out."""
import json
import sys
import threading

from credit402_client import Credit402Client, Credit402PaymentError, Credit402ProtocolError

state = {"client": None, "callback": {}, "asked": []}
lock = threading.Lock()


def on_payment_required(requirements):
    with lock:
        state["asked"].append(requirements)
    callback = state["callback"]
    return None if callback.get("decline") else {k: callback[k] for k in ("paymentMethodId", "topUpAmount") if k in callback}


def call(spec, results, at):
    try:
        answer = state["client"].request(spec["url"], spec.get("method", "GET"), spec.get("headers"), spec.get("body"))
        results[at] = {"status": answer.status, "headers": answer.headers, "body": answer.body, "error": None}
    except Exception as error:  # the contract reports every error a call raised
        kind = "payment" if isinstance(error, Credit402PaymentError) else "protocol" if isinstance(error, Credit402ProtocolError) else "other"
        results[at] = {"status": None, "headers": {}, "body": None, "error": {"kind": kind, "code": getattr(error, "code", None), "message": str(error)}}


def run(message):
    if message.get("op") == "reset":
        state["client"] = Credit402Client(on_payment_required)
        return {"id": message["id"], "ok": True}
    if message.get("op") != "fetch":
        return {"id": message.get("id"), "error": "unknown op"}
    state["callback"], state["asked"] = message["callback"], []
    results = [None] * len(message["calls"])
    threads = [threading.Thread(target=call, args=(spec, results, at)) for at, spec in enumerate(message["calls"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"id": message["id"], "results": results, "callbacks": state["asked"]}


for line in sys.stdin:
    if line.strip():
        print(json.dumps(run(json.loads(line))), flush=True)
