// Steps of the robustness profile (§14): payments behind the target, processor events, refunds, disputes, signed deliveries.
import assert from 'node:assert/strict';
import { firstOf } from '../world/check.ts';
import type { SignatureCase } from '../world/robustness.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Given, Then, When } from './define.ts';

/** Events delivered to the webhook: verified and acknowledged (CR-14.2), crediting (CR-14.3), reversing (CR-14.4), once (CR-14.5). */
const WEBHOOK = firstOf(['CR-14.2', 'CR-14.3', 'CR-14.4', 'CR-14.5'], 'CR-14.2');
/** A reversal at the processor that the target acknowledges (CR-14.2) and applies (CR-14.4). */
const REVERSAL = firstOf(['CR-14.2', 'CR-14.4'], 'CR-14.4');

Given('I paid for {string} with the card and a top-up of {int} units', 'CR-7.13', async function (this: ConformanceWorld, line: string, topUpAmount: number) {
  this.served(await this.pay(line, 'the card', { topUpAmount }));
});

When(
  "a PaymentIntent for a top-up of {int} units for the card's client succeeds at the processor without the target",
  'CR-14.3',
  async function (this: ConformanceWorld, units: number) {
    await this.robustness.chargeBehindTarget(units);
  },
);

Then('the target acknowledged the PaymentIntent\'s {string} event', WEBHOOK, async function (this: ConformanceWorld, type: string) {
  await this.robustness.acknowledged(type);
});

When('the processor delivers that event again {int} time(s)', firstOf(['CR-14.2', 'CR-14.5'], 'CR-14.2'), async function (this: ConformanceWorld, times: number) {
  await this.robustness.redeliver(times);
});

When('the processor refunds the PaymentIntent in full and the target acknowledges the event', REVERSAL, async function (this: ConformanceWorld) {
  await this.robustness.reverse('refund');
});

When(
  'the processor refunds {int} minor units of the PaymentIntent and the target acknowledges the event',
  REVERSAL,
  async function (this: ConformanceWorld, cents: number) {
    await this.robustness.reverse('refund', cents);
  },
);

When('the processor opens a dispute on the PaymentIntent and the target acknowledges the event', REVERSAL, async function (this: ConformanceWorld) {
  await this.robustness.reverse('dispute');
});

Given(
  "a top-up of {int} units for the card's client that the target never saw, refunded by {int} and disputed for {int} minor units",
  WEBHOOK,
  async function (this: ConformanceWorld, units: number, refundCents: number, disputeCents: number) {
    await this.robustness.buildTopUp(units, refundCents, disputeCents);
  },
);

Given(
  "a top-up of {int} units for the card's client that the target never saw, and a charge of {int} minor units of the card without a PaymentIntent, refunded by {int} and disputed for {int} minor units",
  REVERSAL,
  async function (this: ConformanceWorld, units: number, chargeCents: number, refundCents: number, disputeCents: number) {
    await this.robustness.buildTopUpAndChargeWithoutPaymentIntent(units, chargeCents, refundCents, disputeCents);
  },
);

When('its events are delivered to the webhook in the order {string}, twice', WEBHOOK, async function (this: ConformanceWorld, order: string) {
  const names = order.split(',').map((name) => name.trim());
  for (let round = 0; round < 2; round++) for (const name of names) await this.robustness.deliver(this.robustness.builtEvent(name));
});

When('its {string} event is delivered to the webhook', WEBHOOK, async function (this: ConformanceWorld, name: string) {
  await this.robustness.deliver(this.robustness.builtEvent(name));
});

When('its {string} event is delivered to the webhook with {signature}', 'CR-14.2', async function (this: ConformanceWorld, name: string, how: SignatureCase) {
  await this.robustness.deliver(this.robustness.builtEvent(name), how);
});

When(
  "a payment_intent.succeeded event of {int} units for the card's client with {string} is delivered to the webhook",
  'CR-14.3',
  async function (this: ConformanceWorld, units: number, defect: string) {
    await this.robustness.deliver(await this.robustness.defectiveSucceeded(defect, units));
  },
);

When(
  "a forged payment_intent.succeeded event of {int} units for the card's client, about a PaymentIntent the processor does not have, is delivered to the webhook",
  'CR-14.3',
  async function (this: ConformanceWorld, units: number) {
    await this.robustness.deliver(this.robustness.forgedSucceeded('unknown', units));
  },
);

When('its "succeeded" event, forged to {int} units, is delivered to the webhook', 'CR-14.3', async function (this: ConformanceWorld, units: number) {
  await this.robustness.deliver(this.robustness.forgedSucceeded('raised', units));
});

When("its \"refund\" event, forged to name the top-up's PaymentIntent, is delivered to the webhook", 'CR-14.4', async function (this: ConformanceWorld) {
  await this.robustness.deliver(this.robustness.refundClaimingTopUp());
});

Then('every delivery was acknowledged with 2xx and no protocol header', 'CR-14.2', function (this: ConformanceWorld) {
  this.robustness.expectAcknowledged();
});

Then('the webhook acknowledged it with 2xx and no protocol header', 'CR-14.2', function (this: ConformanceWorld) {
  this.robustness.expectAcknowledged(true);
});

Then('the webhook answered {int}', 'CR-14.2', function (this: ConformanceWorld, status: number) {
  const last = this.robustness.deliveries.at(-1);
  assert.ok(last, 'no delivery was made');
  assert.equal(last.status, status, `webhook answer: ${last.text}`);
});
