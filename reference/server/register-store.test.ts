// A store kind a program registers (registerStoreDescriptor): configured by CREDIT402_STORE, checked, opened and served by the reference server, and listed by `credit402 serve --help`.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from 'credit402-stripe-emulator';
import { createPaymentMethod, uniqueCardNumber } from 'credit402-stripe-emulator/test-cards';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import type { Deduction, Store } from '../stores/store.ts';
import { codeOf } from 'credit402-tooling/testing/error-code';
import { paidFetch } from 'credit402-tooling/testing/paid-fetch';
import { serveCommand } from '../cli/serve-command.ts';
import { Credit402ConfigError } from '../config/config-error.ts';
import { loadServerConfig, registerStoreDescriptor, startReferenceServer, type RunningServer, type StoreDescriptor } from './index.ts';

/** The toy store's configuration: a memory store that counts its deductions under a `label`. */
interface ToyStoreConfig {
  kind: 'toy';
  label: string;
}

const opened: Array<{ label: string; deductions: number }> = [];

/** A memory store counting the deductions it makes (not the calls that find too little). */
class ToyStore extends MemoryStore {
  constructor(private readonly counter: { deductions: number }) {
    super();
  }

  override async deductBalance(deduction: Deduction): ReturnType<Store['deductBalance']> {
    const result = await super.deductBalance(deduction);
    if (result.status === 'deducted') this.counter.deductions += 1;
    return result;
  }
}

/** The whole of what adding the toy store to the server takes: this descriptor and one registration. */
const toyStoreDescriptor: StoreDescriptor<ToyStoreConfig> = {
  kind: 'toy',
  usage: 'toy (a counting memory store; TOY_LABEL names it)',
  fromEnv: (env) => ({ kind: 'toy', label: env.TOY_LABEL ?? 'toy' }),
  check(store) {
    if (typeof store.label !== 'string' || store.label === '') throw new Credit402ConfigError('ERR_SERVER_CONFIG', `store.label (TOY_LABEL) must be a non-empty string, got ${String(store.label)}`);
  },
  async open(config) {
    const counter = { label: config.label, deductions: 0 };
    opened.push(counter);
    return new ToyStore(counter);
  },
};

registerStoreDescriptor(toyStoreDescriptor);

const KEYS = { publishable: 'pk_test_credit402reference', secret: 'sk_test_credit402reference' };

describe('a registered store kind', () => {
  let emulator: RunningEmulator;
  let server: RunningServer;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    const config = loadServerConfig({ env: { CREDIT402_STORE: 'toy', TOY_LABEL: 'counted' }, overrides: { port: 0, stripeApi: emulator.url, routes: { 'GET /api/weather': { amount: 500 } } } });
    server = await startReferenceServer(config);
  });
  afterAll(async () => {
    await server?.close();
    await emulator?.close();
  });

  it('is configured from the environment and opened by the server, which deducts through it', async () => {
    expect((await paidFetch(server.url, 'GET /api/weather')).status).toBe(402);
    const card = await createPaymentMethod(emulator.url, KEYS, uniqueCardNumber());
    const paid = await paidFetch(server.url, 'GET /api/weather', { paymentMethodId: card.paymentMethodId });
    expect(paid.status).toBe(200);
    expect(opened.at(-1)).toEqual({ label: 'counted', deductions: 1 });
  });

  it("is checked by its descriptor: a bad field is refused at construction with the descriptor's code", () => {
    expect(codeOf(() => loadServerConfig({ env: { CREDIT402_STORE: 'toy', TOY_LABEL: '' } }))).toBe('ERR_SERVER_CONFIG');
  });

  it('is listed by `credit402 serve --help` and named in the refusal of an unknown kind', async () => {
    const printed = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      expect(await serveCommand(['--help'])).toBe(0);
      expect(printed.mock.calls.flat().join('\n')).toContain('toy (a counting memory store; TOY_LABEL names it)');
    } finally {
      printed.mockRestore();
    }
    expect(() => loadServerConfig({ env: { CREDIT402_STORE: 'nope' } })).toThrow(/memory, sqlite, redis, postgres, toy, got nope/);
  });

  it('cannot take a kind already known, nor a kind of another shape', () => {
    expect(codeOf(() => registerStoreDescriptor(toyStoreDescriptor))).toBe('ERR_STORE');
    expect(codeOf(() => registerStoreDescriptor({ ...toyStoreDescriptor, kind: 'Redis Two' as 'toy' }))).toBe('ERR_STORE');
  });
});
