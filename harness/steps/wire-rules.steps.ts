// Then steps for rules the stripe402 source states in general terms: every error answer on a gated route is a 402, units are integers.
import assert from 'node:assert/strict';
import { readable } from '../world/base64-json.ts';
import { checkFor } from '../world/check.ts';
import { answered as answerOf, describeExchange, handlerRan } from '../world/judge.ts';
import { paymentIntentCreations } from '../world/journal-queries.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then } from './define.ts';

Then('the answer is a 402 error answer that charged nothing, as every error answer on a gated route', 'CR-8.11', async function (this: ConformanceWorld) {
  const entries = await this.processor.entries();
  checkFor('CR-8.11', () => {
    const answer = answerOf(this.last);
    assert.ok(!handlerRan(this.last, this.handlerKey(this.last)), `the handler must not run for a payload the target cannot process: ${describeExchange(this.last)}`);
    assert.equal(answer.status, 402, `seed §7: all error answers on gated routes use HTTP status 402: ${describeExchange(this.last)}`);
    assert.deepEqual(paymentIntentCreations(entries).map((entry) => entry.path), [], 'nothing is charged for a payload the target cannot process');
  });
});

Then('no balance or credit in the answer is a fraction of a unit', 'CR-1.2', function (this: ConformanceWorld) {
  const answer = answerOf(this.last);
  const paid = readable(answer.paymentResponse);
  const body = typeof answer.json === 'object' && answer.json !== null ? (answer.json as Record<string, unknown>) : {};
  checkFor('CR-1.2', () => {
    for (const [where, value] of [['payment-response creditsRemaining', paid?.creditsRemaining], ['body creditsRemaining', body.creditsRemaining]] as const) {
      if (value !== undefined) assert.ok(Number.isSafeInteger(value), `balances are integer units (seed §1): ${where} is ${JSON.stringify(value)}`);
    }
  });
});
