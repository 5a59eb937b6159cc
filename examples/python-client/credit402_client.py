"""A minimal credit402 client (spec/protocol.md §16), standard library only: pays a challenge once, keeps clientIds per origin.

    client = Credit402Client(lambda req: {"paymentMethodId": "pm_card_visa"})
    answer = client.request("http://127.0.0.1:4020/api/weather")   # pays once, then spends the balance
"""
import base64
import json
import re
import urllib.error
import urllib.request
from urllib.parse import urlsplit

CLIENT_ID = re.compile(r"[0-9a-f]{64}")


class Credit402PaymentError(Exception):
    """A payment error answer (card_declined, service_unavailable, ...): branch on `code`, the server's errorCode."""

    def __init__(self, code, message, status):
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


class Credit402ProtocolError(Exception):
    """The server sent a protocol header this client cannot read: nothing was paid and nothing kept."""


class Answer:
    """What a call returned to its caller: status, headers (lowercase names) and body text."""

    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body


def _decode(value):
    """Base64 (standard or URL-safe, padding optional) of JSON; None when it is not."""
    try:
        text = value.strip().replace("-", "+").replace("_", "/")
        return json.loads(base64.b64decode(text + "=" * (-len(text) % 4), validate=True).decode("utf-8"))
    except ValueError:  # binascii.Error, UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None


def _encode(payload):
    return base64.b64encode(json.dumps(payload, separators=(",", ":")).encode("utf-8")).decode("ascii")


def _origin(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port or {'http': 80, 'https': 443}[parts.scheme]}"


def _units(value, minimum):
    return type(value) is int and minimum <= value <= 2**53 - 1


def _requirements(challenge):
    """The `stripe` element's values and the challenge's error, wherever it is in `accepts`; None if unreadable."""
    accepts = challenge.get("accepts") if isinstance(challenge, dict) else None
    stripe = next((e for e in accepts if isinstance(e, dict) and e.get("scheme") == "stripe"), None) if isinstance(accepts, list) else None
    if stripe is None or not _units(stripe.get("amount"), 0) or not _units(stripe.get("minTopUp"), 1):
        return None
    if not all(isinstance(stripe.get(key), str) and stripe[key] for key in ("currency", "publishableKey")):
        return None
    error = "insufficient_credits" if challenge.get("error") == "insufficient_credits" else None
    return {key: stripe[key] for key in ("amount", "minTopUp", "currency", "publishableKey")} | {"error": error}


class Credit402Client:
    """Makes calls, paying credit402 challenges through `on_payment_required(requirements)`: it receives the call's url,
    amount, minTopUp, currency, publishableKey and error, and returns {"paymentMethodId": ..., "topUpAmount": ...}
    (topUpAmount optional) to approve, or None to decline (the 402 answer is then returned)."""

    def __init__(self, on_payment_required):
        self.on_payment_required = on_payment_required
        self.client_ids = {}  # origin -> clientId: a bearer credential, sent to that origin only

    def request(self, url, method="GET", headers=None, body=None):
        origin = _origin(url)
        client_id = self.client_ids.get(origin)
        kept = {"stripe402Version": 1, "clientId": client_id} if client_id else None
        answer = self._send(url, method, headers, body, kept, origin)
        if answer.status != 402 or "payment-required" not in answer.headers:
            return answer
        requirements = _requirements(_decode(answer.headers["payment-required"]))
        if requirements is None:
            raise Credit402ProtocolError(f"unreadable payment-required header from {origin}")
        decision = self.on_payment_required(dict(requirements, url=url))
        if not decision:
            return answer
        payment = {"stripe402Version": 1, **({"clientId": client_id} if client_id else {}), "paymentMethodId": decision["paymentMethodId"]}
        top_up = decision.get("topUpAmount")
        if top_up is not None and top_up >= requirements["minTopUp"]:  # below the minimum: none sent, the server charges minTopUp
            payment["topUpAmount"] = top_up
        return self._send(url, method, headers, body, payment, origin)  # a second challenge is returned, never paid again

    def _send(self, url, method, headers, body, payload, origin):
        request = urllib.request.Request(url, data=None if body is None else body.encode("utf-8"), method=method, headers=dict(headers or {}))
        if payload:
            request.add_header("payment", _encode(payload))
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                answer = Answer(response.status, {k.lower(): v for k, v in response.headers.items()}, response.read().decode("utf-8", "replace"))
        except urllib.error.HTTPError as error:
            answer = Answer(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read().decode("utf-8", "replace"))
        receipt = answer.headers.get("payment-response")
        if receipt is not None:
            paid = _decode(receipt)
            if not (isinstance(paid, dict) and paid.get("success") is True and isinstance(paid.get("clientId"), str) and CLIENT_ID.fullmatch(paid["clientId"])):
                raise Credit402ProtocolError(f"unreadable payment-response header from {origin}")
            self.client_ids[origin] = paid["clientId"]
        if answer.status in (402, 503) and "payment-required" not in answer.headers:
            try:
                failure = json.loads(answer.body)
            except ValueError:
                return answer
            if isinstance(failure, dict) and failure.get("success") is False and isinstance(failure.get("errorCode"), str):
                raise Credit402PaymentError(failure["errorCode"], str(failure.get("error", "")), answer.status)
        return answer
