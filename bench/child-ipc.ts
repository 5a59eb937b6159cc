// Child side of the bench's IPC: announce readiness, answer requests by type, report memory and CPU, exit on stop.

/** A request from the parent: an id to answer and a type naming the handler. */
interface IpcRequest {
  id: number;
  type: string;
  [field: string]: unknown;
}

type Handler = (request: IpcRequest) => Promise<unknown> | unknown;

/** What a child reports about itself: memory in bytes, CPU time (user + system) in microseconds. */
export interface ChildUsage {
  rss: number;
  heapUsed: number;
  cpuMicros: number;
}

/** This process's memory and CPU time so far. */
function usage(): ChildUsage {
  const { rss, heapUsed } = process.memoryUsage();
  const { user, system } = process.cpuUsage();
  return { rss, heapUsed, cpuMicros: user + system };
}

/**
 * Serves the parent's requests: `usage` is built in, `stop` runs `onStop` then exits 0 (so --cpu-prof
 * writes its profile). The child exits when the parent goes away.
 */
export function serveParent(ready: Record<string, unknown>, onStop: () => Promise<void>, handlers: Record<string, Handler> = {}): void {
  const send = (message: unknown): void => {
    process.send?.(message);
  };
  process.on('disconnect', () => process.exit(1));
  process.on('message', (message: IpcRequest) => {
    void (async () => {
      try {
        if (message.type === 'stop') {
          await onStop();
          send({ id: message.id, ok: true, value: null });
          process.disconnect?.();
          setImmediate(() => process.exit(0));
          return;
        }
        const handler = message.type === 'usage' ? usage : handlers[message.type];
        if (handler === undefined) throw new Error(`unknown request ${message.type}`);
        send({ id: message.id, ok: true, value: await handler(message) });
      } catch (error) {
        send({ id: message.id, ok: false, error: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
  send({ id: 0, ok: true, value: { ...ready, pid: process.pid } });
}
