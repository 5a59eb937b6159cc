// Client checks of what the kit's scripted server received: payments, clientIds, how many requests a call sent, charges.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { Then } from '../../steps/define.ts';
import { firstOf } from '../../world/check.ts';
import { BROKEN_CLIENT_ID } from '../broken-headers.ts';
import { clientIdOf, describeRequest, describeRequests, paysWithCard } from '../call-queries.ts';
import type { OriginName } from '../ledger.ts';
import { PAYMENT_ERROR_CODES } from '../script.ts';
import { PAYMENT_METHOD, type ClientWorld } from '../world.ts';

Then(
  /^the server received the call's request again with a payment of (\d+) units$/,
  firstOf(['CR-16.2', 'CR-16.16'], 'CR-16.2'),
  function (this: ClientWorld, units: string) {
    const { specs, requests } = this.last;
    const [spec] = specs;
    assert.ok(spec);
    const paid = requests.find(paysWithCard);
    assert.ok(paid, `no request of the call carried a paymentMethodId:\n${describeRequests(requests)}`);
    const url = new URL(spec.url);
    assert.deepEqual(
      { method: paid.method, target: paid.target, body: paid.body },
      { method: spec.method, target: `${url.pathname}${url.search}`, body: spec.body ?? '' },
      'the paid request is not the call\'s request',
    );
    const payment = paid.payment ?? {};
    assert.equal(payment.paymentMethodId, PAYMENT_METHOD, 'the payment does not carry the callback\'s paymentMethodId');
    assert.ok(Number.isSafeInteger(payment.topUpAmount), `topUpAmount is not a safe integer: ${JSON.stringify(payment.topUpAmount)}`);
    assert.equal(payment.topUpAmount, Number(units), 'the payment does not carry the callback\'s topUpAmount');
  },
);

Then("the server received the call's request again with the headers the caller set", 'CR-16.2', function (this: ClientWorld) {
  const { specs, requests } = this.last;
  const [spec] = specs;
  assert.ok(spec);
  const paid = requests.find(paysWithCard);
  assert.ok(paid, `no request of the call carried a paymentMethodId:\n${describeRequests(requests)}`);
  const received = Object.fromEntries(Object.keys(spec.headers).map((name) => [name, paid.headers[name.toLowerCase()]]));
  assert.deepEqual(received, spec.headers, `the request that pays lost or changed headers the caller set:\n${describeRequest(paid)}`);
});

Then('no request carried a top-up below {int} units', 'CR-16.3', function (this: ClientWorld, minimum: number) {
  const below = this.server.requests.filter((request) => typeof request.payment?.topUpAmount === 'number' && request.payment.topUpAmount < minimum);
  assert.equal(below.length, 0, `requests with a topUpAmount below ${minimum}:\n${describeRequests(below)}`);
});

Then(
  /^the call was served by a deduction from the clientId server (A|B) gave$/,
  firstOf(['CR-16.4', 'CR-16.17'], 'CR-16.4'),
  function (this: ClientWorld, origin: OriginName) {
    const clientId = this.givenClientId(origin);
    const served = this.last.requests.some((request) => clientIdOf(request) === clientId && request.outcome === 'served');
    assert.ok(served, `no request of the call was served from the clientId ${clientId}:\n${describeRequests(this.last.requests)}`);
    assert.equal(this.last.reply.results[0]?.status, 200, `the call returned ${JSON.stringify(this.last.reply.results[0])}`);
  },
);

Then(
  /^the server charged (\d+) times? in all$/,
  firstOf(['CR-16.4', 'CR-16.8', 'CR-16.15', 'CR-16.17'], 'CR-16.4'),
  function (this: ClientWorld, count: string) {
    const { charges } = this.server;
    assert.equal(charges.length, Number(count), `the server charged ${charges.length} times: ${JSON.stringify(charges)}`);
  },
);

Then('the server received nothing of the call after the payment error', 'CR-16.5', function (this: ClientWorld) {
  const { requests } = this.last;
  const at = requests.findIndex((request) => (PAYMENT_ERROR_CODES as readonly string[]).includes(request.outcome));
  assert.ok(at >= 0, `the server sent no payment error in this call:\n${describeRequests(requests)}`);
  assert.equal(requests.length, at + 1, `the call sent more after the payment error:\n${describeRequests(requests)}`);
});

Then(
  /^the call sent (at most )?(\d+) requests?$/,
  firstOf(['CR-16.6', 'CR-16.12', 'CR-16.15'], 'CR-16.6'),
  function (this: ClientWorld, atMost: string | undefined, count: string) {
    const { requests } = this.last;
    const ok = atMost ? requests.length <= Number(count) : requests.length === Number(count);
    assert.ok(ok, `the call sent ${requests.length} requests, ${atMost ?? ''}${count} expected:\n${describeRequests(requests)}`);
  },
);

Then(
  'no request of the call carried a paymentMethodId',
  firstOf(['CR-16.6', 'CR-16.10', 'CR-16.13', 'CR-16.15'], 'CR-16.6'),
  function (this: ClientWorld) {
    const paid = this.last.requests.filter(paysWithCard);
    assert.equal(paid.length, 0, `requests of the call with a paymentMethodId:\n${describeRequests(paid)}`);
  },
);

Then('no request of the call carried a new payment after the broken answer', 'CR-16.13', function (this: ClientWorld) {
  const { requests } = this.last;
  const at = requests.findIndex((request) => request.outcome.includes('(broken'));
  assert.ok(at >= 0, `the server sent no broken answer in this call:\n${describeRequests(requests)}`);
  // The same payment sent again is one payment sent twice (CR-16.7's), not a payment made in answer to the broken header.
  const sent = requests.slice(0, at + 1).filter(paysWithCard);
  const after = requests.slice(at + 1).filter((request) => paysWithCard(request) && !sent.some((before) => isDeepStrictEqual(before.payment, request.payment)));
  assert.equal(after.length, 0, `the call paid after the broken answer:\n${describeRequests(requests)}`);
});

Then('no request carried a clientId from the broken answer', 'CR-16.13', function (this: ClientWorld) {
  const kept = this.last.requests.filter((request) => ['not-a-client-id', BROKEN_CLIENT_ID].includes(String(clientIdOf(request))));
  assert.equal(kept.length, 0, `the client kept the clientId of the broken answer:\n${describeRequests(kept)}`);
});

Then('exactly one request of the call carried a paymentMethodId', 'CR-16.7', function (this: ClientWorld) {
  const paid = this.last.requests.filter(paysWithCard);
  assert.equal(paid.length, 1, `the call sent ${paid.length} requests with a paymentMethodId:\n${describeRequests(this.last.requests)}`);
});

Then(/^the call's first request carried the clientId server (A|B) gave$/, 'CR-16.14', function (this: ClientWorld, origin: OriginName) {
  const [first] = this.last.requests;
  const clientId = this.givenClientId(origin);
  assert.ok(first !== undefined && clientIdOf(first) === clientId, `the call's first request did not carry the clientId ${clientId}:\n${describeRequests(this.last.requests)}`);
});

Then('server A received a payment and server B none', 'CR-16.11', function (this: ClientWorld) {
  const paid = this.server.requests.filter(paysWithCard);
  assert.ok(paid.some((request) => request.origin === 'A'), `server A received no payment within the limit:\n${describeRequests(this.server.requests)}`);
  const beyond = paid.filter((request) => request.origin === 'B');
  assert.equal(beyond.length, 0, `a payment beyond the spending limit was sent:\n${describeRequests(beyond)}`);
});

Then('a repeated request carried the same payment, with a requestId', 'CR-16.12', function (this: ClientWorld) {
  const [first, second] = this.last.requests;
  if (!first || !second) return;
  assert.ok(first.payment && second.payment, `a request was sent again without the same payment:\n${describeRequests(this.last.requests)}`);
  assert.ok(isDeepStrictEqual(first.payment, second.payment), `the repeat's payload differs from the first's:\n${describeRequests(this.last.requests)}`);
  const { requestId } = second.payment;
  assert.ok(typeof requestId === 'string' && requestId !== '', `a paid request was sent again without a requestId:\n${describeRequests(this.last.requests)}`);
});

Then(/^the call sent 1 request, with the clientId server (A|B) gave$/, 'CR-16.14', function (this: ClientWorld, origin: OriginName) {
  const { requests } = this.last;
  const clientId = this.givenClientId(origin);
  const [only] = requests;
  assert.ok(requests.length === 1 && only !== undefined && clientIdOf(only) === clientId, `the call did not reach the server once with the clientId ${clientId}:\n${describeRequests(requests)}`);
});
