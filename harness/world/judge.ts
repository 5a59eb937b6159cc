// Judging one answer against the spec: challenges, payment errors, served answers, free requests (assertions throw).
import assert from 'node:assert/strict';
import { checkFor, RequirementFailure, resolveId, type CheckIds } from './check.ts';
import { readable } from './base64-json.ts';
import { singleHeader, type Answer, type Exchange } from './exchange.ts';
import { CLIENT_ID_SHAPE } from './expectations.ts';
import { CARD_ERROR_MESSAGE, MALFORMED_MESSAGE, PROCESSING_FAILED_MESSAGE } from './outcome-ids.ts';
import { expectChallengeSchema, expectSchemaValid } from './schema-check.ts';

/** A decoded PaymentResponse of a served request. */
export interface PaymentResponse {
  success: true;
  creditsRemaining: number;
  clientId: string;
  chargeId?: string;
}

/**
 * The two normative message texts (CR-8.10) and the requirements that fix them: `Malformed payment header` under the
 * rule that makes the scenario's value malformed (CR-3.5 at the wire level, CR-3.4, CR-13.36 or CR-13.10 above it);
 * `Payment processing failed` under the requirement of its cause in the scenario (wire CR-7.7 for a PaymentIntent that
 * did not succeed, CR-13.35, CR-13.37 or CR-13.24). Another text a scenario expects is a card error's (CR-7.20, CR-8.6).
 */
const EXACT_MESSAGES: Readonly<Record<string, CheckIds>> = { 'Malformed payment header': MALFORMED_MESSAGE, 'Payment processing failed': PROCESSING_FAILED_MESSAGE };
const ERROR_MEMBERS = ['clientId', 'creditsRemaining', 'error', 'errorCode', 'success'];
const SUCCESS_MEMBERS = new Set(['success', 'creditsRemaining', 'clientId', 'chargeId']);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The answer of an exchange; a request that got none fails CR-4.6 (each gated request ends in one outcome). */
export function answered(exchange: Exchange): Answer {
  if (exchange.answer) return exchange.answer;
  throw new RequirementFailure('CR-4.6', `${exchange.request.method} ${exchange.request.target} got no answer: ${exchange.error ?? 'unknown error'}`);
}

/**
 * The outcome the scenario expects did not come: fails `ids` (premises resolved against the running scenario) when
 * given, otherwise the requirement of the check or step it runs in (a plain assertion, which `checkFor` or the step names).
 */
function outcomeFailed(ids: CheckIds | undefined, message: string): never {
  if (ids === undefined) assert.fail(message);
  throw new RequirementFailure(resolveId(ids), message);
}

function label(exchange: Exchange): string {
  const answer = exchange.answer;
  const body = answer ? (answer.text.length > 400 ? `${answer.text.slice(0, 400)}…` : answer.text) : '';
  return `${exchange.request.method} ${exchange.request.target} → ${answer ? `${answer.status} ${body}` : exchange.error ?? 'no answer'}`;
}

function expectJsonMedia(answer: Answer, exchange: Exchange): void {
  const type = singleHeader(answer, 'content-type') ?? '';
  assert.match(type, /^application\/json\s*(;|$)/i, `the body's media type must be application/json, got "${type}": ${label(exchange)}`);
}

/**
 * The object a protocol header carries. Strict encoding (standard padded base64, CR-13.10) is judged on its own: a
 * value only a lenient reading decodes fails CR-13.10 and is read anyway, so the wire level judges its content.
 */
export function decodedHeader(answer: Answer, exchange: Exchange, name: 'payment-required' | 'payment-response'): Record<string, unknown> {
  const decoded = name === 'payment-required' ? answer.paymentRequired : answer.paymentResponse;
  // A missing header is the outcome's failure (a challenge without payment-required is no challenge): the caller's IDs.
  assert.ok(decoded, `the answer has no ${name} header: ${label(exchange)}`);
  const value = readable(decoded);
  if (!decoded.ok) {
    const reason = decoded.reason;
    checkFor(value ? 'CR-13.10' : 'CR-3.2', () => assert.fail(`${name} is not strict base64 JSON (standard alphabet, = padding, no whitespace): ${reason}`));
  }
  if (!value) throw new RequirementFailure('CR-3.2', `${name} does not decode to a JSON object`);
  return value;
}

/** The decoded `payment-required` object; fails when absent (the caller's IDs) or not base64 JSON (CR-3.2). */
export function decodedChallenge(answer: Answer, exchange: Exchange): Record<string, unknown> {
  return decodedHeader(answer, exchange, 'payment-required');
}

/** What an answer is, in a few words, for messages that say what was expected and what came instead. */
export function kindOf(exchange: Exchange): string {
  const answer = exchange.answer;
  if (!answer) return `no answer (${exchange.error ?? 'transport error'})`;
  const body = isObject(answer.json) ? answer.json : undefined;
  if (answer.status === 402 && answer.paymentRequired) {
    return 'error' in (readable(answer.paymentRequired) ?? {}) ? 'the insufficient-credits challenge' : 'the plain challenge';
  }
  if (body && body.success === false && typeof body.errorCode === 'string') return `the ${answer.status === 503 ? '503 ' : ''}payment error ${body.errorCode}`;
  if (answer.paymentResponse) return `a served answer (status ${answer.status})`;
  return `an answer with status ${answer.status}`;
}

/** Without description members: the wire level judges the rest of a challenge, CR-13.2 the descriptions. */
function withoutDescriptions(challenge: Record<string, unknown>): Record<string, unknown> {
  const { resource, accepts, ...rest } = challenge;
  const strip = (value: unknown): unknown => {
    if (!isObject(value)) return value;
    const { description: _description, ...others } = value;
    return others;
  };
  return { ...rest, resource: strip(resource), accepts: Array.isArray(accepts) ? accepts.map(strip) : accepts };
}

function descriptions(challenge: Record<string, unknown>): unknown[] {
  const resource = isObject(challenge.resource) ? challenge.resource.description : undefined;
  const accepts = Array.isArray(challenge.accepts) ? challenge.accepts.map((item: unknown) => (isObject(item) ? item.description : undefined)) : [];
  return [resource, ...accepts];
}

/** `actual` cut down to the members `expected` has (recursively): extra members are CR-5.6's business, not the wire's. */
function membersOf(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual)) return actual.map((item: unknown, i) => membersOf(item, expected[i]));
  if (!isObject(expected) || !isObject(actual)) return actual;
  return Object.fromEntries(Object.keys(expected).filter((name) => name in actual).map((name) => [name, membersOf(actual[name], expected[name])]));
}

/**
 * The challenge object must equal `expected`: its members of CR-5.2 and its payment requirement `accepts` of CR-5.3
 * (wire; for an insufficient-credits challenge, all of them CR-5.5's "the challenge of CR-5.2 plus error and
 * message"), no other members (CR-5.6, strict), and the descriptions (CR-13.2, strict).
 */
function expectChallengeObject(decoded: Record<string, unknown>, expected: Record<string, unknown>, what: string, insufficient = false): void {
  const wire = withoutDescriptions(expected);
  const actual = membersOf(withoutDescriptions(decoded), wire) as Record<string, unknown>;
  const { accepts: wantedAccepts, ...wantedObject } = wire;
  const { accepts: actualAccepts, ...actualObject } = isObject(actual) ? actual : {};
  checkFor(insufficient ? 'CR-5.5' : 'CR-5.2', () => assert.deepEqual(actualObject, wantedObject, what));
  checkFor(insufficient ? 'CR-5.5' : 'CR-5.3', () => assert.deepEqual(actualAccepts, wantedAccepts, `${what}: accepts`));
  checkFor('CR-5.6', () => assert.deepEqual(withoutDescriptions(decoded), wire, `${what}: no members other than those of CR-5.2–CR-5.5`));
  checkFor('CR-13.2', () =>
    assert.deepEqual(descriptions(decoded), descriptions(expected), 'resource.description and accepts[0].description: the route\'s description when configured, absent otherwise'),
  );
}

/**
 * The answer must be a challenge (CR-5.1) equal to `expected`, plus `error`/`message` when insufficient (CR-5.4, CR-5.5).
 * No challenge at all fails `outcome` (default: the caller's IDs), what the scenario is about, not the challenge's shape.
 */
export function expectChallenge(exchange: Exchange, expected: Record<string, unknown>, kind: 'plain' | 'insufficient', outcome?: CheckIds): void {
  const answer = answered(exchange);
  const wanted = kind === 'plain' ? 'the plain challenge' : 'the insufficient-credits challenge';
  if (answer.status !== 402 || !answer.paymentRequired) outcomeFailed(outcome, `expected ${wanted}, got ${kindOf(exchange)}: ${label(exchange)}`);
  expectChallengeSchema(exchange);
  let decoded: Record<string, unknown> = {};
  checkFor('CR-5.1', () => {
    decoded = decodedChallenge(answer, exchange);
  });
  checkFor('CR-5.1', () => {
    assert.equal(answer.headers['payment-response'], undefined, 'a challenge must not carry payment-response');
    assert.equal(answer.headers['retry-after'], undefined, 'a challenge must not carry Retry-After');
    if (exchange.request.method !== 'HEAD') {
      expectJsonMedia(answer, exchange);
      assert.deepEqual(answer.json, decoded, 'the payment-required header must decode to exactly the body');
    }
  });
  const { error, message, ...rest } = decoded;
  if (kind === 'plain') {
    checkFor('CR-5.4', () => {
      assert.equal(error, undefined, `expected the plain challenge, got error ${JSON.stringify(error)}`);
      assert.equal(message, undefined, 'a plain challenge has no message');
    });
    expectChallengeObject(decoded, expected, 'the plain challenge of CR-5.2–CR-5.4');
    return;
  }
  checkFor('CR-5.5', () => assert.equal(error, 'insufficient_credits', `expected the insufficient-credits challenge, got ${kindOf(exchange)}`));
  checkFor('CR-13.13', () => assert.ok(typeof message === 'string' && message.trim() !== '', 'an insufficient-credits challenge has a non-empty message'));
  expectChallengeObject(rest, expected, 'apart from error and message, the insufficient-credits challenge is the plain challenge', true);
}

/**
 * The answer must be a payment error (CR-8.1) with `code`, and with `message` when given; returns the message. Another
 * answer or code fails `outcome` (default: the caller's IDs; `paymentErrorIds(code)` names the requirements that give
 * the code); a wrong message fails the requirement that fixes it ({@link EXACT_MESSAGES}).
 */
export function expectPaymentError(exchange: Exchange, code: string, message?: string, outcome?: CheckIds): string {
  const answer = answered(exchange);
  const body = answer.json;
  const errorCode = isObject(body) ? body.errorCode : undefined;
  if (answer.status !== 402 || errorCode !== code) outcomeFailed(outcome, `expected the payment error ${code}, got ${kindOf(exchange)}: ${label(exchange)}`);
  checkFor('CR-8.1', () => {
    expectSchemaValid(exchange);
    expectJsonMedia(answer, exchange);
    assert.equal(answer.headers['payment-required'], undefined, 'a payment error must not carry payment-required');
    assert.equal(answer.headers['payment-response'], undefined, 'a payment error must not carry payment-response');
    assert.ok(isObject(body), `a payment error body is a JSON object: ${label(exchange)}`);
    assert.deepEqual(Object.keys(body).sort(), ERROR_MEMBERS, `a payment error has exactly the members ${ERROR_MEMBERS.join(', ')}`);
    assert.equal(body.success, false, 'success is false');
    assert.equal(body.creditsRemaining, 0, 'creditsRemaining is 0');
    assert.equal(body.clientId, '', 'clientId is the empty string');
    assert.ok(typeof body.error === 'string' && body.error !== '', 'error is a non-empty message');
  });
  const text = isObject(body) && typeof body.error === 'string' ? body.error : '';
  if (message !== undefined) checkFor(EXACT_MESSAGES[message] ?? CARD_ERROR_MESSAGE, () => assert.equal(text, message, 'the error message'));
  return text;
}

/** Whether the application handler of `routeKey` answered (the profile's handlers answer 200 `{ route }`). */
export function handlerRan(exchange: Exchange, routeKey: string): boolean {
  const answer = exchange.answer;
  if (!answer || answer.status < 200 || answer.status > 299) return false;
  if (exchange.request.method === 'HEAD') return true;
  return isObject(answer.json) && answer.json.route === routeKey;
}

/**
 * The request must have been served: the handler ran with a `payment-response` (else `outcome` fails, default: the
 * caller's ID, e.g. the premise of `SERVED` for "the request was served", CR-7.13 for a set-up payment; CR-4.6 is the
 * one outcome of a request the run judges gated), no `payment-required` (CR-4.6), and the `payment-response` is a
 * success PaymentResponse (strict base64 JSON CR-3.2; integer units CR-1.2; the clientId CR-7.3; its members those
 * of step 13 when it carries a chargeId, CR-7.13, otherwise those of a deduction, CR-6.2); returns it.
 */
export function expectServed(exchange: Exchange, routeKey: string, outcome?: CheckIds): PaymentResponse {
  const answer = answered(exchange);
  if (!handlerRan(exchange, routeKey)) outcomeFailed(outcome, `the handler of ${routeKey} should have run: ${label(exchange)}`);
  if (!answer.paymentResponse) outcomeFailed(outcome, `a served gated request carries payment-response: ${label(exchange)}`);
  checkFor('CR-4.6', () => assert.equal(answer.headers['payment-required'], undefined, 'a served answer must not carry payment-required'));
  let value: Record<string, unknown> = {};
  checkFor('CR-3.2', () => {
    value = decodedHeader(answer, exchange, 'payment-response');
  });
  const path = 'chargeId' in value ? 'CR-7.13' : 'CR-6.2';
  checkFor(path, () => expectSchemaValid(exchange));
  checkFor(path, () => {
    const extra = Object.keys(value).filter((name) => !SUCCESS_MEMBERS.has(name));
    assert.deepEqual(extra, [], 'a success PaymentResponse has only success, creditsRemaining, clientId and chargeId');
  });
  checkFor(path, () => assert.equal(value.success, true, 'success is true'));
  checkFor('CR-1.2', () => assert.ok(Number.isSafeInteger(value.creditsRemaining) && (value.creditsRemaining as number) >= 0, `creditsRemaining is a non-negative safe integer: ${String(value.creditsRemaining)}`));
  checkFor('CR-7.3', () => assert.ok(typeof value.clientId === 'string' && CLIENT_ID_SHAPE.test(value.clientId), `clientId is 64 lowercase hex: ${String(value.clientId)}`));
  if ('chargeId' in value) checkFor('CR-7.13', () => assert.ok(typeof value.chargeId === 'string' && value.chargeId !== '', 'chargeId is a non-empty string'));
  return value as unknown as PaymentResponse;
}

/**
 * What a set-up reads of an answer it needs served (a payment or a spend that funds a balance): the handler ran with
 * a `payment-response` whose balance and clientId it can read (else `outcome` fails). The answer's shape is not the
 * set-up's to judge: a set-up that failed on it would leave the scenario's own requirements not reached, and the
 * scenario's own checks judge it. A balance sent as a numeric string is read as its number.
 */
export function servedForSetUp(exchange: Exchange, routeKey: string, outcome: CheckIds): PaymentResponse {
  const answer = answered(exchange);
  if (!handlerRan(exchange, routeKey)) outcomeFailed(outcome, `the handler of ${routeKey} should have run: ${label(exchange)}`);
  const value = readable(answer.paymentResponse);
  if (!value) outcomeFailed(outcome, `a served gated request carries a readable payment-response: ${label(exchange)}`);
  const creditsRemaining = typeof value.creditsRemaining === 'string' && value.creditsRemaining.trim() !== '' ? Number(value.creditsRemaining) : value.creditsRemaining;
  if (typeof creditsRemaining !== 'number' || !Number.isFinite(creditsRemaining) || typeof value.clientId !== 'string') {
    outcomeFailed(outcome, `the set-up cannot read the balance and clientId of the payment-response: ${label(exchange)}`);
  }
  return { success: true, creditsRemaining, clientId: value.clientId, ...(typeof value.chargeId === 'string' ? { chargeId: value.chargeId } : {}) };
}

/**
 * The request must not have been gated: not answered 402 (else `outcome` fails, default: the caller's IDs), and no
 * protocol header added (CR-4.4).
 */
export function expectNotGated(exchange: Exchange, outcome?: CheckIds): void {
  const answer = answered(exchange);
  if (answer.status === 402) outcomeFailed(outcome, `a free request is not answered 402: ${label(exchange)}`);
  checkFor('CR-4.4', () => {
    assert.equal(answer.headers['payment-required'], undefined, 'a free request gets no payment-required');
    assert.equal(answer.headers['payment-response'], undefined, 'a free request gets no payment-response');
  });
}

/** Paths to JSON null members inside `value` (CR-3.3). */
export function nullMembers(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => nullMembers(item, `${path}[${i}]`));
  if (isObject(value)) return Object.entries(value).flatMap(([name, item]) => nullMembers(item, `${path}.${name}`));
  return [];
}

export { label as describeExchange };
