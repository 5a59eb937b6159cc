// Test helper: a request listener (an Express app, a node:http handler) listening on a free loopback port, with its URL and a close.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server a test started: its base URL and how to stop it. */
export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `listener` on 127.0.0.1 at a free port. */
export async function listenLocal(listener: RequestListener): Promise<LocalServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Servers a test file starts, closed together (`afterEach(servers.closeAll)`). */
export function localServers(): { listen(listener: RequestListener): Promise<string>; closeAll(): Promise<void> } {
  const open: LocalServer[] = [];
  return {
    async listen(listener) {
      const server = await listenLocal(listener);
      open.push(server);
      return server.url;
    },
    closeAll: async () => void (await Promise.all(open.splice(0).map((server) => server.close()))),
  };
}
