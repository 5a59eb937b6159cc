// Steps of the @atomicity scenarios: the race forced at the processor, many requests at once, then how the answers split.
import assert from 'node:assert/strict';
import { firstOf } from '../world/check.ts';
import { atOnce, expectCreditsLadder, expectRestInsufficient, servedOf } from '../world/concurrency.ts';
import { succeededIntentIds } from '../world/journal-queries.ts';
import { expectHeldTogetherOneKey } from '../world/processor-judge.ts';
import { requestLine, routeKeyOf } from '../world/request-line.ts';
import type { CardRole, ConformanceWorld } from '../world/world.ts';
import { Given, Then, When } from './define.ts';

/** Concurrent first payments of one card: one charge credited once (CR-7.23, CR-7.24), one at a time (CR-14.7). */
const CONCURRENT_PAYMENTS = firstOf(['CR-7.23', 'CR-7.24', 'CR-13.22', 'CR-14.7'], 'CR-7.24');

Given(
  'the processor holds the first {int} PaymentIntent creations for {card} together \\(at most {int} ms)',
  CONCURRENT_PAYMENTS,
  async function (this: ConformanceWorld, count: number, role: CardRole, holdMs: number) {
    // Forces the race: a target that charges concurrently sends them all before any is answered; one that serialises sends one, let go after holdMs.
    const match = { payment_method: this.card(role).paymentMethodId };
    const warning = await this.processor.injectFault({ kind: 'barrier', method: 'POST', path: '/v1/payment_intents', count, delayMs: holdMs, match });
    if (warning) this.notes.push(warning);
  },
);

When('I send {int} requests at once with the clientId to {string}', 'CR-6.7', async function (this: ConformanceWorld, count: number, line: string) {
  await this.processor.markRequest();
  this.batch = await atOnce(count, () => this.spend(line, 'the card', { mark: false }));
});

When('I pay for {string} with {card} {int} times at once', CONCURRENT_PAYMENTS, async function (this: ConformanceWorld, line: string, role: CardRole, count: number) {
  await this.processor.markRequest();
  this.batch = await atOnce(count, () => this.pay(line, role, { mark: false }));
});

Then('exactly {int} of the answers were served', 'CR-6.7', function (this: ConformanceWorld, count: number) {
  const key = routeKeyOf(this.last);
  assert.equal(servedOf(this.batch, key).length, count, 'served answers');
});

Then('all {int} answers were served', firstOf(['CR-7.23', 'CR-7.24', 'CR-13.22', 'CR-14.7'], 'CR-7.23'), function (this: ConformanceWorld, count: number) {
  const key = routeKeyOf(this.last);
  assert.equal(this.batch.length, count);
  assert.equal(servedOf(this.batch, key).length, count, 'served answers');
});

Then('the other {int} answers are the insufficient-credits challenge for {string}', 'CR-6.7', function (this: ConformanceWorld, count: number, key: string) {
  assert.equal(expectRestInsufficient(this.batch, key, this.expect.challenge(key)), count, 'insufficient-credits challenges');
});

Then(
  'the served creditsRemaining values are the multiples of {int} from {int} to {int}, each once',
  'CR-6.7',
  function (this: ConformanceWorld, step: number, from: number, to: number) {
    const key = routeKeyOf(this.last);
    expectCreditsLadder(servedOf(this.batch, key), step, from, to);
  },
);

Then('the PaymentIntent creations the processor held together carry one idempotency key', 'CR-7.16', async function (this: ConformanceWorld) {
  expectHeldTogetherOneKey(await this.processor.scenarioEntries());
});

Then('every chargeId names a PaymentIntent the processor charged', firstOf(['CR-7.13', 'CR-7.23'], 'CR-7.13'), async function (this: ConformanceWorld) {
  const charged = new Set(succeededIntentIds(await this.processor.scenarioEntries()));
  const key = routeKeyOf(this.last);
  const chargeIds = servedOf(this.batch, key).flatMap((response) => (response.chargeId === undefined ? [] : [response.chargeId]));
  assert.ok(chargeIds.length >= 1, 'at least one answer carries the chargeId of the first charge');
  for (const chargeId of chargeIds) assert.ok(charged.has(chargeId), `chargeId ${chargeId} is not a succeeded PaymentIntent of this scenario`);
});

Then(
  'each PaymentIntent charged was credited exactly once: a further request on {string} leaves their top-ups minus {int} prices',
  firstOf(['CR-7.23', 'CR-7.24', 'CR-13.22', 'CR-14.7'], 'CR-7.23'),
  async function (this: ConformanceWorld, line: string, requests: number) {
    const route = this.route(requestLine(line).key);
    const charged = succeededIntentIds(await this.processor.scenarioEntries()).length;
    this.notes.push(`${charged} PaymentIntent(s) succeeded; expecting ${charged} × ${route.minTopUp} − ${requests} × ${route.amount}`);
    const response = this.served(await this.spend(line));
    assert.equal(response.creditsRemaining, charged * route.minTopUp - requests * route.amount, 'each succeeded PaymentIntent is credited exactly once');
  },
);
