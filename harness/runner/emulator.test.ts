// Tests of the run's emulator start-up: the port it binds, and a taken port gives a message that says what to do.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runEmulatorPort, startRunEmulator, useRunningEmulator } from './emulator.ts';

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('startRunEmulator', () => {
  it('says when another emulator (probably another run) holds the port, and how to avoid it', async () => {
    const first = await startRunEmulator('127.0.0.1', 0);
    const port = Number(new URL(first.url).port);
    try {
      await expect(startRunEmulator('127.0.0.1', port)).rejects.toThrow(/port is taken; a credit402 Stripe emulator already listens there: probably another conformance run[\s\S]*--emulator-port N[\s\S]*--emulator-url/);
      expect((await useRunningEmulator(first.url)).url).toBe(first.url);
    } finally {
      await first.close();
    }
  });

  it('says when some other program holds the port', async () => {
    const server = createServer((_request, response) => response.end('hello'));
    const port = await listening(server);
    try {
      await expect(startRunEmulator('127.0.0.1', port)).rejects.toThrow(/another program listens there/);
      await expect(useRunningEmulator(`http://127.0.0.1:${port}`)).rejects.toThrow(/no credit402 Stripe emulator answers there/);
    } finally {
      server.close();
    }
  });
});

describe('runEmulatorPort', () => {
  it('binds a free port for a target the kit starts, the profile\'s for a running target, and the one the user names', () => {
    expect(runEmulatorPort('command', undefined, 12111)).toBe(0);
    expect(runEmulatorPort('url', undefined, 12111)).toBe(12111);
    expect(runEmulatorPort('command', 4242, 12111)).toBe(4242);
    expect(runEmulatorPort('url', 0, 12111)).toBe(0);
  });
});
