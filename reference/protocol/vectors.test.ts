// Runs every vector of schemas/vectors.json through the reference codec, identity, units, gate and the schemas.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { credit402Vectors as vectors } from '../../schemas/vectors.ts';
import { validatePaymentPayload, validatePaymentRequired, validatePaymentResponse } from '../../schemas/validators.ts';
import { createGate } from '../gate/gate.ts';
import { resolveRoutes } from '../gate/routes.ts';
import type { GateDecision } from '../gate/decision.ts';
import { PaymentError, type Processor } from '../processor/processor.ts';
import { FlakyStore } from 'credit402-tooling/testing/flaky-store';
import { decodeBase64Json, encodeBase64Json } from './base64-json.ts';
import { MESSAGES } from './constants.ts';
import { deriveClientId, isClientIdShape } from './identity.ts';
import { parsePaymentHeader } from './payment-payload.ts';
import { unitsToCents } from './units.ts';

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
    expect([...kinds].sort()).toEqual(['clientId', 'malformed', 'ok', 'payload', 'paymentMethodId', 'requestId', 'stripe402Version', 'topUpAmount']);
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

type Trigger = (typeof vectors.errorAnswers)[number]['trigger'];
type Answer = Extract<Trigger, { kind: 'processor' }>['processor']['answer'];

/** The error an SDK-backed processor raises for an answer (or for none): a Stripe connection error has no answer. */
function processorFailure(answer: Answer): Error {
  if (answer.kind === 'card_error') return new PaymentError('card_declined', answer.message);
  if (answer.kind === 'error') return new PaymentError('payment_failed', answer.message);
  return Object.assign(new PaymentError('payment_failed', 'An error occurred with our connection to Stripe.'), { cause: { type: 'StripeConnectionError' } });
}

/** A processor that answers normally, except the one request a `processor` trigger names. */
function processorFor(trigger: Trigger): Processor {
  const fault = trigger.kind === 'processor' ? trigger.processor : undefined;
  const failsOn = (request: string): Answer | undefined => (fault?.request === request ? fault.answer : undefined);
  return {
    async getCardFingerprint(paymentMethodId) {
      const answer = failsOn(`GET /v1/payment_methods/${paymentMethodId}`);
      if (answer) throw processorFailure(answer);
      return vectors.config.cardFingerprint;
    },
    async findOrCreateCustomer() {
      const answer = failsOn('GET /v1/customers/search') ?? failsOn('POST /v1/customers');
      if (answer) throw processorFailure(answer);
      return 'cus_example';
    },
    async charge() {
      const answer = failsOn('POST /v1/payment_intents');
      const id = vectors.config.paymentIntentId;
      if (answer?.kind === 'payment_intent') return answer.status === 'succeeded' ? { id, succeeded: true } : { id, succeeded: false, reason: answer.status };
      if (answer) throw processorFailure(answer);
      return { id, succeeded: true };
    },
  };
}

/** Makes the store fail at the step a `store` trigger names. */
function failStore(store: FlakyStore, failsAt: string): void {
  if (failsAt === 'CR-6.2' || failsAt === 'CR-7.4') store.failNext('deductBalance');
  else if (failsAt === 'CR-7.24') store.failNext('creditTopUp');
  else if (failsAt === 'CR-7.11') {
    store.creditTopUp = async (credit) => {
      const result = await FlakyStore.prototype.creditTopUp.call(store, credit);
      store.failNext('deductBalance');
      return result;
    };
  } else throw new Error(`no store set-up for a failure at ${failsAt}`);
}

/** The reference gate's answer on the `config` route to a trigger, its processor, store and lease set up as it says. */
async function answerTo(trigger: Trigger): Promise<GateDecision> {
  const store = new FlakyStore();
  const { stripePublishableKey, serverSecret, routes } = vectors.config;
  if (trigger.kind === 'store') failStore(store, trigger.store.failsAt);
  if (trigger.kind === 'balance' && trigger.balance !== null) {
    const { clientId } = JSON.parse(trigger.json) as { clientId: string };
    await store.addBalance(clientId, 'usd', trigger.balance);
  }
  if (trigger.kind === 'lease') {
    const clientId = deriveClientId(vectors.config.cardFingerprint, serverSecret);
    expect(await store.acquireLock?.(`payment:${clientId}`, 60_000)).toEqual(expect.any(String));
  }
  const gate = createGate({ stripePublishableKey, serverSecret, routes, store, processor: processorFor(trigger), onError: () => {}, lockWaitMs: 0 });
  return gate.handle({ method: 'GET', url: '/api/weather', paymentHeader: trigger.payment });
}

const answer = (paymentHeader: string): Promise<GateDecision> => answerTo({ kind: 'header', payment: paymentHeader });

describe('error answers, as the reference gate produces them', () => {
  it.each(named(vectors.errorAnswers))('%s', async (_name, vector) => {
    const decision = await answerTo(vector.trigger);
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

describe('routing vectors (CR-4.2, CR-4.8, CR-5.2, CR-13.2, CR-13.25)', () => {
  const { routes, cases } = vectors.routing;
  const gate = createGate({ ...vectors.config, routes, store: new FlakyStore(), processor: processorFor({ kind: 'header', payment: '' }), onError: () => {} });
  it.each(named(cases))('%s', async (_name, { method, target, expected }) => {
    const decision = await gate.handle({ method, url: target, paymentHeader: undefined });
    if (!expected.gated) return expect(decision).toEqual({ action: 'pass' });
    expect(decision).toMatchObject({ action: 'respond', status: 402 });
    const body = (decision as { body: { resource: { url: string }; accepts: Array<{ amount: number }> } }).body;
    expect(body.resource.url).toBe(expected.resourceUrl);
    expect(body.accepts[0]?.amount).toBe(routes[expected.routeKey]?.amount);
    expect(expected.resourceUrl).toBe(expected.routeKey.slice(expected.routeKey.indexOf(' ') + 1));
  });
});

describe('serverSecret vectors (CR-2.8, CR-13.34)', () => {
  it.each(named(vectors.serverSecret))('%s', (_name, { serverSecret, utf8Bytes, valid }) => {
    expect(Buffer.byteLength(serverSecret, 'utf8')).toBe(utf8Bytes);
    const build = () => createGate({ ...vectors.config, serverSecret, store: new FlakyStore(), processor: processorFor({ kind: 'header', payment: '' }) });
    if (valid) expect(build).not.toThrow();
    else expect(build).toThrow(expect.objectContaining({ code: 'ERR_SERVER_SECRET' }));
  });
});

describe('routeConfig vectors (CR-2.12, CR-2.14, CR-2.15, CR-2.20, CR-13.33)', () => {
  it.each(named(vectors.routeConfig))('%s', (_name, { json, expected }) => {
    const build = () => resolveRoutes(JSON.parse(json));
    if (!expected.ok) return expect(build).toThrow(expect.objectContaining({ code: expected.code }));
    const resolved = Object.fromEntries([...build()].map(([key, { amount, currency, minTopUp, maxTopUp, description }]) => [
      key, { amount, currency, minTopUp, maxTopUp, ...(description === undefined ? {} : { description }) },
    ]));
    expect(resolved).toEqual(expected.routes);
  });
});
