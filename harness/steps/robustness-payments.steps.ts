// Steps of §14 about payments: concurrent first payments of one card, and a client that gives up while the charge goes on.
import assert from 'node:assert/strict';
import { firstOf } from '../world/check.ts';
import { paymentIntentCreations, succeededIntentIds } from '../world/journal-queries.ts';
import { expectOneChargeLadder, servedCount, servedOrUnavailable } from '../world/serialised-payments.ts';
import { requestLine, routeKeyOf } from '../world/request-line.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Given, Then, When } from './define.ts';

Then(
  'every answer was served or refused with 503 service_unavailable, and the served ones used one top-up of {int} units',
  'CR-14.7',
  function (this: ConformanceWorld, topUp: number) {
    const key = routeKeyOf(this.last);
    const served = servedOrUnavailable(this.batch, key);
    this.notes.push(`${served.length} of ${this.batch.length} served`);
    expectOneChargeLadder(served, topUp, this.route(key).amount);
  },
);

Then(
  'a further request with the clientId on {string} leaves {int} units minus a price for each served answer and itself',
  'CR-14.7',
  async function (this: ConformanceWorld, line: string, topUp: number) {
    const key = requestLine(line).key;
    const served = this.batch.length === 0 ? 0 : servedOrUnavailable(this.batch, key).length;
    assert.equal(this.served(await this.spend(line)).creditsRemaining, topUp - (served + 1) * this.route(key).amount);
  },
);

Given('the processor delays the next PaymentIntent creation for the card by {int} ms', 'CR-14.8', async function (this: ConformanceWorld, delayMs: number) {
  const warning = await this.processor.injectFault({
    kind: 'delay', method: 'POST', path: '/v1/payment_intents', count: 1, delayMs, match: { payment_method: this.card().paymentMethodId },
  });
  if (warning) this.notes.push(warning);
});

When('I pay for {string} with the card and give up after {int} ms', 'CR-14.8', async function (this: ConformanceWorld, line: string, timeoutMs: number) {
  const exchange = await this.pay(line, 'the card', { timeoutMs });
  assert.ok(exchange.answer === undefined, `the target answered within ${timeoutMs} ms (status ${exchange.answer?.status}): the delay did not hold the payment`);
});

Then(
  'exactly one PaymentIntent succeeded in this scenario',
  // One charge for a payment retried after a store failure (CR-7.21, CR-7.22) or a processor timeout (CR-7.16, CR-14.8).
  firstOf(['CR-7.16', 'CR-7.21', 'CR-7.22', 'CR-7.23', 'CR-14.3', 'CR-14.8'], 'CR-7.22'),
  async function (this: ConformanceWorld) {
    const ids = succeededIntentIds(await this.processor.scenarioEntries());
    assert.equal(ids.length, 1, `succeeded PaymentIntents: ${ids.join(', ') || 'none'}`);
  },
);

// The key is a function of the payment, the same for each attempt (CR-7.16, strict), which a retry after a timeout relies on (CR-14.8).
Then("every PaymentIntent creation in this scenario carries the first attempt's idempotency key", 'CR-7.16', async function (this: ConformanceWorld) {
  const creations = paymentIntentCreations(await this.processor.scenarioEntries());
  assert.ok(creations.length >= 1, 'the first attempt created a PaymentIntent');
  for (const creation of creations) assert.equal(creation.idempotencyKey, creations[0]?.idempotencyKey, 'a retry sends the same key');
});

Then(
  'the retry was served from the single top-up of {int} units, the abandoned request served or not',
  'CR-14.8',
  function (this: ConformanceWorld, topUp: number) {
    const key = routeKeyOf(this.last);
    const response = this.served();
    const count = servedCount(response.creditsRemaining, topUp, this.route(key).amount, [1, 2]);
    this.notes.push(count === 2 ? 'the abandoned request was served (its price was deducted)' : 'the abandoned request was not served');
  },
);

When('I spend with the clientId on {string} once more', 'CR-14.8', async function (this: ConformanceWorld, line: string) {
  const before = this.served().creditsRemaining;
  const after = this.served(await this.spend(line)).creditsRemaining;
  assert.equal(after, before - this.route(requestLine(line).key).amount, 'the balance after the retry is exact');
});
