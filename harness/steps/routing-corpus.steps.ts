// The routing corpus (CR-4.9, CR-4.10): variants of the gated routes' targets, each sent unpaid and paid, judged on agreement.
import assert from 'node:assert/strict';
import { Then, When } from '@cucumber/cucumber';
import { encode, readable } from '../world/base64-json.ts';
import { checkFor } from '../world/check.ts';
import { answerOf, singleHeader, type Exchange } from '../world/exchange.ts';
import { describeExchange, expectChallenge, expectNotGated, expectServed } from '../world/judge.ts';
import type { ConformanceWorld } from '../world/world.ts';

/** The `error` code of the 400 answer to an ambiguous request target (CR-4.10). */
const AMBIGUOUS = 'ambiguous_request_target';

/**
 * One variant: its unpaid and paid exchanges, and per currency the balance before the paid one and after it (read by a
 * probe spend in that currency: balances are per currency, CR-6.8).
 */
interface Variant {
  unpaid: Exchange;
  paid: Exchange;
  before: Record<string, number>;
  after: Record<string, number> | undefined;
}

const variantsOf = new WeakMap<ConformanceWorld, Variant[]>();
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The gated route key whose handler answered `exchange` (any 2xx to HEAD counts), or undefined when none did. */
function gatedHandler(world: ConformanceWorld, exchange: Exchange): string | undefined {
  const answer = exchange.answer;
  if (!answer || answer.status < 200 || answer.status > 299) return undefined;
  if (exchange.request.method === 'HEAD') return `HEAD ${exchange.path}`;
  const route = isObject(answer.json) ? answer.json.route : undefined;
  return typeof route === 'string' && world.expect.routeKeys.includes(route) ? route : undefined;
}

/** The price of a gated route key (HEAD follows GET); undefined when the profile has no such route. */
function priceOf(world: ConformanceWorld, key: string): number | undefined {
  try {
    return world.route(key).amount;
  } catch {
    return undefined;
  }
}

/** The `creditsRemaining` of a successful payment-response, if the answer carries one. */
function creditsOf(exchange: Exchange): number | undefined {
  const value = readable(exchange.answer?.paymentResponse);
  return value !== undefined && value.success === true && typeof value.creditsRemaining === 'number' ? value.creditsRemaining : undefined;
}

/** Units deducted per currency between two probe readings. */
function deductions(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(before).map(([currency, units]) => [currency, units - (after[currency] ?? units)]));
}

/** `500 usd units` (the currencies deducted from, or `0 units`), for findings. */
function describeUnits(units: Record<string, number>): string {
  const moved = Object.entries(units).filter(([, amount]) => amount !== 0);
  return moved.length === 0 ? '0 units' : `${moved.map(([currency, amount]) => `${amount} ${currency}`).join(' and ')} units`;
}

/** The route key the request names as CR-4.2 reads it (HEAD follows GET), if gated. */
const keyOf = (world: ConformanceWorld, exchange: Exchange): string | undefined => {
  const key = `${exchange.request.method} ${exchange.path}`;
  return priceOf(world, key) === undefined ? undefined : key;
};

When(
  /^I send ([A-Z]+)\s+(?:with "([^":]+): ([^"]*)"\s+)?to each target unpaid, then spending the clientId: (.+)$/,
  async function (this: ConformanceWorld, method: string, header: string | undefined, value: string | undefined, list: string) {
    const headers: Record<string, string> = header === undefined ? {} : { [header]: value ?? '' };
    const spend = { payment: encode(JSON.stringify({ clientId: this.card().clientId })) };
    // The balance probes: per currency, a spend on its cheapest gated route, after every paid variant.
    const probeKeys = new Map<string, string>();
    for (const key of this.expect.routeKeys) {
      const { currency, amount } = this.route(key);
      const known = probeKeys.get(currency);
      if (known === undefined || amount < this.route(known).amount) probeKeys.set(currency, key);
    }
    // A probe reads each balance before it (its creditsRemaining plus its price) and leaves its creditsRemaining.
    const probe = async (): Promise<{ before: Record<string, number>; left: Record<string, number> } | undefined> => {
      const before: Record<string, number> = {};
      const left: Record<string, number> = {};
      for (const [currency, key] of probeKeys) {
        const [probeMethod = 'GET', probeTarget = '/'] = key.split(' ');
        const credits = creditsOf(await this.target.send({ method: probeMethod, target: probeTarget, headers: spend }, { setup: true }));
        if (credits === undefined) return undefined;
        before[currency] = credits + this.route(key).amount;
        left[currency] = credits;
      }
      return { before, left };
    };
    let balance = (await probe())?.left;
    const variants: Variant[] = [];
    for (const target of list.trim().split(/\s+/)) {
      assert.ok(balance !== undefined, `the balance probes ${[...probeKeys.values()].join(', ')} with the clientId were not all served`);
      const unpaid = await this.target.send({ method, target, headers });
      const paid = await this.target.send({ method, target, headers: { ...headers, ...spend } });
      const read = await probe();
      variants.push({ unpaid, paid, before: balance, after: read?.before });
      balance = read?.left;
    }
    variantsOf.set(this, variants);
  },
);

Then('no gated handler answered unpaid, and every deducted price came with its handler\'s answer', function (this: ConformanceWorld) {
  const findings: string[] = [];
  for (const { unpaid, paid, before, after } of variantsOf.get(this) ?? []) {
    const bypass = gatedHandler(this, unpaid);
    if (bypass) findings.push(`unpaid, the handler of ${bypass} answered: ${describeExchange(unpaid)}`);
    const handler = gatedHandler(this, paid);
    const credits = creditsOf(paid);
    if (after === undefined) {
      findings.push(`after ${paid.request.method} ${paid.request.target}, the balance could not be read`);
      continue;
    }
    const deducted = deductions(before, after);
    const total = Object.values(deducted).reduce((sum, units) => sum + units, 0);
    if (credits === undefined) {
      if (handler) findings.push(`paid, the handler of ${handler} answered without payment-response: ${describeExchange(paid)}`);
      if (total !== 0) findings.push(`${describeUnits(deducted)} were deducted without the gated handler's answer: ${describeExchange(paid)}`);
      continue;
    }
    const price = handler === undefined ? undefined : priceOf(this, handler);
    if (handler === undefined || price === undefined) {
      findings.push(`${describeUnits(deducted)} were deducted, but no gated handler answered: ${describeExchange(paid)}`);
      continue;
    }
    const { currency } = this.route(handler);
    const elsewhere = Object.entries(deducted).filter(([other, units]) => other !== currency && units !== 0);
    if (deducted[currency] !== price || credits !== after[currency] || elsewhere.length > 0) {
      findings.push(`the handler of ${handler} answered, ${describeUnits(deducted)} were deducted (price ${price} ${currency}, creditsRemaining ${credits}, balance ${after[currency]}): ${describeExchange(paid)}`);
    }
  }
  checkFor('CR-4.9', () => assert.deepEqual(findings, [], `the gate and the router disagree on ${findings.length} answers:\n${findings.join('\n')}`));
});

/** The 400 answer of CR-4.10: JSON `{"error": "ambiguous_request_target", "message": "…"}`, no protocol header. */
function expectRefused(exchange: Exchange): void {
  const answer = answerOf(exchange);
  assert.equal(answer.status, 400, `an ambiguous request target is answered 400: ${describeExchange(exchange)}`);
  assert.equal(answer.headers['payment-required'], undefined, `the 400 carries no payment-required: ${describeExchange(exchange)}`);
  assert.equal(answer.headers['payment-response'], undefined, `the 400 carries no payment-response: ${describeExchange(exchange)}`);
  if (exchange.request.method === 'HEAD') return;
  assert.match(singleHeader(answer, 'content-type') ?? '', /^application\/json\s*(;|$)/i, `the 400 is JSON: ${describeExchange(exchange)}`);
  const body = isObject(answer.json) ? answer.json : {};
  assert.equal(body.error, AMBIGUOUS, `the 400's error is ${AMBIGUOUS}: ${describeExchange(exchange)}`);
  assert.ok(typeof body.message === 'string' && body.message.trim() !== '', `the 400 has a non-empty message: ${describeExchange(exchange)}`);
}

Then(/^every variant was (refused as ambiguous|gated as the route it names|free|gated or free, as the method is read)$/, function (this: ConformanceWorld, verdict: string) {
  for (const { unpaid, paid, before, after } of variantsOf.get(this) ?? []) {
    if (verdict === 'refused as ambiguous') {
      checkFor('CR-4.10', () => {
        expectRefused(unpaid);
        expectRefused(paid);
      });
    } else if (verdict === 'gated as the route it names') {
      // HEAD on a GET path is gated only by credit402's decision that HEAD follows GET.
      checkFor(unpaid.request.method === 'HEAD' ? 'CR-4.8' : ['CR-4.9', 'CR-13.25'], () => {
        const key = keyOf(this, unpaid);
        assert.ok(key, `${unpaid.request.method} ${unpaid.path} names no gated route: the corpus row is wrong`);
        expectChallenge(unpaid, this.expect.challenge(key, unpaid.path), 'plain');
        expectServed(paid, key);
        const { currency } = this.route(key);
        assert.equal(deductions(before, after ?? before)[currency], priceOf(this, key), `a paid ${key} is deducted its price in ${currency}: ${describeExchange(paid)}`);
      });
    } else if (verdict === 'free') {
      checkFor('CR-4.9', () => {
        expectNotGated(unpaid);
        expectNotGated(paid);
      });
    }
  }
});
