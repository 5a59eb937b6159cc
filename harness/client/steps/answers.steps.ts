// Client checks of what the driver reported: what each call returned to the caller and what the callback received.
import assert from 'node:assert/strict';
import { Then } from '../../steps/define.ts';
import { checkFor, firstOf } from '../../world/check.ts';
import { SCRIPTED_MESSAGES } from '../answers.ts';
import { reportedPaymentError } from '../call-queries.ts';
import type { CallbackRecord, CallResult, CallSpec } from '../driver-replies.ts';
import type { OriginName } from '../ledger.ts';
import { PRICED_ROUTES, PUBLISHABLE_KEY } from '../routes.ts';
import type { ClientWorld } from '../world.ts';

const show = (value: unknown): string => JSON.stringify(value);

/** The handler's answer of a call: the echoed body for `POST /api/echo`, else `{"route": "<METHOD> <path>"}`. */
function assertHandlerAnswer(spec: CallSpec, result: CallResult): void {
  assert.equal(result.status, 200, `the call ${spec.method} ${spec.url} returned ${show(result)}, not the handler's 200`);
  const url = new URL(spec.url);
  if (spec.method === 'POST') assert.equal(result.body, spec.body, 'the call returned another body than the one the handler echoed');
  else assert.deepEqual(JSON.parse(result.body ?? 'null'), { route: `${spec.method} ${url.pathname}` }, 'the call returned another body than the handler\'s');
}

/** The JSON types of what the callback receives (CR-16.1): the url, the stripe element's four values and the error. */
const CALLBACK_TYPES = { url: 'string', amount: 'number', minTopUp: 'number', currency: 'string', publishableKey: 'string', error: 'string or null' };

/** The JSON type of each member of a callback record, as {@link CALLBACK_TYPES} names them. */
function typesOf(asked: CallbackRecord): Record<keyof CallbackRecord, string> {
  const type = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
  const error = asked.error === null || typeof asked.error === 'string' ? 'string or null' : type(asked.error);
  return { url: type(asked.url), amount: type(asked.amount), minTopUp: type(asked.minTopUp), currency: type(asked.currency), publishableKey: type(asked.publishableKey), error };
}

Then(
  /^the callback received the challenge of (GET|POST) (\S+) on server (A|B)$/,
  firstOf(['CR-16.1', 'CR-16.16'], 'CR-16.1'),
  function (this: ClientWorld, method: string, path: string, origin: OriginName) {
    const route = PRICED_ROUTES[`${method} ${path}`];
    assert.ok(route, `no priced route ${method} ${path}`);
    const [asked] = this.last.reply.callbacks;
    assert.ok(asked, 'the callback was not asked');
    // The values as the driver reported them: handed to the callback with another type than the challenge's (an amount
    // "500"), they break CR-16.1 whatever the scenario, before their values are compared.
    checkFor('CR-16.1', () => assert.deepEqual(typesOf(asked), CALLBACK_TYPES, `the callback received values of other JSON types than the challenge's: ${show(asked)}`));
    const url = new URL(String(asked.url)).href;
    assert.equal(url, new URL(this.url(origin, path)).href, 'the callback got another url than the call\'s');
    const expected = { amount: route.amount, minTopUp: route.minTopUp, currency: route.currency, publishableKey: PUBLISHABLE_KEY, error: null };
    const received = { amount: asked.amount, minTopUp: asked.minTopUp, currency: asked.currency, publishableKey: asked.publishableKey, error: asked.error };
    assert.deepEqual(received, expected, 'the callback received other payment requirements than the challenge\'s stripe element');
  },
);

Then(
  /^the calls? returned the handler's answer$/,
  firstOf(['CR-16.2', 'CR-16.4', 'CR-16.8', 'CR-16.14', 'CR-16.16', 'CR-16.17'], 'CR-16.2'),
  function (this: ClientWorld) {
    const { specs, reply } = this.last;
    for (const [index, spec] of specs.entries()) assertHandlerAnswer(spec, reply.results[index] as CallResult);
  },
);

Then('the call returned status {int} and the server\'s body', 'CR-16.6', function (this: ClientWorld, status: number) {
  const [spec] = this.last.specs;
  const [result] = this.last.reply.results;
  assert.ok(spec && result);
  assert.equal(result.status, status, `the call returned ${show(result)}`);
  assert.deepEqual(JSON.parse(result.body ?? 'null'), { route: `${spec.method} ${new URL(spec.url).pathname}` }, 'the call returned another body than the server\'s');
});

Then(
  /^the call reported the payment error "([a-z_]+)"( with the server's message)?$/,
  firstOf(['CR-16.5', 'CR-16.12'], 'CR-16.5'),
  function (this: ClientWorld, code: string, withMessage: string | undefined) {
    const [result] = this.last.reply.results;
    assert.ok(result);
    const reported = reportedPaymentError(result);
    assert.ok(reported, `the call reported no payment error: ${show(result)}`);
    assert.equal(reported.code, code, `the call reported the code ${show(reported.code)}, the server sent ${code}`);
    const message = SCRIPTED_MESSAGES[code] ?? '';
    if (withMessage) assert.ok(reported.message.includes(message), `the call reported the message ${show(reported.message)}; the server sent ${show(message)}`);
  },
);

Then("the call returned the challenge's 402 answer", firstOf(['CR-16.7', 'CR-16.10', 'CR-16.15'], 'CR-16.15'), function (this: ClientWorld) {
  const [result] = this.last.reply.results;
  assert.ok(result);
  const returned = result.status === 402 || result.error?.kind === 'payment';
  assert.ok(returned, `the call did not return the challenge's 402 (nor an error naming it): ${show(result)}`);
});

Then('the call reported an error of kind {string}', firstOf(['CR-16.11', 'CR-16.13'], 'CR-16.13'), function (this: ClientWorld, kind: string) {
  const [result] = this.last.reply.results;
  assert.ok(result);
  assert.equal(result.error?.kind, kind, `the call did not report an error of kind ${kind}: ${show(result)}`);
});

Then('the callback was asked once', 'CR-16.7', function (this: ClientWorld) {
  const asked = this.last.reply.callbacks;
  assert.equal(asked.length, 1, `the callback was asked ${asked.length} times: ${show(asked)}`);
});

Then('the callback received every insufficient_credits challenge the server sent', 'CR-16.10', function (this: ClientWorld) {
  const sent = this.last.requests.filter((request) => request.outcome === 'insufficient_credits').length;
  const received = this.last.reply.callbacks.filter((asked) => asked.error === 'insufficient_credits').length;
  assert.ok(received >= Math.min(sent, 1), `the server sent ${sent} insufficient_credits challenges; the callback received ${received}: ${show(this.last.reply.callbacks)}`);
});
