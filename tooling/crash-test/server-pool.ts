// The crash test's server processes: one serving, one warm spare already loaded, so a restart takes milliseconds.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { SOURCE_NODE_OPTIONS } from '../testing/kit.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = fileURLToPath(new URL('./server-child.ts', import.meta.url));

type Child = ChildProcessByStdio<Writable, Readable, null>;
type Framework = 'fastify' | 'express';

interface Process {
  child: Child;
  /** Resolves each line the child prints. */
  next(): Promise<string>;
}

/**
 * Bundles the child with esbuild (tsx's own compiler) so that a process loads in a fraction of the time
 * tsx needs; falls back to tsx when esbuild cannot be loaded. Returns the node arguments.
 */
async function childCommand(): Promise<string[]> {
  try {
    const esbuild = await import('esbuild');
    const outdir = join(ROOT, 'node_modules/.cache/credit402-crash-test');
    rmSync(outdir, { recursive: true, force: true });
    mkdirSync(outdir, { recursive: true });
    // Code splitting keeps the server's dynamic imports lazy: a child loads one framework and one store driver.
    // The library and the emulator come from their sources (the child imports them by name), and the packages are
    // bundled too (the Stripe SDK alone is 220 files): a child loads in about half the CPU time. Only the native
    // driver stays external; `require` is defined for the CommonJS packages' own requires of Node's modules.
    const externalPackages = {
      name: 'external-packages',
      setup(build: import('esbuild').PluginBuild) {
        build.onResolve({ filter: /^better-sqlite3(\/|$)/ }, (args) => ({ path: args.path, external: true }));
      },
    };
    await esbuild.build({
      entryPoints: { 'server-child': ENTRY }, outdir, outExtension: { '.js': '.mjs' }, bundle: true, splitting: true,
      platform: 'node', format: 'esm', target: 'node20', conditions: ['credit402-source'], plugins: [externalPackages], logLevel: 'error',
      banner: { js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);" },
    });
    return [join(outdir, 'server-child.mjs')];
  } catch {
    return [...SOURCE_NODE_OPTIONS, ENTRY];
  }
}

function spawnChild(args: string[], configPath: string, framework: Framework, log: (line: string) => void): Process {
  const child = spawn(process.execPath, [...args, configPath, framework], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    async next() {
      const { value, done } = await lines.next();
      if (done) throw new Error(`server process ${child.pid} exited`);
      log(value);
      return value;
    },
  };
}

/** Keeps a serving process and `spares` loaded ones; `kill()` SIGKILLs the serving one, `start()` promotes a spare. */
export class ServerPool {
  #args: string[] = [];
  #serving: Process | undefined;
  readonly #spares: Array<Promise<Process>> = [];
  readonly #all = new Set<Child>();

  /** `chooseFramework` picks the framework of each process when it is spawned (it preloads it). */
  constructor(
    readonly configPath: string,
    readonly chooseFramework: () => Framework,
    readonly spares = 2,
    readonly log: (line: string) => void = () => {},
  ) {}

  async init(): Promise<void> {
    this.#args = await childCommand();
    for (let i = 0; i < this.spares; i++) this.#spares.push(this.#loadSpare());
  }

  /** Whether children run from the esbuild bundle (fast) or through tsx. */
  get bundled(): boolean {
    return this.#args.length === 1;
  }


  #loadSpare(): Promise<Process> {
    const proc = spawnChild(this.#args, this.configPath, this.chooseFramework(), this.log);
    this.#all.add(proc.child);
    proc.child.once('exit', () => this.#all.delete(proc.child));
    const ready = proc.next().then((line) => {
      if (line !== 'loaded') throw new Error(`unexpected output from the server process: ${line}`);
      return proc;
    });
    ready.catch(() => {}); // awaited by start(); a spare that dies unused must not crash the run
    return ready;
  }

  /** Starts the oldest spare, resolves its URL once it listens, and loads the next spare. */
  async start(): Promise<string> {
    if (this.#serving !== undefined) throw new Error('a server is already serving');
    const spare = this.#spares.shift();
    if (spare === undefined) throw new Error('no spare server process is loading');
    const proc = await spare;
    this.#spares.push(this.#loadSpare());
    proc.child.stdin.write('start\n');
    const line = await proc.next();
    if (!line.startsWith('ready ')) throw new Error(`unexpected output from the server process: ${line}`);
    this.#serving = proc;
    return line.slice('ready '.length);
  }

  /** SIGKILLs the serving process and waits until it is gone. */
  async kill(): Promise<void> {
    const proc = this.#serving;
    this.#serving = undefined;
    if (proc === undefined || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.child.once('exit', resolve));
    proc.child.kill('SIGKILL');
    await exited;
  }

  /** Kills every process this pool started, the spare included. */
  async close(): Promise<void> {
    const waits = [...this.#all].map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return exited;
    });
    await Promise.all(waits);
  }
}
