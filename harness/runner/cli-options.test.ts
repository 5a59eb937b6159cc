// Unit tests of the runner's argument parsing.
import { describe, expect, it } from 'vitest';
import { DEFAULT_HISTORY_SECONDS, parseRunnerArgs, UsageError } from './cli-options.ts';
import { historyPlan } from './history-plan.ts';

const run = (...args: string[]) => {
  const command = parseRunnerArgs(args);
  if (command.kind !== 'run') throw new Error(`expected a run, got ${command.kind}`);
  return command.options;
};

describe('parseRunnerArgs', () => {
  it('takes the gateway capability with --target-cmd and no --parallel only', () => {
    expect(run('--target-cmd', 'gw', '--declare', 'capabilities=gateway').declarations).toEqual({ capabilities: ['gateway'] });
    expect(() => parseRunnerArgs(['--target', 'http://127.0.0.1:8080', '--declare', 'capabilities=gateway'])).toThrow('capabilities=gateway needs --target-cmd');
    expect(() => parseRunnerArgs(['--target-cmd', 'gw', '--declare', 'capabilities=gateway', '--parallel', '2'])).toThrow(UsageError);
  });

  it('defaults to the fixed emulator, serial scenarios and reports/', () => {
    expect(run('--target', 'http://127.0.0.1:8080')).toEqual({
      target: { kind: 'url', url: 'http://127.0.0.1:8080' },
      parallel: 0,
      reportsDir: 'reports',
      level: 'strict',
      declarations: {},
    });
  });

  it('reads every option', () => {
    expect(run('--target-cmd', 'python app.py', '--tags', '@CR-7.14', '--parallel', '4', '--emulator-port', '0', '--reports', 'out')).toEqual({
      target: { kind: 'command', command: 'python app.py' },
      emulatorPort: 0,
      tags: '@CR-7.14',
      parallel: 4,
      reportsDir: 'out',
      level: 'strict',
      declarations: {},
    });
    expect(run('--target', 'http://127.0.0.1:4020/', '--emulator-url', 'http://127.0.0.1:12111').target).toEqual({ kind: 'url', url: 'http://127.0.0.1:4020' });
    expect(run('--target-cmd', 'python app.py').target).toEqual({ kind: 'command', command: 'python app.py' });
  });

  it('judges up to strict by default, up to robust when the target declares it, and as --level says', () => {
    expect(run('--target-cmd', 'x', '--declare', 'robustness=true')).toMatchObject({ level: 'robust', declarations: { robustness: true } });
    expect(run('--target-cmd', 'x', '--declare', 'robustness=true', '--level', 'wire').level).toBe('wire');
    expect(run('--target-cmd', 'x', '--declare', 'serviceName=stripe402', '--declare', 'customerMetadataKey=stripe402_client_id').declarations).toEqual({
      serviceName: 'stripe402',
      customerMetadataKey: 'stripe402_client_id',
    });
  });

  it('makes generated histories after a robust run of the whole suite: the default budget, --history-seconds S (0 = none), --seed N', () => {
    expect(historyPlan(run('--target-cmd', 'x', '--declare', 'robustness=true'))).toMatchObject({ seconds: DEFAULT_HISTORY_SECONDS });
    expect(historyPlan(run('--target-cmd', 'x', '--level', 'robust', '--history-seconds', '3', '--seed', '42'))).toEqual({ seconds: 3, seed: 42 });
    expect(historyPlan(run('--target-cmd', 'x', '--level', 'robust', '--history-seconds', '0'))).toMatchObject({ seconds: 0, say: 'no generated histories (--history-seconds 0)' });
    expect(historyPlan(run('--target-cmd', 'x', '--level', 'robust', '--tags', '@CR-6.9'))).toMatchObject({ seconds: 0, say: expect.stringContaining('--tags') });
    expect(historyPlan(run('--target-cmd', 'x', '--level', 'robust', '--tags', '@CR-6.9', '--history-seconds', '5'))).toMatchObject({ seconds: 5 });
    expect(historyPlan(run('--target-cmd', 'x'))).toMatchObject({ seconds: 0 });
    const fresh = historyPlan(run('--target-cmd', 'x', '--level', 'robust')).seed;
    expect(Number.isSafeInteger(fresh) && fresh >= 0 && fresh < 2 ** 31).toBe(true);
  });

  it('knows --help', () => {
    expect(parseRunnerArgs(['-h'])).toEqual({ kind: 'help' });
  });

  it.each([
    [['--target', 'http://a', '--target-cmd', 'x'], /either --target or --target-cmd/],
    [[], /say which implementation to check: --target URL or --target-cmd "CMD"/],
    [['--target-cmd', 'x', '--store', 'redis'], /Unknown option '--store'/],
    [['--target-cmd', 'x', '--parallel', 'two'], /--parallel must be an integer/],
    [['--target-cmd', 'x', '--emulator-port', '70000'], /--emulator-port must be an integer from 0 to 65535/],
    [['--emulator-port', '1', '--emulator-url', 'http://x'], /either --emulator-port or --emulator-url/],
    [['--target', 'localhost:4020'], /--target must be an http\(s\) URL/],
    [['--target-cmd', ' '], /--target-cmd needs a command/],
    [['--target-cmd', 'x', '--level', 'loose'], /--level must be wire, strict or robust; got "loose"/],
    [['--target-cmd', 'x', '--declare', 'colour=blue'], /unknown declaration colour/],
    [['--target-cmd', 'x', '--declare-file', '/nonexistent.json'], /--declare-file \/nonexistent.json: ENOENT/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['--target-cmd', 'x', '--history-seconds', '5'], /the generated histories \(--history-seconds, --seed\) are part of the robust level; this run judges up to strict/],
    [['--target-cmd', 'x', '--level', 'wire', '--seed', '1'], /part of the robust level; this run judges up to wire/],
    [['--target-cmd', 'x', '--level', 'robust', '--history-seconds', '1.5'], /--history-seconds must be an integer from 0 to 86400/],
  ])('rejects %j', (args, message) => {
    expect(() => parseRunnerArgs(args)).toThrow(UsageError);
    expect(() => parseRunnerArgs(args)).toThrow(message);
  });
});
