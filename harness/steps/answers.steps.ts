// Then steps about the target's answer: status, challenge, payment error, served or free, header encoding.
import assert from 'node:assert/strict';
import { Then } from '@cucumber/cucumber';
import { readable } from '../world/base64-json.ts';
import { checkFor } from '../world/check.ts';
import { answerOf } from '../world/exchange.ts';
import {
  decodedChallenge,
  decodedHeader,
  expectChallenge,
  expectNotGated,
  expectPaymentError,
  handlerRan,
  nullMembers,
} from '../world/judge.ts';
import type { ConformanceWorld } from '../world/world.ts';

const challengeOf = (world: ConformanceWorld): Record<string, unknown> => decodedChallenge(world.answer, world.last);
const acceptsOf = (world: ConformanceWorld): Record<string, unknown> => {
  const accepts = challengeOf(world).accepts;
  assert.ok(Array.isArray(accepts) && accepts.length === 1, 'accepts has exactly one element');
  return accepts[0] as Record<string, unknown>;
};
const bodyOf = (world: ConformanceWorld): Record<string, unknown> => {
  const body = world.answer.json;
  assert.ok(typeof body === 'object' && body !== null, `the body is a JSON object: ${world.answer.text}`);
  return body as Record<string, unknown>;
};

Then('the response status is {int}', function (this: ConformanceWorld, status: number) {
  assert.equal(this.answer.status, status, `status of ${this.last.request.method} ${this.last.request.target}: ${this.answer.text}`);
});

Then('the response is the challenge for {string}', function (this: ConformanceWorld, key: string) {
  expectChallenge(this.last, this.expect.challenge(key, this.last.path), 'plain');
});

Then('the response is the insufficient-credits challenge for {string}', function (this: ConformanceWorld, key: string) {
  expectChallenge(this.last, this.expect.challenge(key, this.last.path), 'insufficient');
});

Then('every answer is the challenge for {string}', function (this: ConformanceWorld, key: string) {
  for (const exchange of this.batch) expectChallenge(exchange, this.expect.challenge(key, exchange.path), 'plain');
});

Then('every answer is the insufficient-credits challenge for {string}', function (this: ConformanceWorld, key: string) {
  for (const exchange of this.batch) expectChallenge(exchange, this.expect.challenge(key, exchange.path), 'insufficient');
});

Then('the payment-required header decodes to exactly the body', function (this: ConformanceWorld) {
  assert.deepEqual(this.answer.json, challengeOf(this), 'payment-required and the body carry the same JSON value');
});

Then(
  'the challenge asks for {int} unit(s) in {string} with a minimum top-up of {int} units',
  function (this: ConformanceWorld, amount: number, currency: string, minTopUp: number) {
    const accepts = acceptsOf(this);
    assert.equal(accepts.scheme, 'stripe', 'scheme');
    assert.equal(accepts.amount, amount, 'amount');
    assert.equal(accepts.currency, currency, 'currency');
    assert.equal(accepts.minTopUp, minTopUp, 'minTopUp');
  },
);

Then("the challenge's publishable key is the profile's", function (this: ConformanceWorld) {
  checkFor('CR-5.3', () => assert.equal(acceptsOf(this).publishableKey, this.expect.publishableKey, 'accepts[0].publishableKey'));
});

Then("the challenge's resource url is {string}", function (this: ConformanceWorld, url: string) {
  assert.equal((challengeOf(this).resource as Record<string, unknown> | undefined)?.url, url);
});

Then("the challenge's resource description is {string}", function (this: ConformanceWorld, description: string) {
  checkFor('CR-13.2', () => {
    assert.equal((challengeOf(this).resource as Record<string, unknown> | undefined)?.description, description, 'resource.description');
    assert.equal(acceptsOf(this).description, description, 'accepts[0].description');
  });
});

Then('the challenge has no description', function (this: ConformanceWorld) {
  checkFor(['CR-5.2', 'CR-5.3'], () => {
    assert.ok(!('description' in ((challengeOf(this).resource as object | undefined) ?? {})), 'resource has no description member');
    assert.ok(!('description' in acceptsOf(this)), 'accepts[0] has no description member');
  });
});

Then('the challenge carries stripe402Version {int}', function (this: ConformanceWorld, version: number) {
  assert.equal(challengeOf(this).stripe402Version, version, 'in the header');
  if (this.last.request.method !== 'HEAD') assert.equal(bodyOf(this).stripe402Version, version, 'in the body');
});

Then('the answer is the payment error {string}', function (this: ConformanceWorld, code: string) {
  expectPaymentError(this.last, code);
});

Then('the answer is the payment error {string} with message {string}', function (this: ConformanceWorld, code: string, message: string) {
  expectPaymentError(this.last, code, message);
});

Then('the error message contains {string}', function (this: ConformanceWorld, text: string) {
  const message = String(bodyOf(this).error);
  assert.ok(message.includes(text), `the error message "${message}" should contain "${text}"`);
});

Then('the error message names the amounts {int} and {int}', function (this: ConformanceWorld, first: number, second: number) {
  const message = String(bodyOf(this).error);
  for (const amount of [first, second]) {
    assert.match(message, new RegExp(`(?<![0-9])${amount}(?![0-9])`), `the error message "${message}" should contain ${amount} as a decimal integer`);
  }
});

Then('the handler did not run', function (this: ConformanceWorld) {
  const key = this.handlerKey(this.last);
  assert.ok(!handlerRan(this.last, key), `the handler of ${key} must not run: status ${answerOf(this.last).status} ${this.answer.text}`);
});

Then('the handler ran', function (this: ConformanceWorld) {
  const key = this.handlerKey(this.last);
  assert.ok(handlerRan(this.last, key), `the handler of ${key} should have answered: status ${answerOf(this.last).status} ${this.answer.text}`);
});

Then('the handler of {string} ran', function (this: ConformanceWorld, key: string) {
  assert.ok(handlerRan(this.last, key), `the handler of ${key} should have answered: status ${answerOf(this.last).status} ${this.answer.text}`);
});

Then('the handler of {string} did not run', function (this: ConformanceWorld, key: string) {
  checkFor('CR-4.9', () => assert.ok(!handlerRan(this.last, key), `the handler of ${key} must not run: status ${answerOf(this.last).status} ${this.answer.text}`));
});

Then('the handler answered the parameter {string} as {string}', function (this: ConformanceWorld, name: string, value: string) {
  const params = bodyOf(this).params;
  assert.ok(typeof params === 'object' && params !== null, `the handler answers its route's parameters as "params": ${this.answer.text}`);
  assert.equal((params as Record<string, unknown>)[name], value, `the parameter ${name}: ${this.answer.text}`);
});

Then('the request was not gated', function (this: ConformanceWorld) {
  expectNotGated(this.last);
});

Then('the response carries the header {string} with exactly that lowercase name', function (this: ConformanceWorld, name: string) {
  const names = this.answer.rawHeaders.map(([header]) => header).filter((header) => header.toLowerCase() === name);
  checkFor('CR-3.1', () => assert.deepEqual(names, [name], `the answer's header names: ${this.answer.rawHeaders.map(([header]) => header).join(', ')}`));
});

Then('the {string} header is strict base64 JSON', function (this: ConformanceWorld, name: string) {
  assert.ok(name === 'payment-required' || name === 'payment-response', `no such protocol header: ${name}`);
  decodedHeader(this.answer, this.last, name);
});

Then('every response header value is ASCII', function (this: ConformanceWorld) {
  checkFor('CR-3.2', () => {
    for (const [name, value] of this.answer.rawHeaders) assert.match(value, /^[\t\x20-\x7e]*$/, `header ${name} is not ASCII`);
  });
});

Then('no protocol object in the response has a null member', function (this: ConformanceWorld) {
  const answer = this.answer;
  const objects = [answer.json, readable(answer.paymentRequired), readable(answer.paymentResponse)];
  checkFor('CR-3.3', () => assert.deepEqual(objects.flatMap((value) => (value === undefined ? [] : nullMembers(value))), [], 'absent members are omitted, never null'));
});

Then('no answer in this scenario contains a secret or a card fingerprint', function (this: ConformanceWorld) {
  const secrets = [...this.expect.secrets, ...[...this.cards.values()].map((card) => card.fingerprint)];
  for (const exchange of this.target.exchanges) {
    const answer = answerOf(exchange);
    const text = `${answer.rawHeaders.map(([name, value]) => `${name}: ${value}`).join('\n')}\n${answer.text}\n${JSON.stringify([answer.paymentRequired, answer.paymentResponse])}`;
    checkFor('CR-10.5', () => {
      for (const secret of secrets) assert.ok(!text.includes(secret), `the answer to ${exchange.request.method} ${exchange.request.target} discloses a secret`);
    });
  }
});

/** Whether a comma-separated header value (or several lines of it) holds `token`, case-insensitively. */
const hasToken = (value: string | string[] | undefined, token: string): boolean =>
  [value ?? []].flat().flatMap((line) => line.split(',')).some((item) => item.trim().toLowerCase() === token);

Then('every answer to a gated request in this scenario carries Cache-Control no-store and Vary payment', function (this: ConformanceWorld) {
  checkFor('CR-3.13', () => {
    for (const exchange of this.target.exchanges) {
      const answer = answerOf(exchange);
      const what = `${exchange.request.method} ${exchange.request.target} → ${answer.status}`;
      assert.ok(hasToken(answer.headers['cache-control'], 'no-store'), `${what}: Cache-Control must hold no-store, got ${String(answer.headers['cache-control'])}`);
      assert.ok(hasToken(answer.headers.vary, 'payment'), `${what}: Vary must name payment, got ${String(answer.headers.vary)}`);
    }
  });
});
