// Then steps about a served request and its payment-response: creditsRemaining, clientId, chargeId, members.
import assert from 'node:assert/strict';
import { Then } from '@cucumber/cucumber';
import { succeededIntentIds } from '../world/journal-queries.ts';
import type { CardRole, ConformanceWorld } from '../world/world.ts';

Then('the request was served', function (this: ConformanceWorld) {
  this.served();
});

Then('creditsRemaining is {int}', function (this: ConformanceWorld, credits: number) {
  assert.equal(this.served().creditsRemaining, credits, 'creditsRemaining in payment-response');
});

Then('the payment-response has no chargeId', function (this: ConformanceWorld) {
  assert.ok(!('chargeId' in this.served()), 'no chargeId without a new charge (CR-6.2, CR-7.4)');
});

Then('the payment-response has no {string} member', function (this: ConformanceWorld, member: string) {
  assert.ok(!(member in this.served()), `payment-response must not carry ${member}`);
});

Then('the payment-response has exactly the members {string}', function (this: ConformanceWorld, members: string) {
  const expected = members.split(',').map((name) => name.trim()).sort();
  assert.deepEqual(Object.keys(this.served()).sort(), expected);
});

Then("the clientId is the HMAC of {card}'s fingerprint", function (this: ConformanceWorld, role: CardRole) {
  assert.equal(this.served().clientId, this.card(role).clientId, 'clientId = hex HMAC-SHA256(serverSecret, fingerprint) (CR-7.3)');
});

Then('the chargeId is the PaymentIntent the processor created', async function (this: ConformanceWorld) {
  const charged = succeededIntentIds(await this.processor.entries());
  assert.equal(charged.length, 1, `one PaymentIntent should have succeeded for this request, got ${charged.join(', ') || 'none'}`);
  assert.equal(this.served().chargeId, charged[0], 'chargeId is the PaymentIntent id (CR-7.13)');
});
