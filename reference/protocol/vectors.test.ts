// Runs every vector of schemas/vectors.json through the reference codec, identity, units, gate and the schemas.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { credit402Vectors as vectors } from '../../schemas/vectors.ts';
import { validatePaymentPayload, validatePaymentRequired, validatePaymentResponse } from '../../schemas/validators.ts';
import { createGate } from '../gate/gate.ts';
import type { GateDecision } from '../gate/decision.ts';
import { PaymentError, type Processor } from '../processor/processor.ts';
import { FlakyStore } from '../testing/flaky-store.ts';
import { decodeBase64Json, encodeBase64Json } from './base64-json.ts';
import { MESSAGES } from './constants.ts';
import { deriveClientId, isClientIdShape } from './identity.ts';
import { parsePaymentHeader } from './payment-payload.ts';
import { unitsToCents } from './units.ts';

const FINGERPRINT = 'Xt5EWLLDS7FJjR1c';
const named = <T extends { name: string }>(list: T[]): Array<[string, T]> => list.map((entry) => [entry.name, entry]);

function schemaFor(value: unknown) {
  if (typeof value === 'object' && value !== null && 'accepts' in value) return validatePaymentRequired;
  if (typeof value === 'object' && value !== null && 'success' in value) return validatePaymentResponse;
  return validatePaymentPayload;
}

describe('vectors and the spec', () => {
  it('carry every base64 fixture of Appendix A', () => {
    const spec = readFileSync(new URL('../../spec/protocol.md', import.meta.url), 'utf8');
    const appendix = spec.slice(spec.indexOf('## Appendix A'), spec.indexOf('## Appendix B'));
    const fixtures = [...appendix.matchAll(/(?:payment-(?:required|response): |\| `)(eyJ[A-Za-z0-9+/_=-]+)/g)].map((match) => match[1]);
    const known = new Set([...vectors.encode.map(({ base64 }) => base64), ...vectors.decode.map(({ input }) => input)]);
    expect(fixtures.length).toBeGreaterThanOrEqual(9);
    expect(fixtures.filter((fixture) => !known.has(fixture ?? ''))).toEqual([]);
  });
});

describe('encode vectors', () => {
  it.each(named(vectors.encode))('%s', (_name, { json, base64 }) => {
    const value: unknown = JSON.parse(json);
    expect(JSON.stringify(value)).toBe(json);
    expect(encodeBase64Json(value)).toBe(base64);
    expect(decodeBase64Json(base64)).toEqual({ ok: true, value });
    expect(schemaFor(value)(value)).toEqual({ ok: true });
  });
});

describe('decode vectors', () => {
  it.each(named(vectors.decode))('%s', (_name, { input, expected, json }) => {
    const result = parsePaymentHeader(input);
    if (expected.ok) {
      expect(result).toEqual({ ok: true, payload: expected.payload });
      expect(validatePaymentPayload(JSON.parse(json ?? 'null'))).toEqual({ ok: true });
      expect(validatePaymentPayload(expected.payload)).toEqual({ ok: true });
      return;
    }
    expect(result.ok).toBe(false);
    if (result.ok) return;
    if (expected.message !== null) expect(result.message).toBe(expected.message);
    if (expected.messageMustName === null) return;
    expect(result.message).not.toBe(MESSAGES.MALFORMED_HEADER);
    expect(result.message).toContain(expected.messageMustName);
    const schema = validatePaymentPayload(JSON.parse(json ?? ''));
    expect(schema.ok).toBe(false);
    const where = expected.messageMustName === 'payload' ? '(root)' : `/${expected.messageMustName}`;
    if (!schema.ok) expect(schema.errors.join('\n')).toContain(where);
  });

  it('has both outcomes and every rejection kind', () => {
    const kinds = new Set(vectors.decode.map(({ expected }) => (expected.ok ? 'ok' : (expected.messageMustName ?? 'malformed'))));
    expect([...kinds].sort()).toEqual(['clientId', 'malformed', 'ok', 'payload', 'paymentMethodId', 'stripe402Version', 'topUpAmount']);
  });
});

describe('clientId vectors', () => {
  it.each(named(vectors.clientId))('%s', (_name, { fingerprint, serverSecret, clientId }) => {
    expect(deriveClientId(fingerprint, serverSecret)).toBe(clientId);
    expect(isClientIdShape(clientId)).toBe(true);
  });
});

describe('units-to-minor vectors', () => {
  it.each(vectors.unitsToMinor.cases.map(({ units, minor }) => [units, minor]))('%d units → %d minor units', (units, minor) => {
    expect(unitsToCents(units)).toBe(minor);
  });

  it.each(vectors.unitsToMinor.outOfDomain)('%d is outside the domain', (units) => {
    expect(() => unitsToCents(units)).toThrow(RangeError);
  });
});

/** A processor whose behaviour per PaymentMethod id is what each error vector's trigger describes. */
const processor: Processor = {
  async getCardFingerprint(paymentMethodId) {
    if (paymentMethodId === 'pm_does_not_exist') throw new Error(`No such PaymentMethod: '${paymentMethodId}'`);
    return FINGERPRINT;
  },
  async findOrCreateCustomer() {
    return 'cus_example';
  },
  async charge({ paymentMethodId }) {
    if (paymentMethodId === 'pm_card_chargeDeclined') throw new PaymentError('card_declined', 'Your card was declined.');
    return { id: 'pi_3Example0001', status: paymentMethodId === 'pm_card_authenticationRequired' ? 'requires_action' : 'succeeded' };
  },
};

/** Store set-ups for the vectors whose trigger is a store failure, by vector name. */
const storeSetups: Record<string, (store: FlakyStore) => void> = {
  'store down before a charge': (store) => store.failNext('deductBalance'),
  'store down after a charge, credit not applied': (store) => store.failNext('creditTopUp'),
  'store down after the credit, price not deducted': (store) => {
    store.creditTopUp = async (credit) => {
      const result = await FlakyStore.prototype.creditTopUp.call(store, credit);
      store.failNext('deductBalance');
      return result;
    };
  },
};

async function answer(paymentHeader: string, setup?: (store: FlakyStore) => void): Promise<GateDecision> {
  const store = new FlakyStore();
  setup?.(store);
  const { stripePublishableKey, serverSecret, routes } = vectors.config;
  const gate = createGate({ stripePublishableKey, serverSecret, routes, store, processor, onError: () => {} });
  return gate.handle({ method: 'GET', url: '/api/weather', paymentHeader });
}

describe('error answers, as the reference gate produces them', () => {
  it.each(named(vectors.errorAnswers))('%s', async (name, vector) => {
    if (vector.trigger.store !== undefined) expect(storeSetups[name], `no store set-up for ${name}`).toBeDefined();
    const decision = await answer(vector.trigger.payment, storeSetups[name]);
    expect(decision).toMatchObject({ action: 'respond', status: vector.status, body: vector.body });
    if (decision.action !== 'respond') return;
    expect(decision.headers['payment-response']).toBeUndefined();
    expect(decision.headers['payment-required']).toBe(vector.paymentRequired);
    for (const [header, value] of Object.entries(vector.headers ?? {})) expect(decision.headers[header]).toBe(value);
    const code = vector.carriedIn === 'challenge' ? (vector.body.error as string) : (vector.body.errorCode as string);
    expect(code).toBe(vector.errorCode);
    expect(schemaFor(vector.body)(vector.body)).toEqual({ ok: true });
  });

  it.each(named(vectors.decode.filter(({ expected }) => !expected.ok)))('rejected header "%s" is an invalid_payment answer', async (_name, { input }) => {
    const decision = await answer(input);
    expect(decision).toMatchObject({ action: 'respond', status: 402, body: { success: false, errorCode: 'invalid_payment' } });
    if (decision.action === 'respond') expect(validatePaymentResponse(decision.body)).toEqual({ ok: true });
  });
});
