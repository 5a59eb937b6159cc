// Tests of process-group handling: the whole group is stopped, output is kept, a target that never answers is reported.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessGroup } from './process-group.ts';
import { startTarget } from './target.ts';
import { Teardown } from './teardown.ts';

const dir = mkdtempSync(join(tmpdir(), 'credit402-runner-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Running, not a zombie waiting for init to reap it. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe.skipIf(!existsSync('/proc/self/stat'))('ProcessGroup', () => {
  it('stops the shell and the processes it started, and keeps their output', async () => {
    const logFile = join(dir, 'group.log');
    const group = new ProcessGroup({ command: 'echo one; sleep 30 & echo $! ; echo two >&2; sleep 31', env: process.env, logFile });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [, background] = group.tail();
    const grandchild = Number(background);
    expect(alive(grandchild)).toBe(true);
    await group.stop();
    expect(alive(grandchild)).toBe(false);
    expect(group.exitStatus()).toBe('killed by SIGTERM');
    expect(group.tail()).toEqual(['one', background, 'two']);
    expect(readFileSync(logFile, 'utf8')).toBe(`one\n${background}\ntwo\n`);
  });

  it('kills a group that ignores SIGTERM after the grace period', async () => {
    const group = new ProcessGroup({ command: ['sh', '-c', "trap '' TERM; echo ready; sleep 30"], env: process.env });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    await group.stop(300);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(group.exitStatus()).toBe('killed by SIGKILL');
  });
});

describe('startTarget with --target-cmd', () => {
  it('passes the profile, port and emulator URL, and waits until the target answers', async () => {
    const teardown = new Teardown();
    const command = `node -e "require('http').createServer((q, s) => s.end(process.env.CREDIT402_PROFILE + ' ' + process.env.STRIPE_API_BASE)).listen(process.env.PORT, '127.0.0.1')"`;
    try {
      const target = await startTarget({ kind: 'command', command }, { emulatorUrl: 'http://127.0.0.1:1', profilePath: '/profile.json', teardown, logFile: join(dir, 'ok.log') });
      expect(await (await fetch(target.url)).text()).toBe('/profile.json http://127.0.0.1:1');
    } finally {
      await teardown.run();
    }
  });

  it('reports a target that never answers with its last output lines', async () => {
    const teardown = new Teardown();
    const context = { emulatorUrl: 'http://127.0.0.1:1', profilePath: '/p.json', teardown, logFile: join(dir, 'silent.log'), startTimeoutMs: 1000 };
    await expect(startTarget({ kind: 'command', command: 'echo booting on $PORT; sleep 30' }, context)).rejects.toThrow(
      /did not answer within 1 s[\s\S]*command: echo booting on \$PORT; sleep 30[\s\S]*its last output lines:\n {2}\| booting on \d+/,
    );
    await teardown.run();
  });

  it('reports a target that exits before answering', async () => {
    const teardown = new Teardown();
    const context = { emulatorUrl: 'http://127.0.0.1:1', profilePath: '/p.json', teardown, logFile: join(dir, 'exit.log') };
    await expect(startTarget({ kind: 'command', command: 'echo bad config >&2; exit 3' }, context)).rejects.toThrow(
      /the target exited with code 3 before[\s\S]*\| bad config/,
    );
    await teardown.run();
  });
});
