// Test helper: the gateway's upstream in its self-tests, tooling/self-test/profile-upstream.py (Python standard library) serving a profile's handlers.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from './kit.ts';

/** A running Python upstream. */
export interface ProfileUpstream {
  url: string;
  port: number;
  /** Sends SIGTERM. */
  stop(): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

/** Starts the upstream serving the handlers of the profile at `profilePath` on a free port; resolves once it listens. */
export async function startProfileUpstream(profilePath: string): Promise<ProfileUpstream> {
  const port = await freePort();
  const child = spawn('python3', [join(REPO_ROOT, 'tooling/self-test/profile-upstream.py'), profilePath, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code}`)));
    child.stdout?.once('data', () => resolve());
  });
  return { url: `http://127.0.0.1:${port}`, port, stop: () => void child.kill('SIGTERM') };
}
