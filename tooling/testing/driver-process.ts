// Test helper: a client driver (harness/docs/client-driver.md) started as a process, fed one JSON instruction at a time.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './kit.ts';

/** A running driver: `send` writes an instruction and resolves to its reply line, parsed. */
export interface DriverProcess {
  send(instruction: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Closes its stdin and resolves to its exit code; its state directory is removed. */
  close(): Promise<number | null>;
  /** What it wrote on stderr. */
  stderr(): string;
}

/** Starts `command` through the shell, as the kit does, with an empty CREDIT402_CLIENT_STATE. */
export function startDriver(command: string): DriverProcess {
  const state = mkdtempSync(join(tmpdir(), 'credit402-driver-state-'));
  const child = spawn(command, { shell: true, cwd: REPO_ROOT, env: { ...process.env, CREDIT402_CLIENT_STATE: state }, stdio: ['pipe', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk));
  const waiting: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(line));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    send(instruction) {
      const reply = new Promise<string>((resolve) => waiting.push(resolve));
      child.stdin.write(`${JSON.stringify(instruction)}\n`);
      return reply.then((line) => JSON.parse(line) as Record<string, unknown>);
    },
    async close() {
      child.stdin.end();
      const code = await exited;
      rmSync(state, { recursive: true, force: true });
      return code;
    },
    stderr: () => errors,
  };
}
