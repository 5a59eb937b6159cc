// Steps of the robustness profile (§14): payments behind the target, processor events, refunds, disputes, signed deliveries.
import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import { robustness, type SignatureCase } from '../world/robustness.ts';
import type { ConformanceWorld } from '../world/world.ts';

Given('I paid for {string} with the card and a top-up of {int} units', async function (this: ConformanceWorld, line: string, topUpAmount: number) {
  this.served(await this.pay(line, 'the card', { topUpAmount }));
});

When(
  "a PaymentIntent for a top-up of {int} units for the card's client succeeds at the processor without the target",
  async function (this: ConformanceWorld, units: number) {
    await robustness(this).chargeBehindTarget(units);
  },
);

Then('the target acknowledged the PaymentIntent\'s {string} event', async function (this: ConformanceWorld, type: string) {
  await robustness(this).acknowledged(type);
});

When('the processor delivers that event again {int} time(s)', async function (this: ConformanceWorld, times: number) {
  await robustness(this).redeliver(times);
});

When('the processor refunds the PaymentIntent in full and the target acknowledges the event', async function (this: ConformanceWorld) {
  await robustness(this).reverse('refund');
});

When(
  'the processor refunds {int} minor units of the PaymentIntent and the target acknowledges the event',
  async function (this: ConformanceWorld, cents: number) {
    await robustness(this).reverse('refund', cents);
  },
);

When('the processor opens a dispute on the PaymentIntent and the target acknowledges the event', async function (this: ConformanceWorld) {
  await robustness(this).reverse('dispute');
});

Given(
  "a top-up of {int} units for the card's client that the target never saw, refunded by {int} and disputed for {int} minor units",
  async function (this: ConformanceWorld, units: number, refundCents: number, disputeCents: number) {
    await robustness(this).buildTopUp(units, refundCents, disputeCents);
  },
);

Given(
  "a top-up of {int} units for the card's client that the target never saw, and a charge of {int} minor units of the card without a PaymentIntent, refunded by {int} and disputed for {int} minor units",
  async function (this: ConformanceWorld, units: number, chargeCents: number, refundCents: number, disputeCents: number) {
    await robustness(this).buildTopUpAndChargeWithoutPaymentIntent(units, chargeCents, refundCents, disputeCents);
  },
);

When('its events are delivered to the webhook in the order {string}, twice', async function (this: ConformanceWorld, order: string) {
  const view = robustness(this);
  const names = order.split(',').map((name) => name.trim());
  for (let round = 0; round < 2; round++) for (const name of names) await view.deliver(view.builtEvent(name));
});

When('its {string} event is delivered to the webhook', async function (this: ConformanceWorld, name: string) {
  const view = robustness(this);
  await view.deliver(view.builtEvent(name));
});

When('its {string} event is delivered to the webhook with {signature}', async function (this: ConformanceWorld, name: string, how: SignatureCase) {
  const view = robustness(this);
  await view.deliver(view.builtEvent(name), how);
});

When(
  "a payment_intent.succeeded event of {int} units for the card's client with {string} is delivered to the webhook",
  async function (this: ConformanceWorld, units: number, defect: string) {
    const view = robustness(this);
    await view.deliver(await view.defectiveSucceeded(defect, units));
  },
);

When(
  "a forged payment_intent.succeeded event of {int} units for the card's client, about a PaymentIntent the processor does not have, is delivered to the webhook",
  async function (this: ConformanceWorld, units: number) {
    const view = robustness(this);
    await view.deliver(view.forgedSucceeded('unknown', units));
  },
);

When('its "succeeded" event, forged to {int} units, is delivered to the webhook', async function (this: ConformanceWorld, units: number) {
  const view = robustness(this);
  await view.deliver(view.forgedSucceeded('raised', units));
});

When("its \"refund\" event, forged to name the top-up's PaymentIntent, is delivered to the webhook", async function (this: ConformanceWorld) {
  const view = robustness(this);
  await view.deliver(view.refundClaimingTopUp());
});

Then('every delivery was acknowledged with 2xx and no protocol header', function (this: ConformanceWorld) {
  const view = robustness(this);
  assert.ok(view.deliveries.length > 0, 'no delivery was made');
  view.expectAcknowledged();
});

Then('the webhook acknowledged it with 2xx and no protocol header', function (this: ConformanceWorld) {
  const view = robustness(this);
  assert.ok(view.deliveries.length > 0, 'no delivery was made');
  view.expectAcknowledged(view.deliveries.length - 1);
});

Then('the webhook answered {int}', function (this: ConformanceWorld, status: number) {
  const last = robustness(this).deliveries.at(-1);
  assert.ok(last, 'no delivery was made');
  assert.equal(last.status, status, `webhook answer: ${last.text}`);
});
