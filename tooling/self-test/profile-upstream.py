#!/usr/bin/env python3
"""A tiny upstream for the gateway's conformance run, in the Python standard library only (no credit402, no Node).

Usage: profile-upstream.py PROFILE.json PORT

It serves the conformance profile's handlers (harness/PROFILE.md, "What else the target must do"): every route of
`routes` and `freeRoutes` answers 200 with {"route": "<METHOD> <path>", "gated": bool} (HEAD: the GET handler's
headers; a pattern route, spec CR-4.11, also with "params": its named segments and the wildcard's rest as "*",
matched most specific first as CR-4.13 says) and counts its runs under the `conformance-request-id` header; `GET /_conformance/handled?ids=a,b` answers
the counts. The profile's `failingHandlers` fail (CR-4.7): `answer500` answers 500 with the route's body, `throw` raises
once its run is counted, and this server answers 500 {"error": "Internal Server Error"} for it, as a web framework
does for a handler that raises. Anything else is 404. The gateway in front of it does all the paying.
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
FAILING = {key: how for key, how in PROFILE.get("failingHandlers", {}).items() if key in ROUTES}


class HandlerFailed(Exception):
    """What a failing handler of `throw` raises; the server answers it 500, as a framework does."""



def segments_of(path):
    """A key path's segments as (kind, text): 0 literal, 1 named, 2 the final wildcard; None for an exact path."""
    parts = path[1:].split("/")
    segments = [(2, "*") if part == "*" and i == len(parts) - 1 else (1, part[1:]) if part.startswith(":") else (0, part) for i, part in enumerate(parts)]
    return segments if any(kind != 0 for kind, _ in segments) else None


PATTERNS = []  # (method, segments, key), most specific first
for route_key in ROUTES:
    route_method, _, route_path = route_key.partition(" ")
    route_segments = segments_of(route_path)
    if route_segments is not None:
        PATTERNS.append((route_method, route_segments, route_key))
PATTERNS.sort(key=lambda item: ([kind for kind, _ in item[1]], -len(item[1])))


def params_of(segments, path):
    """The parameters of a matching path, or None when the pattern does not match it (CR-4.12)."""
    parts = path[1:].split("/")
    wildcard = segments[-1][0] == 2
    if len(parts) < len(segments) if wildcard else len(parts) != len(segments):
        return None
    params = {}
    for i, (kind, text) in enumerate(segments):
        if kind == 0 and parts[i] != text or kind == 1 and parts[i] == "":
            return None
        if kind == 1:
            params[text] = parts[i]
        if kind == 2:
            params["*"] = "/".join(parts[i:])
    return params


def match(method, path):
    """The route key and parameters of a request: exact, HEAD following GET, else the most specific pattern."""
    for key in (f"{method} {path}", f"GET {path}" if method == "HEAD" else None):
        if key in ROUTES:
            return key, None
    methods = ("HEAD", "GET") if method == "HEAD" else (method,)
    found = [(key, params) for route_method, segments, key in PATTERNS if route_method in methods for params in [params_of(segments, path)] if params is not None]
    return found[0] if found else (None, None)


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
        try:
            self._route()
        except HandlerFailed:
            self._answer(500, {"error": "Internal Server Error"}, self.command == "HEAD")

    def _route(self):
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
        key, params = match(method, path)
        if key is None:
            return self._answer(404, {"error": "Not Found"}, head)
        request_id = self.headers.get(REQUEST_ID_HEADER)
        if request_id:
            with RUNS_LOCK:
                RUNS[request_id] = RUNS.get(request_id, 0) + 1
        body = {"route": key, "gated": ROUTES[key]}
        if params is not None:
            body["params"] = params
        if FAILING.get(key) == "throw":
            raise HandlerFailed(f"the handler of {key} raises (the profile's failingHandlers)")
        if FAILING.get(key) == "answer500":
            return self._answer(500, {**body, "error": "the handler answers 500 (the profile's failingHandlers)"}, head)
        return self._answer(200, body, head)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # A peer that left mid-answer (the gateway drops its upstream request when the kit's client disconnects) is
        # expected in the abort scenarios; anything else is printed as http.server does.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


if __name__ == "__main__":
    server = QuietServer(("127.0.0.1", int(sys.argv[2])), Handler)
    server.daemon_threads = True
    print(f"profile upstream listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
