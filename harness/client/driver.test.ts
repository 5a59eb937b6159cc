// Unit tests of the driver channel: the kit's fake driver end to end, and drivers that break the contract (malformed, gone, silent).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriverChannel, DriverError, UnsupportedInstruction } from './driver.ts';
import { MalformedReply, parseFetchReply } from './driver-replies.ts';
import { ScriptedServer } from './scripted-server.ts';

const FAKE_DRIVER = new URL('./fixtures/fetch-driver.mjs', import.meta.url).pathname;
const started: Array<{ kill: () => void }> = [];

/** A driver from a file, or from a line of JS that handles each instruction `i` (with `reply(object)` to answer). */
function driver(source: { file: string } | { handle: string }, timeoutMs?: number): DriverChannel {
  const script = 'file' in source
    ? [source.file]
    : ['-e', `const reply = (o) => process.stdout.write(JSON.stringify(o) + '\\n'); require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => { const i = JSON.parse(line); ${source.handle} });`];
  const child = spawn(process.execPath, script, { stdio: ['pipe', 'pipe', 'inherit'] });
  started.push(child);
  let exit: string | undefined;
  child.on('exit', (code) => (exit = `exited with code ${code}`));
  return new DriverChannel(child.stdin, child.stdout, { name: '`test driver`', ...(timeoutMs ? { timeoutMs } : {}), exitStatus: () => exit });
}

let server: ScriptedServer;
beforeAll(async () => {
  server = await ScriptedServer.start();
});
afterAll(async () => {
  for (const child of started) child.kill();
  await server.close();
});

describe('DriverChannel with the kit\'s fake driver', () => {
  it('resets the client and reports a paid call with what the callback received', async () => {
    const channel = driver({ file: FAKE_DRIVER });
    await channel.reset();
    const reply = await channel.fetch([{ url: `${server.url('A')}/api/weather`, method: 'GET', headers: {}, body: null }], { paymentMethodId: 'pm_t', topUpAmount: 50000 });
    expect(reply.results).toEqual([expect.objectContaining({ status: 200, body: '{"route":"GET /api/weather"}', error: null })]);
    expect(reply.callbacks).toEqual([{ url: `${server.url('A')}/api/weather`, amount: 500, minTopUp: 50000, currency: 'usd', publishableKey: 'pk_test_credit402clientkit', error: null }]);
    expect(channel.log.map((entry) => JSON.parse(entry.instruction).op)).toEqual(['reset', 'fetch']);
    channel.close();
  });
});

describe('DriverChannel with a driver that breaks the contract', () => {
  it('makes a malformed reply a run error naming the driver, and ends the channel', async () => {
    const channel = driver({ handle: 'reply({ id: i.id, ok: "yes" })' });
    await expect(channel.reset()).rejects.toThrow(/the driver `test driver` sent a malformed reply to reset #1: the reply must be/);
    expect(channel.failure).toBeInstanceOf(DriverError);
    await expect(channel.restart()).rejects.toBe(channel.failure);
  });

  it('reports a driver that exits, and one that does not reply in time', async () => {
    await expect(driver({ handle: 'process.exit(3)' }).reset()).rejects.toThrow(/the driver `test driver` exited with code 3/);
    await expect(driver({ handle: '' }, 200).reset()).rejects.toThrow(/did not reply within 0.2 s/);
  });

  it('makes an instruction the driver does not support not run, without ending the channel', async () => {
    const channel = driver({ handle: 'reply(i.op === "restart" ? { id: i.id, error: "unknown op" } : { id: i.id, ok: true })' });
    await expect(channel.restart()).rejects.toBeInstanceOf(UnsupportedInstruction);
    await expect(channel.reset()).resolves.toBeUndefined();
    expect(channel.failure).toBeUndefined();
  });
});

describe('parseFetchReply', () => {
  it('checks every member instead of trusting the shape', () => {
    const result = { status: 200, headers: { 'Payment-Response': 'x' }, body: '', error: null };
    expect(parseFetchReply({ results: [result], callbacks: [] }, 1).results[0]?.headers).toEqual({ 'payment-response': 'x' });
    expect(() => parseFetchReply({ results: [], callbacks: [] }, 1)).toThrow(MalformedReply);
    expect(() => parseFetchReply({ results: [{ status: null, error: null }], callbacks: [] }, 1)).toThrow(/either a status or an error/);
    expect(() => parseFetchReply({ results: [{ status: null, error: { kind: 'oops', message: '' } }], callbacks: [] }, 1)).toThrow(/kind must be one of/);
    expect(() => parseFetchReply({ results: [result], callbacks: ['asked'] }, 1)).toThrow(/callbacks\[0\] must be a JSON object/);
    expect(() => parseFetchReply({ results: [result], callbacks: {} }, 1)).toThrow(/callbacks must be an array/);
  });

  it('keeps what the callback received as the driver gave it, for the checks to judge (an amount "500" is the client\'s)', () => {
    const result = { status: 402, headers: {}, body: '', error: null };
    const asked = { url: 'http://127.0.0.1:1/api/weather', amount: '500', minTopUp: 50000.5, currency: ['usd'], publishableKey: 7, error: false };
    expect(parseFetchReply({ results: [result], callbacks: [asked] }, 1).callbacks).toEqual([asked]);
    expect(parseFetchReply({ results: [result], callbacks: [{ url: 'u' }] }, 1).callbacks).toEqual([{ url: 'u', amount: null, minTopUp: null, currency: null, publishableKey: null, error: null }]);
  });
});
