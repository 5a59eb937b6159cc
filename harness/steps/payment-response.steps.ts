// Then steps about a served request and its payment-response: creditsRemaining, clientId, chargeId, members.
import assert from 'node:assert/strict';
import { checkFor, firstOf } from '../world/check.ts';
import type { PaymentResponse } from '../world/judge.ts';
import { succeededIntentIds } from '../world/journal-queries.ts';
import { SERVED } from '../world/outcome-ids.ts';
import type { CardRole, ConformanceWorld } from '../world/world.ts';
import { Then } from './define.ts';

/**
 * The balance a served answer reports: what decides what was credited and deducted, in which currency and how often.
 * First what only the robustness profile settles (a credit by webhook, a reversal, a card's payments serialised, the
 * retry after a processor timeout), since a balance that depends on it is expected only in that profile; then the
 * source's rules, then credit402's decisions; else the balance after the deduction of the path the answer took
 * (CR-7.13 with a chargeId, a new payment; CR-6.2, the credits path).
 */
const BALANCE = firstOf(
  [
    'CR-14.2', 'CR-14.3', 'CR-14.4', 'CR-14.5', 'CR-14.6', 'CR-14.7', 'CR-14.8',
    'CR-3.11', 'CR-6.4', 'CR-6.7', 'CR-7.1', 'CR-7.4', 'CR-7.7', 'CR-7.9', 'CR-7.11', 'CR-7.20', 'CR-7.25', 'CR-9.1', 'CR-10.2', 'CR-10.3',
    'CR-7.13', 'CR-6.2',
    'CR-3.7', 'CR-6.5', 'CR-6.6', 'CR-6.8', 'CR-6.9', 'CR-7.21', 'CR-7.22', 'CR-7.23', 'CR-7.24', 'CR-8.12', 'CR-11.9', 'CR-13.20', 'CR-13.22',
    'CR-13.30', 'CR-13.31', 'CR-13.32', 'CR-13.33', 'CR-13.40', 'CR-13.41',
  ],
  'CR-6.2',
);

/** The members of a success PaymentResponse (CR-6.2, CR-7.13), without a version member (CR-12.3); else the answer's path. */
const MEMBERS = firstOf(['CR-12.3', 'CR-7.4', 'CR-7.13', 'CR-6.2'], 'CR-6.2');

/** The requirement of the path a served answer took: step 13 of a new payment (it carries a chargeId) or the deduction. */
const pathOf = (response: PaymentResponse): string => ('chargeId' in response ? 'CR-7.13' : 'CR-6.2');

Then('the request was served', SERVED, function (this: ConformanceWorld) {
  this.served();
});

Then('creditsRemaining is {int}', BALANCE, function (this: ConformanceWorld, credits: number) {
  const response = this.served();
  checkFor(firstOf(BALANCE.premises, pathOf(response)), () => assert.equal(response.creditsRemaining, credits, 'creditsRemaining in payment-response'));
});

Then(
  'the payment-response has no chargeId',
  // No new charge: served from a balance that a webhook credited (CR-14.3, CR-14.5) or that the failed attempt's credit
  // left (CR-7.22), which only those requirements give; else from an existing balance (CR-7.4) or the credits path (CR-6.2).
  firstOf(['CR-14.3', 'CR-14.5', 'CR-7.22', 'CR-7.4', 'CR-6.2'], 'CR-6.2'),
  function (this: ConformanceWorld) {
    assert.ok(!('chargeId' in this.served()), 'no chargeId without a new charge');
  },
);

Then('the payment-response has no {string} member', MEMBERS, function (this: ConformanceWorld, member: string) {
  const response = this.served();
  checkFor(firstOf(MEMBERS.premises, pathOf(response)), () => assert.ok(!(member in response), `payment-response must not carry ${member}`));
});

Then('the payment-response has exactly the members {string}', MEMBERS, function (this: ConformanceWorld, members: string) {
  const expected = members.split(',').map((name) => name.trim()).sort();
  const response = this.served();
  checkFor(firstOf(MEMBERS.premises, pathOf(response)), () => assert.deepEqual(Object.keys(response).sort(), expected));
});

Then(
  "the clientId is the HMAC of {card}'s fingerprint",
  // The derived clientId (CR-7.3), the one the payment-response carries (CR-6.2, CR-7.4, CR-7.13, CR-7.25), the same for the same card (CR-10.3).
  firstOf(['CR-7.3', 'CR-7.25', 'CR-6.4', 'CR-10.3', 'CR-7.4', 'CR-10.1', 'CR-6.2', 'CR-7.13', 'CR-13.32'], 'CR-7.3'),
  function (this: ConformanceWorld, role: CardRole) {
    assert.equal(this.served().clientId, this.card(role).clientId, 'clientId = hex HMAC-SHA256(serverSecret, fingerprint)');
  },
);

Then('the chargeId is the PaymentIntent the processor created', firstOf(['CR-7.13', 'CR-7.22', 'CR-7.23'], 'CR-7.13'), async function (this: ConformanceWorld) {
  const charged = succeededIntentIds(await this.processor.entries());
  checkFor('CR-7.6', () => assert.equal(charged.length, 1, `one PaymentIntent should have succeeded for this request, got ${charged.join(', ') || 'none'}`));
  assert.equal(this.served().chargeId, charged[0], 'chargeId is the PaymentIntent id');
});
