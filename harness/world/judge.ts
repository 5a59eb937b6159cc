// Judging one answer against the spec: challenges, payment errors, served answers, free requests (assertions throw).
import assert from 'node:assert/strict';
import { answerOf, singleHeader, type Answer, type Exchange } from './exchange.ts';
import { CLIENT_ID_SHAPE } from './expectations.ts';
import { expectSchemaValid } from './schema-check.ts';

/** A decoded PaymentResponse of a served request. */
export interface PaymentResponse {
  success: true;
  creditsRemaining: number;
  clientId: string;
  chargeId?: string;
}

const ERROR_MEMBERS = ['clientId', 'creditsRemaining', 'error', 'errorCode', 'success'];
const SUCCESS_MEMBERS = new Set(['success', 'creditsRemaining', 'clientId', 'chargeId']);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function label(exchange: Exchange): string {
  const answer = exchange.answer;
  const body = answer ? (answer.text.length > 400 ? `${answer.text.slice(0, 400)}…` : answer.text) : '';
  return `${exchange.request.method} ${exchange.request.target} → ${answer ? `${answer.status} ${body}` : exchange.error ?? 'no answer'}`;
}

function expectJsonMedia(answer: Answer, exchange: Exchange): void {
  const type = singleHeader(answer, 'content-type') ?? '';
  assert.match(type, /^application\/json\s*(;|$)/i, `the body's media type must be application/json, got "${type}": ${label(exchange)}`);
}

/** The decoded `payment-required` object; fails when absent or not strictly encoded (CR-3.2). */
export function decodedChallenge(answer: Answer, exchange: Exchange): Record<string, unknown> {
  assert.ok(answer.paymentRequired, `the answer has no payment-required header: ${label(exchange)}`);
  assert.ok(answer.paymentRequired.ok, `payment-required is not strict base64 JSON: ${answer.paymentRequired.ok ? '' : answer.paymentRequired.reason}`);
  return answer.paymentRequired.value as Record<string, unknown>;
}

/** The answer must be a challenge (CR-5.1) equal to `expected`, plus `error`/`message` when insufficient (CR-5.4, CR-5.5). */
export function expectChallenge(exchange: Exchange, expected: Record<string, unknown>, kind: 'plain' | 'insufficient'): void {
  const answer = answerOf(exchange);
  assert.equal(answer.status, 402, `a challenge has status 402: ${label(exchange)}`);
  expectSchemaValid(exchange);
  const decoded = decodedChallenge(answer, exchange);
  assert.equal(answer.headers['payment-response'], undefined, 'a challenge must not carry payment-response');
  assert.equal(answer.headers['retry-after'], undefined, 'a challenge must not carry Retry-After');
  if (exchange.request.method !== 'HEAD') {
    expectJsonMedia(answer, exchange);
    assert.deepEqual(answer.json, decoded, 'the payment-required header must decode to exactly the body');
  }
  const { error, message, ...rest } = decoded;
  if (kind === 'plain') {
    assert.deepEqual(decoded, expected, 'the plain challenge (no error, no message) of CR-5.2–CR-5.4');
    return;
  }
  assert.equal(error, 'insufficient_credits', 'an insufficient-credits challenge has error "insufficient_credits"');
  assert.ok(typeof message === 'string' && message.trim() !== '', 'an insufficient-credits challenge has a non-empty message');
  assert.deepEqual(rest, expected, 'apart from error and message, the insufficient-credits challenge is the plain challenge (CR-5.5, CR-5.7)');
}

/** The answer must be a payment error (CR-8.1) with `code`, and with `message` when given; returns the message. */
export function expectPaymentError(exchange: Exchange, code: string, message?: string): string {
  const answer = answerOf(exchange);
  assert.equal(answer.status, 402, `a payment error has status 402: ${label(exchange)}`);
  expectSchemaValid(exchange);
  expectJsonMedia(answer, exchange);
  assert.equal(answer.headers['payment-required'], undefined, 'a payment error must not carry payment-required');
  assert.equal(answer.headers['payment-response'], undefined, 'a payment error must not carry payment-response');
  const body = answer.json;
  assert.ok(isObject(body), `a payment error body is a JSON object: ${label(exchange)}`);
  assert.deepEqual(Object.keys(body).sort(), ERROR_MEMBERS, `a payment error has exactly the members ${ERROR_MEMBERS.join(', ')}`);
  assert.equal(body.success, false, 'success is false');
  assert.equal(body.creditsRemaining, 0, 'creditsRemaining is 0');
  assert.equal(body.clientId, '', 'clientId is the empty string');
  assert.equal(body.errorCode, code, `errorCode: ${label(exchange)}`);
  assert.ok(typeof body.error === 'string' && body.error !== '', 'error is a non-empty message');
  if (message !== undefined) assert.equal(body.error, message, 'the error message');
  return body.error;
}

/** Whether the application handler of `routeKey` answered (the profile's handlers answer 200 `{ route }`). */
export function handlerRan(exchange: Exchange, routeKey: string): boolean {
  const answer = exchange.answer;
  if (!answer || answer.status < 200 || answer.status > 299) return false;
  if (exchange.request.method === 'HEAD') return true;
  return isObject(answer.json) && answer.json.route === routeKey;
}

/** The request must have been served: the handler ran with a `payment-response` (CR-4.6); returns it. */
export function expectServed(exchange: Exchange, routeKey: string): PaymentResponse {
  const answer = answerOf(exchange);
  assert.ok(handlerRan(exchange, routeKey), `the handler of ${routeKey} should have run: ${label(exchange)}`);
  expectSchemaValid(exchange);
  assert.equal(answer.headers['payment-required'], undefined, 'a served answer must not carry payment-required');
  assert.ok(answer.paymentResponse, `a served answer carries payment-response: ${label(exchange)}`);
  assert.ok(answer.paymentResponse.ok, `payment-response is not strict base64 JSON: ${answer.paymentResponse.ok ? '' : answer.paymentResponse.reason}`);
  const value = answer.paymentResponse.value as Record<string, unknown>;
  const extra = Object.keys(value).filter((name) => !SUCCESS_MEMBERS.has(name));
  assert.deepEqual(extra, [], 'a success PaymentResponse has only success, creditsRemaining, clientId and chargeId (CR-6.2, CR-7.13, CR-12.3)');
  assert.equal(value.success, true, 'success is true');
  assert.ok(Number.isSafeInteger(value.creditsRemaining) && (value.creditsRemaining as number) >= 0, 'creditsRemaining is a non-negative safe integer (CR-1.2)');
  assert.ok(typeof value.clientId === 'string' && CLIENT_ID_SHAPE.test(value.clientId), `clientId is 64 lowercase hex: ${String(value.clientId)}`);
  if ('chargeId' in value) assert.ok(typeof value.chargeId === 'string' && value.chargeId !== '', 'chargeId is a non-empty string');
  return value as unknown as PaymentResponse;
}

/** The request must not have been gated: no 402, no protocol header (CR-4.4). */
export function expectNotGated(exchange: Exchange): void {
  const answer = answerOf(exchange);
  assert.notEqual(answer.status, 402, `a free request is not answered 402: ${label(exchange)}`);
  assert.equal(answer.headers['payment-required'], undefined, 'a free request gets no payment-required');
  assert.equal(answer.headers['payment-response'], undefined, 'a free request gets no payment-response');
}

/** Paths to JSON null members inside `value` (CR-3.3). */
export function nullMembers(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => nullMembers(item, `${path}[${i}]`));
  if (isObject(value)) return Object.entries(value).flatMap(([name, item]) => nullMembers(item, `${path}.${name}`));
  return [];
}

export { label as describeExchange };
