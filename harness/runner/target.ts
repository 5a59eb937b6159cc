// Starts or checks the target under test: a running URL, or a shell command started as a child process group.
import { writeFileSync } from 'node:fs';
import type { TargetChoice } from './cli-options.ts';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { ProcessGroup } from './process-group.ts';
import type { Teardown } from './teardown.ts';
import { waitForHttp } from './wait-for-http.ts';

/** A target the suite can talk to. */
interface RunningTarget {
  url: string;
  /** One line saying what runs, for the start-up output. */
  description: string;
  /** The process group, when the runner started the target. */
  group?: ProcessGroup;
}

/** What starting a target needs from the run. */
interface TargetContext {
  emulatorUrl: string;
  profilePath: string;
  teardown: Teardown;
  /** The target's output goes here. */
  logFile: string;
  startTimeoutMs?: number;
  /** More variables for a `--target-cmd` target (CREDIT402_UPSTREAM_URL of the kit's upstream). */
  env?: Readonly<Record<string, string>>;
}

async function spawnAndWait(command: string | readonly string[], env: NodeJS.ProcessEnv, port: number, ctx: TargetContext): Promise<ProcessGroup> {
  writeFileSync(ctx.logFile, `# ${typeof command === 'string' ? command : command.join(' ')}\n`);
  const group = new ProcessGroup({ command, env, cwd: process.cwd(), logFile: ctx.logFile });
  ctx.teardown.add('the target', () => group.stop());
  ctx.teardown.lastResort(() => group.killNow());
  const url = `http://127.0.0.1:${port}/`;
  const timeoutMs = ctx.startTimeoutMs ?? 30_000;
  try {
    await waitForHttp(url, { timeoutMs, gone: () => (group.exitStatus() ? `the target ${group.exitStatus()}` : undefined) });
  } catch (error) {
    const tail = group.tail();
    throw new Error(
      `the target did not start: ${(error as Error).message}\n` +
        `command: ${typeof command === 'string' ? command : command.join(' ')}\n` +
        (tail.length ? `its last output lines:\n${tail.map((line) => `  | ${line}`).join('\n')}` : 'it printed nothing') +
        `\n(full output: ${ctx.logFile})`,
    );
  }
  return group;
}

async function startCommand(command: string, ctx: TargetContext): Promise<RunningTarget> {
  const port = await freePort();
  const env = { ...process.env, ...ctx.env, CREDIT402_PROFILE: ctx.profilePath, PORT: String(port), STRIPE_API_BASE: ctx.emulatorUrl };
  const group = await spawnAndWait(command, env, port, ctx);
  return { url: `http://127.0.0.1:${port}`, description: `\`${command}\` (PORT=${port})`, group };
}

async function checkUrl(url: string): Promise<RunningTarget> {
  try {
    await waitForHttp(`${url}/`, { timeoutMs: 5000 });
  } catch (error) {
    throw new Error(`--target ${url} does not answer: ${(error as Error).message}`);
  }
  return { url, description: url };
}

/** Starts (or checks) the chosen target; everything started is registered on the teardown. */
export function startTarget(choice: TargetChoice, ctx: TargetContext): Promise<RunningTarget> {
  switch (choice.kind) {
    case 'url':
      return checkUrl(choice.url);
    case 'command':
      return startCommand(choice.command, ctx);
  }
}
