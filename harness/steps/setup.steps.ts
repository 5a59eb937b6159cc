// Given steps: cards, funded clients, earlier payments and processor faults.
import { Given } from '@cucumber/cucumber';
import type { FaultKind } from 'credit402-stripe-emulator';
import { expectPaymentError } from '../world/judge.ts';
import type { ScopedFault } from '../world/processor.ts';
import type { CardRole, ConformanceWorld } from '../world/world.ts';

Given('a new card', async function (this: ConformanceWorld) {
  await this.addCard('the card');
});

Given('another new card', async function (this: ConformanceWorld) {
  await this.addCard('the other card');
});

Given('a new card with the number {string}', async function (this: ConformanceWorld, number: string) {
  await this.addCard('the card', number);
});

Given('a second payment method for the card', async function (this: ConformanceWorld) {
  await this.addCard("the card's second payment method", this.card().number);
});

Given('a client with a balance of {int} units', async function (this: ConformanceWorld, balance: number) {
  await this.fundClient(balance);
});

Given('a client with a balance of {int} units in every currency', async function (this: ConformanceWorld, balance: number) {
  await this.fundClient(balance, true);
});

Given('I paid for {string} with {card}', async function (this: ConformanceWorld, line: string, role: CardRole) {
  this.served(await this.pay(line, role));
});

Given(
  'I tried to pay for {string} with {card} and got the payment error {string}',
  async function (this: ConformanceWorld, line: string, role: CardRole, code: string) {
    expectPaymentError(await this.pay(line, role), code);
  },
);

Given(
  'I tried to pay for {string} with {card} and a top-up of {int} units and got the payment error {string}',
  async function (this: ConformanceWorld, line: string, role: CardRole, topUpAmount: number, code: string) {
    expectPaymentError(await this.pay(line, role, { topUpAmount }), code);
  },
);

/** Arms a fault until the target answers the scenario's next request, whatever its Stripe client's retries (`timeout`: each attempt held 1 s). */
async function injectUntilAnswer(world: ConformanceWorld, fault: Omit<ScopedFault, 'kind' | 'count' | 'delayMs'>, kind: FaultKind): Promise<void> {
  const warning = await world.processor.injectFault({ ...fault, kind, count: 'until-answer', ...(kind === 'timeout' ? { delayMs: 500 } : {}) });
  if (warning) world.notes.push(warning);
}

Given('the processor {fault} every PaymentIntent creation for the card until the target answers', async function (this: ConformanceWorld, kind: FaultKind) {
  await injectUntilAnswer(this, { method: 'POST', path: '/v1/payment_intents', match: { payment_method: this.card().paymentMethodId } }, kind);
});

Given('the processor {fault} every retrieval of the card until the target answers', async function (this: ConformanceWorld, kind: FaultKind) {
  await injectUntilAnswer(this, { method: 'GET', path: `/v1/payment_methods/${this.card().paymentMethodId}` }, kind);
});

Given("the processor {fault} every customer search for the card's client until the target answers", async function (this: ConformanceWorld, kind: FaultKind) {
  // Scoped by what every target's query holds, the clientId, whatever its quoting or metadata key.
  await injectUntilAnswer(this, { method: 'GET', path: '/v1/customers/search', contains: { query: this.card().clientId } }, kind);
});
