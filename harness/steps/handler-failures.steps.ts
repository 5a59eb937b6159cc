// Steps of a paid request whose handler fails (CR-4.7, CR-13.27): the profile's failing handlers (`failingHandlers`) answer
// 500 or throw; the deduction made before them stands, the answer is the handler's (or its framework's), and the price is
// taken exactly once.
import assert from 'node:assert/strict';
import { NOTICE_MEDIA_TYPE, noticeBody } from '../report/verdict-attachment.ts';
import { readable } from '../world/base64-json.ts';
import { RequirementFailure } from '../world/check.ts';
import { runsOf } from '../world/handler-runs.ts';
import { succeededIntentIds } from '../world/journal-queries.ts';
import { answered, decodedHeader, describeExchange, expectServed, kindOf } from '../world/judge.ts';
import type { HandlerFailure } from '../world/parameters.ts';
import { requestLine } from '../world/request-line.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then } from './define.ts';

/** The deduction stands once the handler is reached (CR-4.7); its answer, whatever its status, is the handler's. */
const HANDLER_FAILED = 'CR-4.7';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How the profile says the handler of `key` fails; a scenario about a handler the profile does not make fail is wrong. */
function failureOf(world: ConformanceWorld, key: string): HandlerFailure {
  const how = world.profile.failingHandlers?.[key];
  assert.ok(how !== undefined, `the profile's failingHandlers has no ${key}: the scenario is wrong, or the profile is not the kit's`);
  return how;
}

Then('the answer is the 500 of the handler of {string}', HANDLER_FAILED, function (this: ConformanceWorld, key: string) {
  assert.equal(failureOf(this, key), 'answer500', `the profile's handler of ${key} does not answer 500`);
  const answer = answered(this.last);
  const route = isObject(answer.json) ? answer.json.route : undefined;
  assert.ok(
    answer.status === 500 && route === key,
    `a paid request reaches its handler, whose answer the target passes on: the handler of ${key} answers 500 with {"route": "${key}"}, got ${kindOf(this.last)}: ${describeExchange(this.last)}`,
  );
});

Then("the answer is a 5xx of the target's framework, after the handler of {string} threw", HANDLER_FAILED, function (this: ConformanceWorld, key: string) {
  assert.equal(failureOf(this, key), 'throw', `the profile's handler of ${key} does not throw`);
  const answer = answered(this.last);
  const body = isObject(answer.json) ? answer.json : {};
  const protocolAnswer = answer.status === 402 || answer.headers['payment-required'] !== undefined || (body.success === false && typeof body.errorCode === 'string');
  assert.ok(
    answer.status >= 500 && answer.status <= 599 && !protocolAnswer,
    `a paid request reaches its handler; when it throws, the target's framework answers 5xx (not a challenge, payment error or 503 of the protocol): got ${kindOf(this.last)}: ${describeExchange(this.last)}`,
  );
});

/** The decoded payment-response of the last answer, judged as the success PaymentResponse of the card's client with `credits`. */
function expectDeductionStated(world: ConformanceWorld, credits: number): Record<string, unknown> {
  const answer = answered(world.last);
  const value = decodedHeader(answer, world.last, 'payment-response');
  assert.equal(value.success, true, 'payment-response: success is true');
  assert.equal(value.clientId, world.card().clientId, "payment-response: the card's clientId");
  assert.equal(value.creditsRemaining, credits, 'payment-response: creditsRemaining is the balance after the deduction');
  return value;
}

Then(
  'that 5xx answer carries the payment-response of the deduction: the clientId and {int} credits remaining',
  HANDLER_FAILED,
  function (this: ConformanceWorld, credits: number) {
    const value = expectDeductionStated(this, credits);
    assert.ok(!('chargeId' in value), 'payment-response: no chargeId without a charge');
  },
);

Then(
  'that 5xx answer carries the payment-response of the payment: the clientId, {int} credits remaining and the chargeId of the PaymentIntent the processor created',
  HANDLER_FAILED,
  async function (this: ConformanceWorld, credits: number) {
    const value = expectDeductionStated(this, credits);
    const charged = succeededIntentIds(await this.processor.entries());
    assert.equal(charged.length, 1, `one PaymentIntent succeeded for this request, got ${charged.join(', ') || 'none'}`);
    assert.equal(value.chargeId, charged[0], 'payment-response: chargeId is the PaymentIntent id');
  },
);

Then(
  'a payment-response on that 5xx answer, if any, states the deduction: the clientId and {int} credits remaining',
  HANDLER_FAILED,
  function (this: ConformanceWorld, credits: number) {
    const answer = answered(this.last);
    if (answer.headers['payment-response'] === undefined) {
      this.notes.push("the framework's answer to the handler that threw carries no payment-response");
      return;
    }
    expectDeductionStated(this, credits);
  },
);

Then('the handler ran exactly once for that request', HANDLER_FAILED, async function (this: ConformanceWorld) {
  const { requestId } = this.last;
  assert.ok(requestId !== undefined, 'the request carried no conformance-request-id');
  const runs = await runsOf(this.parameters.targetUrl, requestId, this.profile.handledPath);
  if (typeof runs === 'string') {
    const notice = `whether the handler ran was not checked: ${runs}`;
    this.notes.push(notice);
    this.attach(noticeBody(notice), NOTICE_MEDIA_TYPE);
    return;
  }
  if (runs === 0) throw new RequirementFailure('CR-4.7', `the price was deducted, but the handler never ran: ${describeExchange(this.last)}`);
  if (runs > 1) throw new RequirementFailure('CR-1.1', `the handler ran ${runs} times for one request: ${describeExchange(this.last)}`);
});

Then(
  'the price of {string} was taken exactly once: a spend on {string} leaves {int}',
  // The price taken once (CR-4.7); given back, it fails CR-13.27 on its own.
  'CR-4.7',
  async function (this: ConformanceWorld, failed: string, line: string, credits: number) {
    const price = this.route(failed).amount;
    const probe = this.route(requestLine(line).key);
    const exchange = await this.spend(line);
    const left = expectServed(exchange, probe.key, 'CR-6.2').creditsRemaining;
    const before = readable(exchange.answer?.paymentResponse);
    this.notes.push(`the spend on ${probe.key} after the failed handler left ${left} (${JSON.stringify(before)})`);
    if (left === credits) return;
    if (left === credits + price) {
      throw new RequirementFailure(
        'CR-13.27',
        `the price of ${failed} (${price}) was given back after its handler failed: a spend on ${probe.key} left ${left}, expected ${credits}. The deduction made before the handler stands when it fails; conformance runs leave a refund on handler errors off`,
      );
    }
    throw new RequirementFailure('CR-4.7', `the price of ${failed} (${price}) was not taken exactly once: a spend on ${probe.key} left ${left}, expected ${credits}`);
  },
);
