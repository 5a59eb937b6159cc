// The reference server's failure log: one line per failure with a code, stack traces only at the debug level.
import { createHmac } from 'node:crypto';
import { format } from 'node:util';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { ScriptedStore } from 'credit402-tooling/testing/scripted-store';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';
import { loadServerConfig, type ServerConfig } from './engine-config.ts';
import { createServerLog, failureCode, failureLine } from './server-log.ts';
import { startReferenceServer } from '../server/start-server.ts';

/** An error as a Stripe connection failure looks: a code on the cause only. */
function wrapped(): Error {
  const socket = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
  return new Error('store down', { cause: socket });
}

describe('createServerLog', () => {
  it('writes one line per failure, with the first code along the causes, else a name, else ERROR', () => {
    const lines: string[] = [];
    const log = createServerLog({ write: (text) => lines.push(text) });
    log.reporter('credit402')(wrapped(), 'acquireLock');
    log.reporter('credit402 webhook')(Object.assign(new Error('x'), { name: 'InjectedStoreOutage' }), 'creditTopUp');
    log.failure('credit402 reference server', 'GET /x', 'a string');
    expect(lines).toEqual([
      'credit402: acquireLock failed [ECONNREFUSED]: Error: store down (cause: Error [ECONNREFUSED]: connect ECONNREFUSED 127.0.0.1:6379)',
      'credit402 webhook: creditTopUp failed [InjectedStoreOutage]: InjectedStoreOutage: x',
      'credit402 reference server: GET /x failed [ERROR]: a string',
    ]);
    expect(failureCode(Object.assign(new Error('t'), { code: 'ERR_STORE_TIMEOUT' }))).toBe('ERR_STORE_TIMEOUT');
    expect(failureLine('p', 'w', new Error('a\n  b'))).toBe('p: w failed [ERROR]: Error: a b');
  });

  it('adds the stacks of the error and its causes at the debug level only', () => {
    const lines: string[] = [];
    createServerLog({ level: 'debug', write: (text) => lines.push(text) }).reporter('credit402')(wrapped(), 'getClient');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^credit402: getClient failed \[ECONNREFUSED\]: .*\nError: store down\n {4}at .*\ncaused by: Error: connect ECONNREFUSED/s);
  });
});

describe('logLevel', () => {
  it('is info by default, set by CREDIT402_LOG_LEVEL or the configuration, and checked', () => {
    expect(loadServerConfig().logLevel).toBeUndefined();
    expect(loadServerConfig({ env: { CREDIT402_LOG_LEVEL: 'debug' } }).logLevel).toBe('debug');
    expect(loadServerConfig({ overrides: { logLevel: 'info' } }).logLevel).toBe('info');
    expect(codeOf(() => loadServerConfig({ env: { CREDIT402_LOG_LEVEL: 'verbose' } }))).toBe('ERR_SERVER_CONFIG');
    expect(() => loadServerConfig({ env: { CREDIT402_LOG_LEVEL: 'verbose' } })).toThrow(/CREDIT402_LOG_LEVEL.*info or debug/);
  });
});

describe('the reference server during a store outage', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  /** Starts a server whose store fails every `acquireLock`, sends `count` first payments (each answered 503), and returns what it logged. */
  async function outage(count: number, overrides: Partial<ServerConfig> = {}): Promise<string[]> {
    const store = new ScriptedStore([{ method: 'acquireLock', script: 'reject' }]);
    const config = loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' }, stripeApi: emulator.url, ...overrides } });
    const server = await startReferenceServer(config, { store });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      for (let i = 0; i < count; i++) {
        const card = await createCardPaymentMethod(emulator.url);
        expect((await paidFetch(server.url, 'GET /api/weather', { paymentMethodId: card })).status).toBe(503);
      }
      return errors.mock.calls.map((call) => format(...call)).join('\n').split('\n');
    } finally {
      errors.mockRestore();
      await server.close();
    }
  }

  it('logs one line per failed request, with a code, and no stack (was: a stack trace besides the lines)', async () => {
    const lines = await outage(12);
    expect(lines).toHaveLength(12);
    for (const line of lines) expect(line).toMatch(/^credit402: acquireLock failed \[ERROR\]: Error: injected acquireLock failure$/);
  });

  it('adds the stacks at logLevel debug', async () => {
    const lines = await outage(2, { logLevel: 'debug' });
    expect(lines.filter((line) => line.startsWith('credit402: acquireLock failed'))).toHaveLength(2);
    expect(lines.filter((line) => /^\s+at /.test(line)).length).toBeGreaterThan(2);
  });

  it('logs one line for a webhook delivery the store fails (was: the whole error object, one line per property)', async () => {
    const secret = 'whsec_credit402serverlog';
    const store = new ScriptedStore([{ method: 'hasProcessedEvent', script: 'reject' }]);
    const config = loadServerConfig({ overrides: { port: 0, store: { kind: 'memory' }, stripeApi: emulator.url, stripeWebhookSecret: secret } });
    const server = await startReferenceServer(config, { store });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const body = JSON.stringify({ id: 'evt_serverlog', object: 'event', type: 'payment_intent.succeeded', created: Math.floor(Date.now() / 1000), data: { object: { id: 'pi_x', object: 'payment_intent' } } });
      const t = Math.floor(Date.now() / 1000);
      const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
      const response = await fetch(server.webhookUrl!, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body });
      expect(response.status).toBe(500);
      const lines = errors.mock.calls.map((call) => format(...call)).join('\n').split('\n');
      expect(lines).toEqual([expect.stringMatching(/^credit402 webhook: webhook payment_intent.succeeded failed \[ERROR\]: Error: injected hasProcessedEvent failure$/)]);
    } finally {
      errors.mockRestore();
      await server.close();
    }
  });
});
