// Bench child process: runs one reference server (framework, store, Stripe API URL given as JSON in argv[2]).
import { loadServerConfig, type StoreConfig } from '../reference/compose/engine-config.ts';
import { startReferenceServer } from '../reference/server/start-server.ts';
import { serveParent } from './child-ipc.ts';

/** What the bench passes to a server child. */
export interface ServerChildSpec {
  framework: 'fastify' | 'express';
  store: StoreConfig;
  stripeApi: string;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as ServerChildSpec;
const config = loadServerConfig({
  env: {},
  overrides: { port: 0, framework: spec.framework, store: spec.store, stripeApi: spec.stripeApi },
});
const server = await startReferenceServer(config);
serveParent({ url: server.url, creditRetentionMs: server.store.creditRetentionMs ?? null }, () => server.close(), {
  // The memory store's size, which only this process can see: the client's log records.
  storeSize: async (request) => ({ records: (await server.store.listTransactions?.(String(request.clientId)))?.length ?? 0 }),
});
