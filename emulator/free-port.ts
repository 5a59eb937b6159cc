// Asks the OS for a free TCP port, for a process that must be told its port before it starts (public: `credit402-stripe-emulator/free-port`).
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port on `host` (default 127.0.0.1) that was free a moment ago (the usual small race applies). */
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
