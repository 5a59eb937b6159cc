// The routing corpus (CR-4.9, CR-4.10): variants of the gated routes' targets, each sent unpaid and paid, and the balances around them.
import assert from 'node:assert/strict';
import { encode, readable } from './base64-json.ts';
import type { Exchange } from './exchange.ts';
import { describeExchange } from './judge.ts';
import { routeKeyOf } from './request-line.ts';
import type { ConformanceWorld } from './world.ts';

/**
 * One variant: its unpaid and paid exchanges, and per currency the balance before the paid one and after it (read by a
 * probe spend in that currency: balances are per currency, CR-6.8).
 */
export interface CorpusVariant {
  unpaid: Exchange;
  paid: Exchange;
  before: Record<string, number>;
  after: Record<string, number> | undefined;
}

/** Balances per currency, as a probe reads them. */
type Balances = Record<string, number>;

/** Whether `value` is a JSON object (not null, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The price of a gated route key (HEAD follows GET); undefined when the profile has no such route. */
export function priceOf(world: ConformanceWorld, key: string): number | undefined {
  try {
    return world.route(key).amount;
  } catch {
    return undefined;
  }
}

/** The route key the request names as CR-4.2 reads it (HEAD follows GET), if gated. */
export function gatedKeyOf(world: ConformanceWorld, exchange: Exchange): string | undefined {
  const key = routeKeyOf(exchange);
  return priceOf(world, key) === undefined ? undefined : key;
}

/** The gated route key whose handler answered `exchange` (any 2xx to HEAD counts), or undefined when none did. */
function gatedHandler(world: ConformanceWorld, exchange: Exchange): string | undefined {
  const answer = exchange.answer;
  if (!answer || answer.status < 200 || answer.status > 299) return undefined;
  if (exchange.request.method === 'HEAD') return routeKeyOf(exchange);
  const route = isObject(answer.json) ? answer.json.route : undefined;
  return typeof route === 'string' && world.expect.routeKeys.includes(route) ? route : undefined;
}

/** The `creditsRemaining` of a successful payment-response, if the answer carries one. */
function creditsOf(exchange: Exchange): number | undefined {
  const value = readable(exchange.answer?.paymentResponse);
  return value !== undefined && value.success === true && typeof value.creditsRemaining === 'number' ? value.creditsRemaining : undefined;
}

/** Units deducted per currency between two probe readings. */
export function deductions(before: Balances, after: Balances): Balances {
  return Object.fromEntries(Object.entries(before).map(([currency, units]) => [currency, units - (after[currency] ?? units)]));
}

/** `500 usd units` (the currencies deducted from, or `0 units`), for findings. */
function describeUnits(units: Balances): string {
  const moved = Object.entries(units).filter(([, amount]) => amount !== 0);
  return moved.length === 0 ? '0 units' : `${moved.map(([currency, amount]) => `${amount} ${currency}`).join(' and ')} units`;
}

/** Per currency of the profile, its cheapest gated route: the balance probes. */
function probeKeys(world: ConformanceWorld): Map<string, string> {
  const keys = new Map<string, string>();
  for (const key of world.expect.routeKeys) {
    const { currency, amount } = world.route(key);
    const known = keys.get(currency);
    if (known === undefined || amount < world.route(known).amount) keys.set(currency, key);
  }
  return keys;
}

/**
 * Sends each of `targets` with `method` and `headers`, unpaid then spending the card's clientId; after every paid
 * variant, one probe spend per currency reads each balance before the probe (its creditsRemaining plus its price).
 */
export async function sendCorpus(world: ConformanceWorld, method: string, headers: Record<string, string>, targets: readonly string[]): Promise<CorpusVariant[]> {
  const spend = { payment: encode(JSON.stringify({ clientId: world.card().clientId })) };
  const keys = probeKeys(world);
  const probe = async (): Promise<{ before: Balances; left: Balances } | undefined> => {
    const before: Balances = {};
    const left: Balances = {};
    for (const [currency, key] of keys) {
      const [probeMethod = 'GET', probeTarget = '/'] = key.split(' ');
      const credits = creditsOf(await world.target.send({ method: probeMethod, target: probeTarget, headers: spend }, { setup: true }));
      if (credits === undefined) return undefined;
      before[currency] = credits + world.route(key).amount;
      left[currency] = credits;
    }
    return { before, left };
  };
  let balance = (await probe())?.left;
  const variants: CorpusVariant[] = [];
  for (const target of targets) {
    assert.ok(balance !== undefined, `the balance probes ${[...keys.values()].join(', ')} with the clientId were not all served`);
    const unpaid = await world.target.send({ method, target, headers });
    const paid = await world.target.send({ method, target, headers: { ...headers, ...spend } });
    const read = await probe();
    variants.push({ unpaid, paid, before: balance, after: read?.before });
    balance = read?.left;
  }
  return variants;
}

/** Where the gate and the router disagree on a variant (CR-4.9): a handler run unpaid, a price without its handler's answer. */
export function corpusFindings(world: ConformanceWorld, { unpaid, paid, before, after }: CorpusVariant): string[] {
  const findings: string[] = [];
  const bypass = gatedHandler(world, unpaid);
  if (bypass) findings.push(`unpaid, the handler of ${bypass} answered: ${describeExchange(unpaid)}`);
  if (after === undefined) return [...findings, `after ${paid.request.method} ${paid.request.target}, the balance could not be read`];
  const handler = gatedHandler(world, paid);
  const credits = creditsOf(paid);
  const deducted = deductions(before, after);
  const total = Object.values(deducted).reduce((sum, units) => sum + units, 0);
  if (credits === undefined) {
    if (handler) findings.push(`paid, the handler of ${handler} answered without payment-response: ${describeExchange(paid)}`);
    if (total !== 0) findings.push(`${describeUnits(deducted)} were deducted without the gated handler's answer: ${describeExchange(paid)}`);
    return findings;
  }
  const price = handler === undefined ? undefined : priceOf(world, handler);
  if (handler === undefined || price === undefined) return [...findings, `${describeUnits(deducted)} were deducted, but no gated handler answered: ${describeExchange(paid)}`];
  const { currency } = world.route(handler);
  const elsewhere = Object.entries(deducted).filter(([other, units]) => other !== currency && units !== 0);
  if (deducted[currency] !== price || credits !== after[currency] || elsewhere.length > 0) {
    findings.push(`the handler of ${handler} answered, ${describeUnits(deducted)} were deducted (price ${price} ${currency}, creditsRemaining ${credits}, balance ${after[currency]}): ${describeExchange(paid)}`);
  }
  return findings;
}
