// Unit tests of `credit402-conformance client`'s option parsing: the driver command, levels, declarations, reports.
import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-options.ts';
import { CLIENT_USAGE, parseClientArgs } from './client-options.ts';

describe('parseClientArgs', () => {
  it('needs --client-cmd and defaults to strict, reports/ and no declarations', () => {
    expect(parseClientArgs(['--client-cmd', 'python driver.py'])).toEqual({
      kind: 'run',
      options: { command: 'python driver.py', reportsDir: 'reports', level: 'strict', declarations: {} },
    });
    expect(() => parseClientArgs([])).toThrow(/--client-cmd "CMD"/);
    expect(() => parseClientArgs(['--client-cmd', ' '])).toThrow(UsageError);
  });

  it('judges up to robust when the driver declares robustness, and takes the client capability', () => {
    const parsed = parseClientArgs(['--client-cmd', 'd', '--declare', 'robustness=true', '--declare', 'capabilities=spending-limit', '--tags', '@CR-16.8', '--reports', 'out']);
    expect(parsed).toEqual({
      kind: 'run',
      options: { command: 'd', tags: '@CR-16.8', reportsDir: 'out', level: 'robust', declarations: { robustness: true, capabilities: ['spending-limit'] } },
    });
    expect(parseClientArgs(['--client-cmd', 'd', '--level', 'wire', '--declare', 'robustness=true'])).toMatchObject({ options: { level: 'wire' } });
  });

  it('refuses what servers declare, unknown levels and unknown options', () => {
    expect(() => parseClientArgs(['--client-cmd', 'd', '--declare', 'capabilities=gateway'])).toThrow(/servers, not clients: gateway/);
    expect(() => parseClientArgs(['--client-cmd', 'd', '--declare', 'serviceName=x'])).toThrow(/robustness and capabilities only/);
    expect(() => parseClientArgs(['--client-cmd', 'd', '--level', 'max'])).toThrow(/--level must be/);
    expect(() => parseClientArgs(['--client-cmd', 'd', '--target', 'http://x'])).toThrow(UsageError);
  });

  it('takes the ports of the scripted servers A and B, 0 or absent meaning a free port', () => {
    expect(parseClientArgs(['--client-cmd', 'd', '--server-a-port', '4100', '--server-b-port', '4101'])).toMatchObject({ options: { serverPorts: { A: 4100, B: 4101 } } });
    expect(parseClientArgs(['--client-cmd', 'd', '--server-b-port', '4101'])).toMatchObject({ options: { serverPorts: { B: 4101 } } });
    const free = parseClientArgs(['--client-cmd', 'd', '--server-a-port', '0', '--server-b-port', '0']);
    expect(free.kind === 'run' && 'serverPorts' in free.options).toBe(false);
    expect(() => parseClientArgs(['--client-cmd', 'd', '--server-a-port', '4100', '--server-b-port', '4100'])).toThrow(/two ports, not 4100 twice/);
    expect(() => parseClientArgs(['--client-cmd', 'd', '--server-a-port', '65536'])).toThrow(/--server-a-port must be an integer from 0 to 65535/);
    expect(() => parseClientArgs(['--client-cmd', 'd', '--server-b-port', 'x'])).toThrow(UsageError);
    expect(CLIENT_USAGE).toContain('--server-a-port N');
    expect(CLIENT_USAGE).toContain('--server-b-port N');
  });

  it('prints its help', () => {
    expect(parseClientArgs(['--help'])).toEqual({ kind: 'help' });
    expect(CLIENT_USAGE).toContain('--client-cmd');
    expect(CLIENT_USAGE).toContain('client-driver.md');
  });
});
