// The wire level's reading of fuzz failures: served unpaid (CR-4.6), not a 402 (CR-8.11), a value no base64 reads served (CR-3.5).
import { describe, expect, it } from 'vitest';
import type { Answer } from '../exchange.ts';
import type { FuzzFailure } from './failure-classes.ts';
import { notBase64InAnyVariant, wireRequirementOf } from './wire-failures.ts';

const failure = (value: string, answer?: Partial<Answer>): FuzzFailure => ({
  index: 0,
  fuzzCase: { kind: 'broken card payment', value, allowed: 'malformed' },
  exchange: {
    request: { method: 'GET', target: '/api/weather' },
    path: '/api/weather',
    startedAt: '',
    durationMs: 1,
    ...(answer ? { answer: { status: 402, rawHeaders: [], headers: {}, text: '', json: undefined, ...answer } } : { error: 'socket hang up' }),
  },
  processorCalls: [],
});
const served = { status: 200, paymentResponse: { ok: true as const, value: { success: true } } };

describe('notBase64InAnyVariant', () => {
  it('is true for characters outside both alphabets and for a body of 4n+1', () => {
    expect(['e3 0=', 'e30*', 'e30=,e30=', 'e3\t0=', 'e30gA', 'e'].map(notBase64InAnyVariant)).toEqual([true, true, true, true, true, true]);
  });

  it('is false for what only the padding rule or the alphabet choice refuses', () => {
    expect(['e30', 'e30=', 'e30==', 'e30===', 'e3-_', 'e3+/'].map(notBase64InAnyVariant)).toEqual([false, false, false, false, false, false]);
  });
});

describe('wireRequirementOf', () => {
  it('charges a 2xx without a successful payment-response to CR-4.6', () => {
    expect(wireRequirementOf(failure('e30=', { status: 200 }))).toBe('CR-4.6');
  });

  it('charges an answer other than 402, or none, to CR-8.11', () => {
    expect(wireRequirementOf(failure('bnVsbA==', { status: 500 }))).toBe('CR-8.11');
    expect(wireRequirementOf(failure('bnVsbA=='))).toBe('CR-8.11');
  });

  it('charges a served payment to CR-3.5 only when no base64 variant reads its value', () => {
    expect(wireRequirementOf(failure('eyJ9 In0=', served))).toBe('CR-3.5');
    expect(wireRequirementOf(failure('eyJ9In0==', served))).toBeUndefined();
  });

  it('leaves a 402 of the wrong shape to the strict level', () => {
    expect(wireRequirementOf(failure('e30=', { status: 402 }))).toBeUndefined();
  });
});
