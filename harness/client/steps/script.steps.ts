// Client steps that script the kit's server for the scenario. They judge nothing, so they register with cucumber
// directly: a failure here is a mistake of the suite (an unknown knob), shown as the kit's own.
import assert from 'node:assert/strict';
import { Given } from '@cucumber/cucumber';
import type { OriginName } from '../ledger.ts';
import { BROKEN_CHALLENGES, BROKEN_PAYMENT_RESPONSES, PAYMENT_ERROR_CODES, type BrokenChallenge, type BrokenPaymentResponse, type PaymentErrorCode } from '../script.ts';
import type { ClientWorld } from '../world.ts';

function oneOf<T extends string>(list: readonly T[], value: string, what: string): T {
  assert.ok((list as readonly string[]).includes(value), `unknown ${what} "${value}"; known: ${list.join(', ')}`);
  return value as T;
}

Given('the server answers the next paid request with the payment error {string}', function (this: ClientWorld, code: string) {
  this.server.script.paymentError = { code: oneOf<PaymentErrorCode>(PAYMENT_ERROR_CODES, code, 'payment error'), scope: 'next' };
});

Given('the server answers the next paid request with a challenge again', function (this: ClientWorld) {
  this.server.script.challengeAgain = 'next';
});

Given('the server answers every gated request 503 service_unavailable', function (this: ClientWorld) {
  this.server.script.unavailable = 'every';
});

Given('the server\'s challenges carry a broken payment-required: {string}', function (this: ClientWorld, kind: string) {
  this.server.script.brokenChallenge = oneOf<BrokenChallenge>(BROKEN_CHALLENGES, kind, 'broken payment-required');
});

Given('the server answers the next charged request with a broken payment-response: {string}', function (this: ClientWorld, kind: string) {
  this.server.script.brokenPaymentResponse = oneOf<BrokenPaymentResponse>(BROKEN_PAYMENT_RESPONSES, kind, 'broken payment-response');
});

Given('the server\'s challenges list another scheme first, with unknown members everywhere', function (this: ClientWorld) {
  this.server.script.forwardCompatible = true;
});

Given('the server takes {int} ms to charge a card', function (this: ClientWorld, delay: number) {
  this.server.script.chargeDelayMs = delay;
});

Given(/^server (A|B) drained the client's balance$/, function (this: ClientWorld, origin: OriginName) {
  const clientId = this.givenClientId(origin);
  this.server.ledger.setBalance(origin, clientId, 0);
});

Given(/^server (A|B) redirects every request carrying a payment to server (A|B)$/, function (this: ClientWorld, from: OriginName, to: OriginName) {
  assert.notEqual(from, to, 'a redirect to another origin names two servers');
  this.server.script.redirectPaid = { from, to: this.server.url(to) };
});
