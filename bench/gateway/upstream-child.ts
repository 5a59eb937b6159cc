// Bench child process: a fast upstream for the gateway, bare node:http answering every request with a small JSON body.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveParent } from '../child-ipc.ts';

// The reference's demo body for the gated route, without the balance (the gateway adds payment-response itself).
const BODY = JSON.stringify({ route: 'GET /api/nodesc', gated: true });
const LENGTH = String(Buffer.byteLength(BODY));

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': LENGTH });
    res.end(BODY);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
serveParent({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
