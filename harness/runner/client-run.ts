// One client run: the kit's scripted server, the client's driver, the client suite, reports; everything started is stopped again.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DriverChannel, DriverError, UnsupportedInstruction } from '../client/driver.ts';
import { ScriptedServer } from '../client/scripted-server.ts';
import { setClientSession } from '../client/session.ts';
import type { ClientRunOptions } from './client-options.ts';
import { plannedScenarios, runSuite, type SuiteOptions } from './cucumber-suite.ts';
import { ProcessGroup } from './process-group.ts';
import { type Teardown, withTeardown } from './teardown.ts';

/** Overrides for tests: where the suite lives. */
export type ClientRunEnvironment = Pick<SuiteOptions, 'cwd' | 'paths' | 'imports' | 'stdout'>;

const say = (line: string): void => void process.stderr.write(`client conformance: ${line}\n`);

/** Starts the driver in its own process group, with a fresh state directory; both are removed by the teardown. */
function startDriver(command: string, logFile: string, teardown: Teardown): { group: ProcessGroup; driver: DriverChannel } {
  const state = mkdtempSync(join(tmpdir(), 'credit402-client-state-'));
  teardown.add('the client state directory', () => rmSync(state, { recursive: true, force: true }));
  writeFileSync(logFile, `# ${command}\n`);
  const group = new ProcessGroup({ command, env: { ...process.env, CREDIT402_CLIENT_STATE: state }, cwd: process.cwd(), logFile, channel: true });
  const driver = new DriverChannel(group.input, group.output, { name: `\`${command}\``, exitStatus: () => group.exitStatus() });
  teardown.add('the driver', async () => {
    driver.close(); // the driver exits when its stdin closes; the group is stopped whatever it does
    await group.stop(2000);
  });
  teardown.lastResort(() => group.killNow());
  return { group, driver };
}

/** Runs the client suite against the driver `options.command` starts; resolves to the exit code (0 = every scenario passed). */
export async function runClientConformance(options: ClientRunOptions, environment: ClientRunEnvironment = {}): Promise<number> {
  const suite: SuiteOptions = {
    ...environment,
    mode: 'client',
    reportsDir: options.reportsDir,
    parallel: 0,
    ...(options.tags ? { tags: options.tags } : {}),
    runLevel: options.level,
    robustDeclared: options.declarations.robustness === true,
    target: `\`${options.command}\``,
  };
  const scenarios = await plannedScenarios(suite, say, 'features/client/*.feature');
  if (scenarios === undefined) return 2;
  return withTeardown(say, async (teardown) => {
    const reportsPath = resolve(options.reportsDir);
    mkdirSync(reportsPath, { recursive: true });
    const server = await ScriptedServer.start(options.serverPorts);
    teardown.add('the scripted server', () => server.close());
    say(`scripted server at ${server.url('A')} (server A) and ${server.url('B')} (server B)`);
    const logFile = join(reportsPath, 'client.log');
    const { group, driver } = startDriver(options.command, logFile, teardown);
    try {
      await driver.reset();
    } catch (error) {
      if (!(error instanceof DriverError || error instanceof UnsupportedInstruction)) throw error;
      const tail = group.tail();
      throw new Error(`the driver did not answer its first reset: ${error.message}\n${tail.length ? `its last stderr lines:\n${tail.map((line) => `  | ${line}`).join('\n')}` : 'it wrote nothing on stderr'}\n(full stderr: ${logFile})`);
    }
    setClientSession({ server, driver });
    teardown.add('the client session', () => setClientSession(undefined));
    say(`driver: \`${options.command}\`; running ${scenarios} scenario${scenarios === 1 ? '' : 's'}${options.tags ? ` (--tags "${options.tags}")` : ''}`);
    const declared = Object.keys(options.declarations).length === 0 ? '' : `; the driver declares ${JSON.stringify(options.declarations)}`;
    say(`judging up to the ${options.level} level${declared}`);
    suite.runErrors = () => (driver.failure ? [`${driver.failure.message}; the scenarios from there on were not run`] : []);
    const success = await runSuite(suite, { level: options.level, declarations: JSON.stringify(options.declarations) });
    if (driver.failure) say(`run error: ${driver.failure.message}\nits last stderr lines:\n${group.tail().map((line) => `  | ${line}`).join('\n')}`);
    return success && !driver.failure ? 0 : 1;
  });
}
