// Tests of the failure log: one line per failure and a rate-limited stack trace, also as the gate's default onError.
import { format } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { encodeBase64Json } from '../protocol/base64-json.ts';
import type { Processor } from '../processor/processor.ts';
import { MemoryStore } from '../stores/memory/memory-store.ts';
import { createErrorLog } from './error-log.ts';
import { createGate } from './gate.ts';

const lines = (texts: string[]): number => texts.reduce((sum, text) => sum + text.split('\n').length, 0);

describe('createErrorLog', () => {
  it('writes one line per failure, and a stack trace per kind of failure at most once per interval', () => {
    const written: string[] = [];
    let now = 0;
    const log = createErrorLog({ write: (text) => written.push(text), stackIntervalMs: 60_000, now: () => now });
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379\n  (second line)'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 100; i++) log(outage, 'deductBalance');
    expect(written).toHaveLength(100);
    expect(written[0]).toMatch(/^credit402: deductBalance failed: Error \[ECONNREFUSED\]: connect ECONNREFUSED 127\.0\.0\.1:6379 \(second line\)\n/);
    expect(written[0]).toContain('error-log.test.ts'); // the stack
    expect(written.slice(1).every((text) => !text.includes('\n'))).toBe(true);
    log(outage, 'creditTopUp'); // another kind: its own trace
    expect(written[100]).toContain('\n');
    now = 60_000;
    log(outage, 'deductBalance');
    expect(written[101]).toContain('\n');
    expect(written[101]).toContain('(99 more of this kind logged without a trace since the last one)');
  });

  it('summarizes causes and values that are not errors on the same line', () => {
    const written: string[] = [];
    const log = createErrorLog({ write: (text) => written.push(text), now: () => 0 });
    log(new Error('credit failed', { cause: new TypeError('socket closed') }), 'creditTopUp');
    expect(written[0]?.split('\n')[0]).toBe('credit402: creditTopUp failed: Error: credit failed (cause: TypeError: socket closed)');
    expect(written[0]).toContain('caused by: TypeError: socket closed');
    log('plain string\nwith a newline', 'releaseLock');
    expect(written[1]?.split('\n')[0]).toBe('credit402: releaseLock failed: plain string with a newline');
    log({ message: 'x'.repeat(1000) }, 'getClient');
    expect(written[2]!.split('\n')[0]!.length).toBeLessThan(400);
  });
});

describe('the gate during a store outage, with the default onError', () => {
  it('logs about one line per failed request, not a stack trace each (2,400 answers)', async () => {
    const store = new MemoryStore();
    store.deductBalance = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    };
    const processor: Processor = {
      getCardFingerprint: async () => 'fp',
      findOrCreateCustomer: async () => 'cus',
      charge: async () => ({ id: 'pi', succeeded: true as const }),
    };
    const gate = createGate({
      stripePublishableKey: 'pk_test_abc',
      serverSecret: 's'.repeat(32),
      store,
      processor,
      routes: { 'GET /api/weather': { amount: 500 } },
    });
    const written: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void written.push(format(...args)));
    const header = encodeBase64Json({ clientId: 'a'.repeat(64) });
    try {
      for (let i = 0; i < 2_400; i++) {
        const decision = await gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: header });
        expect(decision).toMatchObject({ action: 'respond', status: 503 });
      }
    } finally {
      spy.mockRestore();
    }
    expect(written).toHaveLength(2_400);
    expect(lines(written)).toBeLessThan(2_400 + 30);
    expect(written.join('\n')).not.toContain('a'.repeat(64));
  });
});
