// Bench child process: the gateway's floor, a plain node:http proxy that deducts from a Map once per paid request and forwards it to the upstream.
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveParent } from '../child-ipc.ts';
import { memoryBalances } from '../floors/memory-balances.ts';
import { FLOOR_PRICE, FLOOR_ROUTE, paidClientId, paymentResponse } from '../floors/paid-request.ts';

// argv[2]: the upstream's URL. The bench funds a client afterwards (`fund`, the gateway's client, so that the load is the same).
const upstream = new URL(process.argv[2] ?? '');
const balances = memoryBalances();
const agent = new Agent({ keepAlive: true });

/** The client's headers without `payment` (the upstream never sees it); node:http adds no others but the framing. */
function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = { ...headers };
  delete out.payment;
  return out;
}

const server = createServer((req, res) => {
  let paymentHeader: string | undefined;
  if (req.url === FLOOR_ROUTE) {
    // The least a gate does: read the payer, one Map deduction, the answer header.
    const clientId = paidClientId(req.headers.payment);
    const remaining = clientId === undefined ? null : balances.deduct(clientId, FLOOR_PRICE);
    if (clientId === undefined || remaining === null || remaining instanceof Promise) {
      res.writeHead(402, { 'content-type': 'application/json' }).end('{"error":"payment required"}');
      return;
    }
    paymentHeader = paymentResponse(clientId, remaining);
  }
  const outgoing = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: forwardedHeaders(req.headers), agent });
  outgoing.on('response', (answer) => {
    const headers: IncomingHttpHeaders & { 'payment-response'?: string } = { ...answer.headers };
    if (paymentHeader !== undefined) headers['payment-response'] = paymentHeader;
    res.writeHead(answer.statusCode ?? 502, headers);
    answer.pipe(res);
  });
  outgoing.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  req.pipe(outgoing);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
serveParent({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  agent.destroy();
}, {
  fund: ({ clientId, balance }) => balances.fund(String(clientId), Number(balance)),
});
