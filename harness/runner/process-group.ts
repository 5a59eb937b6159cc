// A child process in its own process group: output kept (tail in memory, all in a log file), whole group stopped.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { createWriteStream, readdirSync, readFileSync, type WriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** How to start a {@link ProcessGroup}. */
interface GroupSpec {
  /** A shell command line (run through /bin/sh) or an argv array (no shell). */
  command: string | readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Every output line is also appended here. */
  logFile?: string;
  /**
   * Talk to the process over its stdin and stdout (a client's driver): both are piped and exposed as {@link ProcessGroup.input}
   * and {@link ProcessGroup.output}; only stderr is kept and logged.
   */
  channel?: boolean;
}

const TAIL_LINES = 40;

/** Whether a live (not zombie) process of group `pgid` is left; zombies wait for init to reap them, which can take seconds. */
function groupAlive(pgid: number): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    try {
      process.kill(-pgid, 0); // no /proc (macOS): zombies count as alive
      return true;
    } catch {
      return false;
    }
  }
  return pids.some((pid) => {
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp …"; comm may contain spaces, so split after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(pgrp) === pgid && state !== 'Z';
    } catch {
      return false; // ended meanwhile
    }
  });
}

/** A started process group; its leader is the spawned process (the shell for a command line). */
export class ProcessGroup {
  readonly #child: ChildProcess;
  readonly #tail: string[] = [];
  readonly #log: WriteStream | undefined;
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  #stopped = false;
  readonly #exited: Promise<void>;
  readonly #channel: boolean;

  constructor(spec: GroupSpec) {
    const [file, ...args] = typeof spec.command === 'string' ? [spec.command] : spec.command;
    if (file === undefined) throw new Error('empty command');
    this.#log = spec.logFile ? createWriteStream(spec.logFile, { flags: 'a' }) : undefined;
    this.#child = spawn(file, args, {
      shell: typeof spec.command === 'string',
      detached: true, // own process group: killed as a whole, and not hit by the terminal's Ctrl-C twice
      env: spec.env,
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      stdio: [spec.channel ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    this.#channel = spec.channel === true;
    this.#exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => {
        this.#exit = { code, signal };
        resolve();
      });
      this.#child.once('error', (error) => {
        this.#keep(`[spawn error] ${error.message}`);
        this.#exit ??= { code: null, signal: null };
        resolve();
      });
    });
    for (const stream of spec.channel ? [this.#child.stderr] : [this.#child.stdout, this.#child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) this.#keep(line);
      });
      stream?.on('end', () => partial && this.#keep(partial));
    }
  }

  /** The process's stdin, for a group started with `channel`. */
  get input(): Writable {
    if (!this.#channel || !this.#child.stdin) throw new Error('the process group was not started with a channel');
    return this.#child.stdin;
  }

  /** The process's stdout, for a group started with `channel` (not kept in the tail nor logged). */
  get output(): Readable {
    if (!this.#channel || !this.#child.stdout) throw new Error('the process group was not started with a channel');
    return this.#child.stdout;
  }

  #keep(line: string): void {
    this.#tail.push(line);
    if (this.#tail.length > TAIL_LINES) this.#tail.shift();
    this.#log?.write(`${line}\n`);
  }

  /** The last lines the group printed (stdout and stderr interleaved). */
  tail(): string[] {
    return [...this.#tail];
  }

  /** How the leader ended, once it has. */
  exitStatus(): string | undefined {
    if (!this.#exit) return undefined;
    return this.#exit.signal ? `killed by ${this.#exit.signal}` : `exited with code ${this.#exit.code}`;
  }

  #signal(signal: NodeJS.Signals): boolean {
    if (this.#child.pid === undefined) return false;
    try {
      process.kill(-this.#child.pid, signal);
      return true;
    } catch {
      return false; // ESRCH: no process left in the group
    }
  }

  /** Synchronous SIGKILL of the whole group (for process exit handlers); nothing once {@link stop} has finished. */
  killNow(): void {
    if (!this.#stopped) this.#signal('SIGKILL');
  }

  /** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves when no process of the group is left. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.#signal('SIGTERM')) {
      this.#stopped = true;
      return this.#closeLog();
    }
    const deadline = Date.now() + graceMs;
    while (this.#child.pid !== undefined && groupAlive(this.#child.pid)) {
      if (Date.now() > deadline) {
        this.#signal('SIGKILL');
        break;
      }
      await sleep(50);
    }
    await this.#exited;
    this.#stopped = true; // the group id may now be reused by an unrelated process group
    await this.#closeLog();
  }

  #closeLog(): Promise<void> {
    return new Promise((resolve) => (this.#log ? this.#log.end(resolve) : resolve()));
  }
}
