// Unit tests of the runner's argument parsing.
import { describe, expect, it } from 'vitest';
import { parseRunnerArgs, UsageError } from './cli-options.ts';

const run = (...args: string[]) => {
  const command = parseRunnerArgs(args);
  if (command.kind !== 'run') throw new Error(`expected a run, got ${command.kind}`);
  return command.options;
};

describe('parseRunnerArgs', () => {
  it('defaults to the reference server on SQLite with Fastify, the fixed emulator and serial scenarios', () => {
    expect(run()).toEqual({ target: { kind: 'reference', store: 'sqlite', framework: 'fastify' }, parallel: 0, reportsDir: 'reports' });
  });

  it('reads every option', () => {
    expect(run('--store', 'redis', '--framework', 'express', '--tags', '@CR-7.14', '--parallel', '4', '--emulator-port', '0', '--reports', 'out')).toEqual({
      target: { kind: 'reference', store: 'redis', framework: 'express' },
      emulatorPort: 0,
      tags: '@CR-7.14',
      parallel: 4,
      reportsDir: 'out',
    });
    expect(run('--target', 'http://127.0.0.1:4020/', '--emulator-url', 'http://127.0.0.1:12111').target).toEqual({ kind: 'url', url: 'http://127.0.0.1:4020' });
    expect(run('--target-cmd', 'python app.py').target).toEqual({ kind: 'command', command: 'python app.py' });
  });

  it('knows --help and --print-profile', () => {
    expect(parseRunnerArgs(['-h'])).toEqual({ kind: 'help' });
    expect(parseRunnerArgs(['--print-profile'])).toEqual({ kind: 'print-profile' });
  });

  it.each([
    [['--target', 'http://a', '--target-cmd', 'x'], /either --target or --target-cmd/],
    [['--target-cmd', 'x', '--store', 'redis'], /--store configure the reference server/],
    [['--store', 'postgres'], /--store must be one of sqlite, redis, memory/],
    [['--framework', 'koa'], /--framework must be one of fastify, express/],
    [['--parallel', 'two'], /--parallel must be an integer/],
    [['--emulator-port', '70000'], /--emulator-port must be an integer from 0 to 65535/],
    [['--emulator-port', '1', '--emulator-url', 'http://x'], /either --emulator-port or --emulator-url/],
    [['--target', 'localhost:4020'], /--target must be an http\(s\) URL/],
    [['--target-cmd', ' '], /--target-cmd needs a command/],
    [['--bogus'], /Unknown option '--bogus'/],
  ])('rejects %j', (args, message) => {
    expect(() => parseRunnerArgs(args)).toThrow(UsageError);
    expect(() => parseRunnerArgs(args)).toThrow(message);
  });
});
