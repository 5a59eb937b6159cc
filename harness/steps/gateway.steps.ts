// Steps of a gateway in front of the kit's controlled upstream (capability `gateway`, spec §15): upstream failures and refunds (CR-15.3), headers (CR-15.2), targets (CR-15.1).
import assert from 'node:assert/strict';
import { encode, readable } from '../world/base64-json.ts';
import { RequirementFailure } from '../world/check.ts';
import type { UpstreamArrival } from '../world/controlled-upstream.ts';
import type { Exchange } from '../world/exchange.ts';
import type { GatewayFailure } from '../world/gateway.ts';
import { newRequestId, REQUEST_ID_HEADER } from '../world/http-client.ts';
import { answered, describeExchange, expectServed, kindOf } from '../world/judge.ts';
import { requestLine } from '../world/request-line.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then, When } from './define.ts';

/** The failures the scenarios name, as the upstream arms them. */
const FAILURES: Readonly<Record<string, GatewayFailure>> = {
  'refuses connections': 'refuse',
  'resets the connection': 'reset',
  'closes the connection without answering': 'close',
  'sends an answer that is not HTTP': 'invalid',
  'does not answer': 'stall',
};

/** The exchanges of the scenario whose upstream failed, by the world (one scenario at a time). */
const failedExchanges = new WeakMap<ConformanceWorld, Exchange>();

/** The one header value of a field as it reached the upstream (repeated fields joined). */
function headerOf(arrival: UpstreamArrival, name: string): string | undefined {
  const value = arrival.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The arrivals of the last request at the upstream; a served request that never reached it fails `ids`. */
function arrivalsOfLast(world: ConformanceWorld, ids: string): UpstreamArrival[] {
  const arrivals = world.gateway.arrivals(world.last);
  if (arrivals.length === 0) throw new RequirementFailure(ids, `the request never reached the upstream: ${describeExchange(world.last)}`);
  return arrivals;
}

/** The address the kit's requests come from, as the gateway sees it (the target listens on 127.0.0.1). */
const KIT_ADDRESSES = new Set(['127.0.0.1', '::ffff:127.0.0.1']);

/** X-Forwarded-For must be `prior` (if any), then the kit's address; Proto `proto`; Host the Host the kit sent. */
function expectForwarded(world: ConformanceWorld, prior: string | undefined, proto: string): void {
  const host = new URL(world.parameters.targetUrl).host;
  for (const arrival of arrivalsOfLast(world, 'CR-15.2')) {
    const chain = (headerOf(arrival, 'x-forwarded-for') ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
    const expected = prior === undefined ? 1 : 2;
    assert.ok(
      chain.length === expected && (prior === undefined || chain[0] === prior) && KIT_ADDRESSES.has(chain[chain.length - 1] ?? ''),
      `X-Forwarded-For towards the upstream is the received list with the client's address appended: expected ${prior === undefined ? '' : `"${prior}, "`}127.0.0.1, got ${JSON.stringify(headerOf(arrival, 'x-forwarded-for'))}`,
    );
    assert.equal(headerOf(arrival, 'x-forwarded-proto'), proto, 'X-Forwarded-Proto towards the upstream');
    assert.equal(headerOf(arrival, 'x-forwarded-host'), host, 'X-Forwarded-Host towards the upstream is the Host the client sent');
  }
}

When(
  /^I send the payment payload '(.*)' to "(.*)", and the upstream (refuses connections|resets the connection|closes the connection without answering|sends an answer that is not HTTP|does not answer)$/,
  'CR-15.3',
  async function (this: ConformanceWorld, payload: string, line: string, failure: string) {
    const armed = FAILURES[failure];
    assert.ok(armed !== undefined, `unknown upstream failure: ${failure}`);
    failedExchanges.set(this, await this.gateway.sendFailing(line, payload, armed));
  },
  { timeout: 45_000 },
);

Then('the gateway answers {int} itself', 'CR-15.3', function (this: ConformanceWorld, status: number) {
  const exchange = this.last;
  if (!exchange.answer) throw new RequirementFailure('CR-15.3', `the gateway gave no answer when its upstream failed (it answers 502 or 504 itself): ${describeExchange(exchange)}`);
  assert.equal(exchange.answer.status, status, `the upstream gave no answer: the gateway answers ${status} itself, got ${kindOf(exchange)}: ${describeExchange(exchange)}`);
});

When('the upstream answers again', 'CR-15.3', async function (this: ConformanceWorld) {
  await this.gateway.answersAgain();
});

Then('the retry is served and deducted: creditsRemaining is {int}', 'CR-15.3', function (this: ConformanceWorld, credits: number) {
  const key = this.handlerKey(this.last);
  const served = expectServed(this.last, key, 'CR-15.3');
  const price = this.route(key).amount;
  const given = served.creditsRemaining === credits - price ? `: the balance before the retry was ${credits}, not ${credits + price}, so the failed request's price was not given back` : '';
  assert.equal(served.creditsRemaining, credits, `the failed request's deduction was given back, so its retry is deducted once${given}`);
});

Then('the upstream ran the handler of the retry once, and never for the failed request', 'CR-15.3', function (this: ConformanceWorld) {
  const failed = failedExchanges.get(this);
  assert.ok(failed, 'the scenario sent no request whose upstream failed');
  assert.equal(this.gateway.runs(failed), 0, 'the upstream failed before the handler: it never ran for the failed request');
  assert.equal(this.gateway.runs(this.last), 1, "the retry's handler ran exactly once");
});

Then('the repeat of the retry is served free: creditsRemaining is {int}', 'CR-15.3', function (this: ConformanceWorld, credits: number) {
  const answer = answered(this.last);
  const key = this.handlerKey(this.last);
  if (answer.status !== 200) {
    throw new RequirementFailure(
      'CR-15.3',
      `the retry's repeat (same requestId) is served without a deduction, got ${kindOf(this.last)}: the retry was served as the repeat of the failed request, whose deduction and request id were not given back (${describeExchange(this.last)})`,
    );
  }
  assert.equal(expectServed(this.last, key, 'CR-15.3').creditsRemaining, credits, 'the repeat is served from the balance, nothing deducted');
});

When('I spend with the clientId on {string}, sending X-Forwarded-For {string}', 'CR-15.2', async function (this: ConformanceWorld, line: string, prior: string) {
  await this.spend(line, 'the card', { headers: { 'x-forwarded-for': prior } });
});

When(
  'I spend with the clientId on {string}, sending {string} and {string}, and the upstream answers with a payment-response of its own',
  'CR-15.2',
  async function (this: ConformanceWorld, line: string, first: string, second: string) {
    const headers: Record<string, string> = {};
    for (const field of [first, second]) {
      const at = field.indexOf(':');
      headers[field.slice(0, at).trim()] = field.slice(at + 1).trim();
    }
    const requestId = newRequestId();
    const own = { success: true, creditsRemaining: 123456789, clientId: 'f'.repeat(64) };
    this.gateway.upstream.answerWith(requestId, { 'payment-response': encode(JSON.stringify(own)) });
    await this.spend(line, 'the card', { headers: { ...headers, [REQUEST_ID_HEADER]: requestId } });
  },
);

Then('the upstream received the request without a payment header', 'CR-15.2', function (this: ConformanceWorld) {
  for (const arrival of arrivalsOfLast(this, 'CR-15.2')) {
    assert.equal(arrival.headers.payment, undefined, "the client's payment header is not forwarded to the upstream");
  }
});

Then(
  "the upstream received X-Forwarded-For {string} followed by the kit's address, X-Forwarded-Proto {string} and X-Forwarded-Host the kit's Host",
  'CR-15.2',
  function (this: ConformanceWorld, prior: string, proto: string) {
    expectForwarded(this, prior, proto);
  },
);

Then(
  "the upstream received X-Forwarded-For the kit's address, X-Forwarded-Proto {string} and X-Forwarded-Host the kit's Host",
  'CR-15.2',
  function (this: ConformanceWorld, proto: string) {
    expectForwarded(this, undefined, proto);
  },
);

Then("the answer carries one payment-response, the gate's: creditsRemaining is {int}", 'CR-15.2', function (this: ConformanceWorld, credits: number) {
  const answer = answered(this.last);
  const value = answer.headers['payment-response'];
  assert.ok(typeof value === 'string', `the answer carries exactly one payment-response (the gate's replaces the upstream's), got ${JSON.stringify(value)}`);
  const decoded = readable(answer.paymentResponse);
  assert.equal(decoded?.clientId, this.card().clientId, "payment-response is the gate's: the card's clientId, not the upstream's");
  assert.equal(decoded?.creditsRemaining, credits, "payment-response is the gate's: the balance after the deduction");
});

Then('the upstream received no {string} header', 'CR-15.2', function (this: ConformanceWorld, name: string) {
  for (const arrival of arrivalsOfLast(this, 'CR-15.2')) {
    assert.equal(arrival.headers[name.toLowerCase()], undefined, `a field the client's Connection header names is hop-by-hop: ${name} is not forwarded`);
  }
});

Then('the upstream received {string}', 'CR-15.1', function (this: ConformanceWorld, expected: string) {
  const arrivals = arrivalsOfLast(this, 'CR-15.1');
  assert.deepEqual(arrivals.map((arrival) => `${arrival.method} ${arrival.target}`), [expected], 'the request line that reached the upstream');
});

Then(
  'it was served by the upstream and deducted once, or refused with nothing deducted: after a balance of {int}, a spend on {string} tells',
  'CR-4.7',
  async function (this: ConformanceWorld, balance: number, line: string) {
    const first = this.last;
    const key = this.handlerKey(first);
    const served = first.answer !== undefined && first.answer.status >= 200 && first.answer.status <= 299 && first.answer.paymentResponse !== undefined;
    if (served) {
      assert.equal(this.gateway.runs(first), 1, `the gateway served the request with a payment-response, so the upstream's handler ran once: ${describeExchange(first)}`);
    }
    const probe = this.route(requestLine(line).key);
    const left = expectServed(await this.spend(line), probe.key, 'CR-4.7').creditsRemaining;
    const expected = balance - (served ? this.route(key).amount : 0) - probe.amount;
    assert.equal(left, expected, served ? 'the served request was deducted once' : `the request was not served (${kindOf(first)}), so nothing was deducted for it`);
  },
);
