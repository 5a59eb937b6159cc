// Given steps: cards, funded clients, earlier payments and processor faults.
import type { FaultKind } from 'credit402-stripe-emulator';
import { firstOf } from '../world/check.ts';
import { expectPaymentError } from '../world/judge.ts';
import { PAYMENT_ERROR, paymentErrorIds } from '../world/outcome-ids.ts';
import type { ScopedFault } from '../world/processor.ts';
import type { CardRole, ConformanceWorld } from '../world/world.ts';
import { Given } from './define.ts';

/**
 * A card made at the processor, and the clientId the spec derives from its fingerprint with the target's declared
 * serverSecret (CR-7.3): no request to the target is made, so a failure here is one of the processor (emulator) or of
 * the profile, named under the derivation the scenario's card stands for.
 */
const CARD = 'CR-7.3';
/** A balance set up by paying (CR-7.13: creditsRemaining is the top-up minus the price); a spend that breaks it names CR-6.2 itself. */
const BALANCE = 'CR-7.13';
/** The processor faults a scenario arms: what the target answers when the processor fails (CR-7.20, CR-13.35, CR-14.8). */
const PROCESSOR_FAULT = firstOf(['CR-7.20', 'CR-13.35', 'CR-14.8'], 'CR-7.20');

Given('a new card', CARD, async function (this: ConformanceWorld) {
  await this.addCard('the card');
});

Given('another new card', CARD, async function (this: ConformanceWorld) {
  await this.addCard('the other card');
});

Given('a new card with the number {string}', CARD, async function (this: ConformanceWorld, number: string) {
  await this.addCard('the card', number);
});

Given('a second payment method for the card', CARD, async function (this: ConformanceWorld) {
  await this.addCard("the card's second payment method", this.card().number);
});

Given('a client with a balance of {int} units', BALANCE, async function (this: ConformanceWorld, balance: number) {
  await this.fundClient(balance);
});

Given('a client with a balance of {int} units in every currency', BALANCE, async function (this: ConformanceWorld, balance: number) {
  await this.fundClient(balance, true);
});

// A set-up payment that is not served breaks the new-payment path's success (CR-7.13).
Given('I paid for {string} with {card}', 'CR-7.13', async function (this: ConformanceWorld, line: string, role: CardRole) {
  this.served(await this.pay(line, role));
});

Given(
  'I tried to pay for {string} with {card} and got the payment error {string}',
  PAYMENT_ERROR,
  async function (this: ConformanceWorld, line: string, role: CardRole, code: string) {
    expectPaymentError(await this.pay(line, role), code, undefined, paymentErrorIds(code));
  },
);

Given(
  'I tried to pay for {string} with {card} and a top-up of {int} units and got the payment error {string}',
  PAYMENT_ERROR,
  async function (this: ConformanceWorld, line: string, role: CardRole, topUpAmount: number, code: string) {
    expectPaymentError(await this.pay(line, role, { topUpAmount }), code, undefined, paymentErrorIds(code));
  },
);

/** Arms a fault until the target answers the scenario's next request, whatever its Stripe client's retries (`timeout`: each attempt held 1 s). */
async function injectUntilAnswer(world: ConformanceWorld, fault: Omit<ScopedFault, 'kind' | 'count' | 'delayMs'>, kind: FaultKind): Promise<void> {
  const warning = await world.processor.injectFault({ ...fault, kind, count: 'until-answer', ...(kind === 'timeout' ? { delayMs: 500 } : {}) });
  if (warning) world.notes.push(warning);
}

Given('the processor {fault} every PaymentIntent creation for the card until the target answers', PROCESSOR_FAULT, async function (this: ConformanceWorld, kind: FaultKind) {
  await injectUntilAnswer(this, { method: 'POST', path: '/v1/payment_intents', match: { payment_method: this.card().paymentMethodId } }, kind);
});

Given('the processor {fault} every retrieval of the card until the target answers', PROCESSOR_FAULT, async function (this: ConformanceWorld, kind: FaultKind) {
  await injectUntilAnswer(this, { method: 'GET', path: `/v1/payment_methods/${this.card().paymentMethodId}` }, kind);
});

Given("the processor {fault} every customer search for the card's client until the target answers", PROCESSOR_FAULT, async function (this: ConformanceWorld, kind: FaultKind) {
  // Scoped by what every target's query holds, the clientId, whatever its quoting or metadata key.
  await injectUntilAnswer(this, { method: 'GET', path: '/v1/customers/search', contains: { query: this.card().clientId } }, kind);
});
