# Example: a small JSON API in Python's standard library, with no payment code: `credit402 gateway` in front of it charges for GET /api/weather.
# Run it: python3 upstream.py [port]   (default 8000), then the gateway: see gateway.json and docs/gateway.md.
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWERS = {
    "/api/weather": {"temperature": 21, "servedBy": "upstream.py"},  # priced in gateway.json
    "/free": {"ok": True, "servedBy": "upstream.py"},  # not in gateway.json: the gateway forwards it free
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the name http.server calls
        # Route on the target as received: self.path merges leading slashes, so "//api/weather", which the gateway
        # does not price, would be served as "/api/weather" for free.
        path = self.requestline.split()[1].split("?")[0]
        answer = ANSWERS.get(path)
        body = json.dumps(answer or {"error": "Not Found"}).encode()
        self.send_response(200 if answer else 404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8000), Handler)
print(f"upstream listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
