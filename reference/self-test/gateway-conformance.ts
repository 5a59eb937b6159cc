// `tsx reference/self-test/gateway-conformance.ts [kit options]`: the conformance kit run against `credit402 gateway` in front of a
// Python `http.server` upstream (reference/self-test/profile-upstream.py) that serves the profile's handlers and nothing else.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KIT_COMMAND, targetCommand } from '../testing/kit.ts';
import { startProfileUpstream } from '../testing/profile-upstream.ts';

const say = (line: string): void => void process.stderr.write(`gateway-conformance: ${line}\n`);

/** Variables that would make the gateway ignore the profile the kit hands it. */
const PROFILE_OVERRIDES = ['STRIPE_SECRET_KEY', 'STRIPE_PUBLISHABLE_KEY', 'CREDIT402_SERVER_SECRET', 'CREDIT402_STORE', 'HOST', 'CREDIT402_UPSTREAM'];

async function main(argv: string[]): Promise<number> {
  const [node = process.execPath, ...kit] = KIT_COMMAND;
  const profile = spawnSync(node, [...kit, 'profile'], { encoding: 'utf8' });
  if (profile.status !== 0) throw new Error(`the kit could not print its profile: ${profile.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'credit402-gateway-conformance-'));
  const profilePath = join(dir, 'profile.json');
  writeFileSync(profilePath, profile.stdout);
  const upstream = await startProfileUpstream(profilePath);
  say(`the gateway (store sqlite ${join(dir, 'gateway.db')}) in front of a Python upstream at ${upstream.url} is the target`);
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, CREDIT402_SQLITE_PATH: join(dir, 'gateway.db'), CREDIT402_KIT_COMMAND: 'npm run conformance:gateway --' };
    for (const name of PROFILE_OVERRIDES) delete env[name];
    // The kit sets CREDIT402_PROFILE, PORT and STRIPE_API_BASE; the shell expands them.
    const args = ['gateway', '--upstream', upstream.url, '--store', 'sqlite', '--host', '127.0.0.1', '--conformance-control'];
    const command = `${targetCommand('reference/cli.ts', args)} --profile "$CREDIT402_PROFILE" --port "$PORT" --stripe-api "$STRIPE_API_BASE"`;
    // The gateway answers the webhook endpoint (the profile's stripeWebhookSecret) and mounts the store's control routes.
    const declared = ['--declare', 'robustness=true', '--declare', 'capabilities=storeFaults,records'];
    const child = spawn(node, [...kit, 'conformance', '--target-cmd', command, ...declared, '--emulator-port', '0', ...argv], { stdio: 'inherit', env });
    return await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
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
