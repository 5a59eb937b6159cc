// Then steps where a strict decision overrides a rule of the stripe402 source: the wire level accepts the source's answer.
import assert from 'node:assert/strict';
import { checkFor, firstOf } from '../world/check.ts';
import { expectChallenge, expectPaymentError, kindOf } from '../world/judge.ts';
import { routeKeyOf } from '../world/request-line.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then } from './define.ts';

/** The payment error code of the last answer, if it is one. */
function errorCodeOf(world: ConformanceWorld): unknown {
  const body = world.last.answer?.json;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>).errorCode : undefined;
}

/** The source's answer came: the wire level has judged it; the overriding requirement fails on its own (strict). */
function overridden(world: ConformanceWorld, id: string, expected: string): void {
  checkFor(id, () => assert.fail(`expected ${expected}; the target answered ${kindOf(world.last)}, the source's rule, which ${id} overrides`));
}

Then(
  "the answer is the payment error {string} naming {string}, where {word} overrides the source's {string}",
  // Neither code: the wire level wanted the source's answer (a topUpAmount below minTopUp: CR-7.1, CR-8.5; a
  // PaymentMethod the processor does not know: CR-7.2, CR-7.20), or at least a 402 that fails closed (CR-8.11).
  firstOf(['CR-7.1', 'CR-7.2', 'CR-7.20', 'CR-8.5'], 'CR-8.11'),
  function (this: ConformanceWorld, code: string, member: string, id: string, sourceCode: string) {
    if (errorCodeOf(this) === sourceCode) {
      expectPaymentError(this.last, sourceCode);
      overridden(this, id, `the payment error ${code}`);
      return;
    }
    const message = expectPaymentError(this.last, code);
    checkFor(id, () => assert.ok(message.includes(member), `the error message "${message}" should name ${member}`));
  },
);

Then(
  "the answer is the payment error {string} with message {string}, where {word} overrides the source's plain challenge",
  // Neither the payment error nor the source's plain challenge: a malformed header (CR-3.5, CR-8.4).
  firstOf(['CR-3.5', 'CR-8.4'], 'CR-3.5'),
  function (this: ConformanceWorld, code: string, message: string, id: string) {
    const route = this.last.answer?.status === 402 && this.last.answer.paymentRequired !== undefined;
    if (route) {
      expectChallenge(this.last, this.expect.challenge(routeKeyOf(this.last), this.last.path), 'plain');
      overridden(this, id, `the payment error ${code}`);
      return;
    }
    expectPaymentError(this.last, code, message);
  },
);
