// `tsx tooling/self-test/gateway-conformance.ts [--upstream python|kit] [kit options]`: the conformance kit run against `credit402 gateway`
// in front of a Python `http.server` upstream (tooling/self-test/profile-upstream.py, the default) that serves the profile's handlers
// and nothing else, or (`--upstream kit`) in front of the kit's own controlled upstream, declaring the `gateway` capability.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KIT_COMMAND, targetCommand } from '../testing/kit.ts';
import { startProfileUpstream } from '../testing/profile-upstream.ts';

const say = (line: string): void => void process.stderr.write(`gateway-conformance: ${line}\n`);

/** Variables that would make the gateway ignore the profile the kit hands it. */
const PROFILE_OVERRIDES = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'CREDIT402_SERVER_SECRET', 'CREDIT402_STORE', 'HOST', 'CREDIT402_UPSTREAM'];

/** The gateway's upstream timeout in front of the kit's upstream: its stalled requests are answered 504 well within the kit's wait. */
const KIT_UPSTREAM_TIMEOUT_MS = 3000;

/** Which upstream the run uses (`--upstream python|kit`, default python), and the kit's own options. */
function upstreamChoice(argv: string[]): { upstream: 'python' | 'kit'; rest: string[] } {
  const at = argv.findIndex((arg) => arg === '--upstream' || arg.startsWith('--upstream='));
  if (at === -1) return { upstream: 'python', rest: argv };
  const arg = argv[at] ?? '';
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[at + 1];
  if (value !== 'python' && value !== 'kit') throw new Error(`--upstream takes python or kit, got ${String(value)}`);
  return { upstream: value, rest: [...argv.slice(0, at), ...argv.slice(at + (arg.includes('=') ? 1 : 2))] };
}

async function main(argv: string[]): Promise<number> {
  const { upstream: choice, rest } = upstreamChoice(argv);
  return choice === 'kit' ? inFrontOfKit(rest) : inFrontOfPython(rest);
}

/** Common environment of the gateway, with its SQLite file in `dir`. */
function gatewayEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CREDIT402_SQLITE_PATH: join(dir, 'gateway.db'), CREDIT402_KIT_COMMAND: 'npm run conformance:gateway --' };
  for (const name of PROFILE_OVERRIDES) delete env[name];
  return env;
}

/** Runs the kit with `args`; resolves to its exit code. */
function runKit(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const child = spawn(node, [...kit, 'conformance', ...args], { stdio: 'inherit', env });
  return new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

/** The gateway in front of the kit's controlled upstream, whose URL the kit hands the target in CREDIT402_UPSTREAM_URL. */
async function inFrontOfKit(argv: string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'credit402-gateway-conformance-'));
  say(`the gateway (store sqlite ${join(dir, 'gateway.db')}) in front of the kit's controlled upstream is the target`);
  try {
    const args = ['gateway', '--store', 'sqlite', '--host', '127.0.0.1', '--conformance-control', '--upstream-timeout-ms', String(KIT_UPSTREAM_TIMEOUT_MS)];
    // The kit sets CREDIT402_PROFILE, PORT, STRIPE_API_BASE and CREDIT402_UPSTREAM_URL; the shell expands them.
    const command = `${targetCommand('reference/cli.ts', args)} --upstream "$CREDIT402_UPSTREAM_URL" --profile "$CREDIT402_PROFILE" --port "$PORT" --stripe-api "$STRIPE_API_BASE"`;
    const declared = ['--declare', 'robustness=true', '--declare', 'capabilities=storeFaults,records,gateway'];
    return await runKit(['--target-cmd', command, ...declared, '--emulator-port', '0', ...argv], gatewayEnv(dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The gateway in front of the Python upstream this script starts. */
async function inFrontOfPython(argv: string[]): Promise<number> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const profile = spawnSync(node, [...kit, 'profile'], { encoding: 'utf8' });
  if (profile.status !== 0) throw new Error(`the kit could not print its profile: ${profile.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'credit402-gateway-conformance-'));
  const profilePath = join(dir, 'profile.json');
  writeFileSync(profilePath, profile.stdout);
  const upstream = await startProfileUpstream(profilePath);
  say(`the gateway (store sqlite ${join(dir, 'gateway.db')}) in front of a Python upstream at ${upstream.url} is the target`);
  try {
    const env = gatewayEnv(dir);
    // The kit sets CREDIT402_PROFILE, PORT and STRIPE_API_BASE; the shell expands them.
    const args = ['gateway', '--upstream', upstream.url, '--store', 'sqlite', '--host', '127.0.0.1', '--conformance-control'];
    const command = `${targetCommand('reference/cli.ts', args)} --profile "$CREDIT402_PROFILE" --port "$PORT" --stripe-api "$STRIPE_API_BASE"`;
    // The gateway answers the webhook endpoint (the profile's stripeWebhookSecret) and mounts the store's control routes.
    const declared = ['--declare', 'robustness=true', '--declare', 'capabilities=storeFaults,records'];
    return await runKit(['--target-cmd', command, ...declared, '--emulator-port', '0', ...argv], env);
  } finally {
    upstream.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    say((error as Error).message);
    process.exitCode = 2;
  },
);
