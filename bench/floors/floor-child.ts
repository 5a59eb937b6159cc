// Bench child process: runs one floor (framework, store, funded clientId given as JSON in argv[2]) on a free loopback port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoreConfig } from '../../reference/compose/engine-config.ts';
import { serveParent } from '../child-ipc.ts';
import { openBalances } from './open-balances.ts';

/** What the bench passes to a floor child. */
export interface FloorChildSpec {
  framework: 'fastify' | 'express';
  store: StoreConfig;
  /** Funded before the child reports ready. */
  clientId: string;
  balance: number;
}

async function listen(spec: FloorChildSpec, balances: Awaited<ReturnType<typeof openBalances>>): Promise<{ url: string; close(): Promise<void> }> {
  if (spec.framework === 'fastify') {
    const app = (await import('./fastify-floor.ts')).fastifyFloor(balances);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return { url, close: () => app.close() };
  }
  const server = createServer((await import('./express-floor.ts')).expressFloor(balances));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const spec = JSON.parse(process.argv[2] ?? '{}') as FloorChildSpec;
const balances = await openBalances(spec.store);
await balances.fund(spec.clientId, spec.balance);
const server = await listen(spec, balances);
serveParent({ url: server.url }, async () => {
  await server.close();
  await balances.close();
});
