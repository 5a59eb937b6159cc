// The HTTP server: sends /_emulator to the control API (when it is on) and everything else to the Stripe API, and tracks sockets.
import { createServer } from 'node:http';
import { handleApiRequest } from './api-handler.ts';
import { CONTROL_PREFIX, handleControlRequest } from './control-routes.ts';
import { sendJson } from './http-io.ts';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { EmulatorState } from './context.ts';

/** A server whose `destroy()` ends every connection, including requests held by `timeout` faults. */
interface EmulatorServer {
  server: Server;
  destroy(): Promise<void>;
}

/**
 * The emulator's HTTP server. Without `controlApi` (default on), `/_emulator` is an unknown Stripe URL like any other:
 * nothing can inspect the journal, inject faults or register webhooks over HTTP.
 */
export function createEmulatorServer(state: EmulatorState, options: { controlApi?: boolean } = {}): EmulatorServer {
  const controlApi = options.controlApi ?? true;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const isControl = controlApi && (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`));
    const handled = isControl ? handleControlRequest(state, req, res) : handleApiRequest(state, req, res);
    handled.catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      sendJson(res, 500, JSON.stringify({ error: { type: 'api_error', message: `Emulator internal error: ${message}` } }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    server,
    destroy: () =>
      new Promise<void>((resolve, reject) => {
        state.webhooks.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        for (const socket of sockets) socket.destroy();
      }),
  };
}
