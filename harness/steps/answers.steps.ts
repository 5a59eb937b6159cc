// Then steps about the target's answer: status, challenge, payment error, served or free, header encoding.
import assert from 'node:assert/strict';
import { readable } from '../world/base64-json.ts';
import { checkFor, checksFor, firstOf } from '../world/check.ts';
import {
  answered,
  decodedChallenge,
  decodedHeader,
  expectChallenge,
  expectNotGated,
  expectPaymentError,
  handlerRan,
  nullMembers,
} from '../world/judge.ts';
import { INSUFFICIENT_CHALLENGE, NOT_GATED, PAYMENT_ERROR, paymentErrorIds, PLAIN_CHALLENGE } from '../world/outcome-ids.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then } from './define.ts';

const challengeOf = (world: ConformanceWorld): Record<string, unknown> => decodedChallenge(answered(world.last), world.last);
const acceptsOf = (world: ConformanceWorld): Record<string, unknown> => {
  const accepts = challengeOf(world).accepts;
  checkFor('CR-5.2', () => assert.ok(Array.isArray(accepts) && accepts.length === 1, 'accepts has exactly one element'));
  return (Array.isArray(accepts) ? accepts[0] : undefined) as Record<string, unknown>;
};
const bodyOf = (world: ConformanceWorld): Record<string, unknown> => {
  const answer = answered(world.last);
  assert.ok(typeof answer.json === 'object' && answer.json !== null, `the body is a JSON object: ${answer.text}`);
  return answer.json as Record<string, unknown>;
};

/** The outcome a status stands for: a challenge or payment error (402), a free or served answer, 503, an ambiguous target. */
const STATUS = firstOf(['CR-4.4', 'CR-4.5', 'CR-5.1', 'CR-8.1', 'CR-4.6', 'CR-4.8', 'CR-4.10', 'CR-8.2'], 'CR-4.6');

Then('the response status is {int}', STATUS, function (this: ConformanceWorld, status: number) {
  const answer = answered(this.last);
  assert.equal(answer.status, status, `status of ${this.last.request.method} ${this.last.request.target}: ${answer.text}`);
});

Then('the response is the challenge for {string}', PLAIN_CHALLENGE, function (this: ConformanceWorld, key: string) {
  expectChallenge(this.last, this.expect.challenge(key, this.last.path), 'plain');
});

Then('the response is the insufficient-credits challenge for {string}', INSUFFICIENT_CHALLENGE, function (this: ConformanceWorld, key: string) {
  expectChallenge(this.last, this.expect.challenge(key, this.last.path), 'insufficient');
});

Then('every answer is the challenge for {string}', PLAIN_CHALLENGE, function (this: ConformanceWorld, key: string) {
  for (const exchange of this.batch) expectChallenge(exchange, this.expect.challenge(key, exchange.path), 'plain');
});

Then('every answer is the insufficient-credits challenge for {string}', INSUFFICIENT_CHALLENGE, function (this: ConformanceWorld, key: string) {
  for (const exchange of this.batch) expectChallenge(exchange, this.expect.challenge(key, exchange.path), 'insufficient');
});

Then('the payment-required header decodes to exactly the body', 'CR-5.1', function (this: ConformanceWorld) {
  assert.deepEqual(answered(this.last).json, challengeOf(this), 'payment-required and the body carry the same JSON value');
});

Then(
  'the challenge asks for {int} unit(s) in {string} with a minimum top-up of {int} units',
  // The route's configured values, or their defaults (CR-2.20: minTopUp CR-9.1, currency CR-9.2).
  firstOf(['CR-5.3', 'CR-2.2', 'CR-2.20', 'CR-9.1', 'CR-9.2'], 'CR-5.3'),
  function (this: ConformanceWorld, amount: number, currency: string, minTopUp: number) {
    const accepts = acceptsOf(this);
    assert.equal(accepts.scheme, 'stripe', 'scheme');
    assert.equal(accepts.amount, amount, 'amount');
    assert.equal(accepts.currency, currency, 'currency');
    assert.equal(accepts.minTopUp, minTopUp, 'minTopUp');
  },
);

Then("the challenge's publishable key is the profile's", 'CR-5.3', function (this: ConformanceWorld) {
  assert.equal(acceptsOf(this).publishableKey, this.expect.publishableKey, 'accepts[0].publishableKey');
});

Then(
  "the challenge's resource url is {string}",
  // The request path of the matched route (CR-5.2), decoded (CR-13.25), of a pattern route (CR-4.14).
  firstOf(['CR-5.2', 'CR-4.2', 'CR-4.3', 'CR-4.14', 'CR-13.2', 'CR-13.25', 'CR-13.42'], 'CR-5.2'),
  function (this: ConformanceWorld, url: string) {
    assert.equal((challengeOf(this).resource as Record<string, unknown> | undefined)?.url, url, 'resource.url');
  },
);

Then("the challenge's resource description is {string}", 'CR-13.2', function (this: ConformanceWorld, description: string) {
  assert.equal((challengeOf(this).resource as Record<string, unknown> | undefined)?.description, description, 'resource.description');
  assert.equal(acceptsOf(this).description, description, 'accepts[0].description');
});

Then('the challenge has no description', 'CR-5.2', function (this: ConformanceWorld) {
  checksFor([
    ['CR-5.2', () => assert.ok(!('description' in ((challengeOf(this).resource as object | undefined) ?? {})), 'resource has no description member')],
    ['CR-5.3', () => assert.ok(!('description' in acceptsOf(this)), 'accepts[0] has no description member')],
  ]);
});

Then('the challenge carries stripe402Version {int}', 'CR-12.1', function (this: ConformanceWorld, version: number) {
  assert.equal(challengeOf(this).stripe402Version, version, 'in the header');
  if (this.last.request.method !== 'HEAD') assert.equal(bodyOf(this).stripe402Version, version, 'in the body');
});

Then('the answer is the payment error {string}', PAYMENT_ERROR, function (this: ConformanceWorld, code: string) {
  expectPaymentError(this.last, code, undefined, paymentErrorIds(code));
});

Then('the answer is the payment error {string} with message {string}', PAYMENT_ERROR, function (this: ConformanceWorld, code: string, message: string) {
  expectPaymentError(this.last, code, message, paymentErrorIds(code));
});

Then(
  'the error message contains {string}',
  // The member an invalid_payment names (CR-3.8): requestId (CR-6.9), topUpAmount above maxTopUp (CR-9.4, CR-13.15).
  firstOf(['CR-3.8', 'CR-6.9', 'CR-7.27', 'CR-9.4', 'CR-13.15', 'CR-13.41'], 'CR-3.8'),
  function (this: ConformanceWorld, text: string) {
    const message = String(bodyOf(this).error);
    assert.ok(message.includes(text), `the error message "${message}" should contain "${text}"`);
  },
);

Then('the error message names the amounts {int} and {int}', 'CR-8.5', function (this: ConformanceWorld, first: number, second: number) {
  const message = String(bodyOf(this).error);
  for (const amount of [first, second]) {
    assert.match(message, new RegExp(`(?<![0-9])${amount}(?![0-9])`), `the error message "${message}" should contain ${amount} as a decimal integer`);
  }
});

/**
 * Every requirement that keeps the handler from running when the request is not served (CR-4.6), and what decides so:
 * the source's (a malformed header, a payload that cannot be processed, a refused top-up, a card error, no credits),
 * then credit402's decisions.
 */
const HANDLER_NOT_RUN = firstOf(
  [
    'CR-3.5', 'CR-3.10', 'CR-8.11', 'CR-7.1', 'CR-7.2', 'CR-7.7', 'CR-7.11', 'CR-7.20', 'CR-6.3', 'CR-4.5', 'CR-4.6',
    'CR-3.4', 'CR-3.6', 'CR-3.8', 'CR-4.10', 'CR-6.1', 'CR-6.6', 'CR-6.9', 'CR-7.21', 'CR-7.22', 'CR-7.27', 'CR-8.12', 'CR-9.4', 'CR-11.9',
    'CR-12.2', 'CR-13.10', 'CR-13.15', 'CR-13.16', 'CR-13.19', 'CR-13.20', 'CR-13.24', 'CR-13.30', 'CR-13.33', 'CR-13.35', 'CR-13.36',
    'CR-13.37', 'CR-13.41',
  ],
  'CR-4.6',
);

Then('the handler did not run', HANDLER_NOT_RUN, function (this: ConformanceWorld) {
  const key = this.handlerKey(this.last);
  const answer = answered(this.last);
  assert.ok(!handlerRan(this.last, key), `the handler of ${key} must not run: status ${answer.status} ${answer.text}`);
});

Then('the handler ran', firstOf(['CR-1.1', 'CR-7.4', 'CR-7.13', 'CR-6.2', 'CR-4.6'], 'CR-4.6'), function (this: ConformanceWorld) {
  const key = this.handlerKey(this.last);
  const answer = answered(this.last);
  assert.ok(handlerRan(this.last, key), `the handler of ${key} should have answered: status ${answer.status} ${answer.text}`);
});

Then(
  'the handler of {string} ran',
  // A free route's handler (CR-4.4), a pattern route's (CR-4.12–CR-4.14), a served request's (CR-4.6).
  firstOf(['CR-4.4', 'CR-4.13', 'CR-4.12', 'CR-4.14', 'CR-13.29', 'CR-13.42'], 'CR-4.6'),
  function (this: ConformanceWorld, key: string) {
    const answer = answered(this.last);
    assert.ok(handlerRan(this.last, key), `the handler of ${key} should have answered: status ${answer.status} ${answer.text}`);
  },
);

Then(
  'the handler of {string} did not run',
  // The router agrees with the gate (CR-4.9, strict): a request the gate does not serve as that route never reaches its handler.
  firstOf(['CR-4.9', 'CR-4.12', 'CR-4.13', 'CR-4.14', 'CR-13.42'], 'CR-4.9'),
  function (this: ConformanceWorld, key: string) {
    const answer = answered(this.last);
    assert.ok(!handlerRan(this.last, key), `the handler of ${key} must not run: status ${answer.status} ${answer.text}`);
  },
);

Then('the handler answered the parameter {string} as {string}', firstOf(['CR-4.12', 'CR-4.14'], 'CR-4.12'), function (this: ConformanceWorld, name: string, value: string) {
  const params = bodyOf(this).params;
  const text = answered(this.last).text;
  assert.ok(typeof params === 'object' && params !== null, `the handler answers its route's parameters as "params": ${text}`);
  assert.equal((params as Record<string, unknown>)[name], value, `the parameter ${name}: ${text}`);
});

Then('the request was not gated', NOT_GATED, function (this: ConformanceWorld) {
  expectNotGated(this.last);
});

Then('the response carries the header {string} with exactly that lowercase name', 'CR-3.1', function (this: ConformanceWorld, name: string) {
  const headers = answered(this.last).rawHeaders.map(([header]) => header);
  assert.deepEqual(headers.filter((header) => header.toLowerCase() === name), [name], `the answer's header names: ${headers.join(', ')}`);
});

Then('the {string} header is strict base64 JSON', 'CR-3.2', function (this: ConformanceWorld, name: string) {
  assert.ok(name === 'payment-required' || name === 'payment-response', `no such protocol header: ${name}`);
  decodedHeader(answered(this.last), this.last, name);
});

Then('every response header value is ASCII', 'CR-3.2', function (this: ConformanceWorld) {
  for (const [name, value] of answered(this.last).rawHeaders) assert.match(value, /^[\t\x20-\x7e]*$/, `header ${name} is not ASCII`);
});

Then('no protocol object in the response has a null member', 'CR-3.3', function (this: ConformanceWorld) {
  const answer = answered(this.last);
  const objects = [answer.json, readable(answer.paymentRequired), readable(answer.paymentResponse)];
  assert.deepEqual(objects.flatMap((value) => (value === undefined ? [] : nullMembers(value))), [], 'absent members are omitted, never null');
});

Then('no answer in this scenario contains a secret or a card fingerprint', 'CR-10.5', function (this: ConformanceWorld) {
  const secrets = [...this.expect.secrets, ...[...this.cards.values()].map((card) => card.fingerprint)];
  for (const exchange of this.target.exchanges) {
    const answer = answered(exchange);
    const text = `${answer.rawHeaders.map(([name, value]) => `${name}: ${value}`).join('\n')}\n${answer.text}\n${JSON.stringify([answer.paymentRequired, answer.paymentResponse])}`;
    for (const secret of secrets) assert.ok(!text.includes(secret), `the answer to ${exchange.request.method} ${exchange.request.target} discloses a secret`);
  }
});

/** Whether a comma-separated header value (or several lines of it) holds `token`, case-insensitively. */
const hasToken = (value: string | string[] | undefined, token: string): boolean =>
  [value ?? []].flat().flatMap((line) => line.split(',')).some((item) => item.trim().toLowerCase() === token);

Then('every answer to a gated request in this scenario carries Cache-Control no-store and Vary payment', 'CR-3.13', function (this: ConformanceWorld) {
  for (const exchange of this.target.exchanges) {
    const answer = answered(exchange);
    const what = `${exchange.request.method} ${exchange.request.target} → ${answer.status}`;
    assert.ok(hasToken(answer.headers['cache-control'], 'no-store'), `${what}: Cache-Control must hold no-store, got ${String(answer.headers['cache-control'])}`);
    assert.ok(hasToken(answer.headers.vary, 'payment'), `${what}: Vary must name payment, got ${String(answer.headers.vary)}`);
  }
});
