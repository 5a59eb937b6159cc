// Test helper: asks the OS for a free TCP port on 127.0.0.1.
import { createServer, type AddressInfo } from 'node:net';

/** A port that was free a moment ago (the usual small race applies). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
