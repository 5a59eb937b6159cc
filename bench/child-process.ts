// Parent side of a bench child: fork a TypeScript entry under tsx, wait until it is ready, ask it things, stop it.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildUsage } from './child-ipc.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

interface IpcReply { id: number; ok: boolean; value?: unknown; error?: string }

/** A running child process of the bench. */
export interface BenchChild<Ready> {
  pid: number;
  /** What the child announced when it was ready. */
  ready: Ready;
  /** Sends a request and resolves to the child's answer. */
  request<T>(type: string, fields?: Record<string, unknown>): Promise<T>;
  /** The child's resident set size and V8 heap in use (bytes) and CPU time so far (µs). */
  usage(): Promise<ChildUsage>;
  /** Asks the child to close and exit; kills it when it does not within 10 s. */
  stop(): Promise<void>;
}

/** Options of {@link startChild}. */
interface ChildOptions {
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** Where the child's stderr goes; default the bench's own. */
  quiet?: boolean;
}

/** Forks `entry` (a path relative to the repository root) with `args`, and resolves once it is ready. */
export async function startChild<Ready>(entry: string, args: string[], options: ChildOptions = {}): Promise<BenchChild<Ready>> {
  const child: ChildProcess = fork(`${ROOT}${entry}`, args, {
    cwd: ROOT,
    execArgv: ['--conditions=credit402-source', '--import', 'tsx', ...(options.nodeFlags ?? [])],
    stdio: ['ignore', 'ignore', options.quiet ? 'ignore' : 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (reply: IpcReply) => {
    const waiter = pending.get(reply.id);
    if (waiter === undefined) return;
    pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.value);
    else waiter.reject(new Error(`${entry}: ${reply.error ?? 'failed'}`));
  });
  child.once('exit', (code, signal) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${entry} exited (${signal ?? code})`));
    pending.clear();
  });

  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} was not ready within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    pending.set(0, {
      resolve: (value) => { clearTimeout(timer); resolve(value as Ready); },
      reject: (error) => { clearTimeout(timer); reject(error); },
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });

  const request = <T>(type: string, fields: Record<string, unknown> = {}): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: (value) => resolve(value as T), reject });
      child.send({ ...fields, id, type });
    });

  return {
    pid: child.pid ?? -1,
    ready,
    request,
    usage: () => request('usage'),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      try {
        await request('stop');
      } catch {
        child.kill('SIGKILL');
      }
      await exited;
      clearTimeout(timer);
    },
  };
}
