#!/usr/bin/env python3
"""A tiny upstream for the gateway's conformance run, in the Python standard library only (no credit402, no Node).

Usage: profile-upstream.py PROFILE.json PORT

It serves the conformance profile's handlers (harness/PROFILE.md, "What else the target must do"): every route of
`routes` and `freeRoutes` answers 200 with {"route": "<METHOD> <path>", "gated": bool} (HEAD: the GET handler's
headers) and counts its runs under the `conformance-request-id` header; `GET /_conformance/handled?ids=a,b` answers
the counts. Anything else is 404. The gateway in front of it does all the paying.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

HANDLED_PATH = "/_conformance/handled"
REQUEST_ID_HEADER = "conformance-request-id"

with open(sys.argv[1], encoding="utf-8") as profile_file:
    PROFILE = json.load(profile_file)
ROUTES = {key: True for key in PROFILE.get("routes", {})}
for key in PROFILE.get("freeRoutes", []):
    ROUTES.setdefault(key, False)

RUNS = {}
RUNS_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm holds the body until the
    # gateway's delayed ACK (about 40 ms per answer).
    disable_nagle_algorithm = True

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass

    def _read_body(self):
        length = self.headers.get("content-length")
        if length:
            self.rfile.read(int(length))
        elif self.headers.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                self.rfile.read(size + 2)
                if size == 0:
                    break

    def _answer(self, status, body, head=False):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json; charset=utf-8")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        if not head:
            self.wfile.write(data)

    def _handle(self):
        self._read_body()
        # The target as received: http.server's `self.path` merges leading slashes ("//api/weather" becomes
        # "/api/weather"), which would make this router read more into a target than the gate does (CR-4.9).
        words = self.requestline.split()
        path, _, query = (words[1] if len(words) >= 2 else self.path).partition("?")
        method = self.command
        head = method == "HEAD"
        if path == HANDLED_PATH and method in ("GET", "HEAD"):
            ids = [i for value in parse_qs(query).get("ids", []) for i in value.split(",") if i][:1000]
            with RUNS_LOCK:
                counts = {i: RUNS.get(i, 0) for i in ids}
            return self._answer(200, counts, head)
        key = f"{method} {path}"
        if key not in ROUTES and head:
            key = f"GET {path}"
        if key not in ROUTES:
            return self._answer(404, {"error": "Not Found"}, head)
        request_id = self.headers.get(REQUEST_ID_HEADER)
        if request_id:
            with RUNS_LOCK:
                RUNS[request_id] = RUNS.get(request_id, 0) + 1
        return self._answer(200, {"route": key, "gated": ROUTES[key]}, head)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler)
    server.daemon_threads = True
    print(f"profile upstream listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
