// Many clients at once (CR-6.2, CR-6.3): cards of their own, some funded with balances of their own, spending together.
import { encode } from './base64-json.ts';
import assert from 'node:assert/strict';
import { checksFor, RequirementFailure } from './check.ts';
import { withConcurrency } from './concurrency.ts';
import type { Exchange, OutgoingRequest } from './exchange.ts';
import { describeExchange, expectChallenge, expectServed, handlerRan, kindOf, servedForSetUp } from './judge.ts';
import { requestLine } from './request-line.ts';
import type { Card, ConformanceWorld } from './world.ts';

/** One client of the crowd: its card and its balance in the route's currency (undefined: it never paid, so it has no record). */
export interface CrowdClient {
  card: Card;
  balance: number | undefined;
  /** Its number in the crowd, for messages. */
  index: number;
}

/** Cards created at once while setting the crowd up (at the processor only). */
const CARD_CONCURRENCY = 4;

/** Units between two funded clients' top-ups (one minor unit): every funded client has a balance no other one has. */
const TOP_UP_STEP = 100;

/**
 * Makes `funded` + `unpaid` new cards. `funded` of them, alternating with the others as far as both last, pay once
 * for `line` with a top-up of their own (the route's minimum plus a multiple of 100 units), so that each has a balance
 * no other client has; the others never pay.
 * A first payment that is not served, or leaves another balance than its top-up minus the price, breaks the set-up
 * (CR-7.13).
 */
export async function fundCrowd(world: ConformanceWorld, funded: number, unpaid: number, line: string): Promise<void> {
  const route = world.route(requestLine(line).key);
  const cards: Card[] = new Array(funded + unpaid);
  await withConcurrency([...cards.keys()], CARD_CONCURRENCY, async (index) => {
    cards[index] = await world.createCard();
  });
  world.crowd = cards.map((card, index) => ({ card, index, balance: undefined }));
  // Funded and unfunded clients alternate (as far as both last), so that neighbours in the batch differ.
  const even = world.crowd.filter((client) => client.index % 2 === 0);
  const odd = world.crowd.filter((client) => client.index % 2 === 1);
  // One payment after the other: the set-up is not the scenario's concurrency, and judges nothing of it.
  for (const client of [...even, ...odd].slice(0, funded)) {
    const topUpAmount = route.minTopUp + TOP_UP_STEP * client.index;
    const { method, target } = requestLine(line);
    const payment = encode(JSON.stringify({ paymentMethodId: client.card.paymentMethodId, topUpAmount }));
    const paid = await world.target.send({ method, target, headers: { payment } }, { setup: true });
    const response = servedForSetUp(paid, route.key, 'CR-7.13');
    if (response.creditsRemaining !== topUpAmount - route.amount) {
      throw new RequirementFailure('CR-7.13', `client ${client.index} paid ${topUpAmount} for ${route.key} and was left ${response.creditsRemaining}, expected ${topUpAmount - route.amount}`);
    }
    client.balance = response.creditsRemaining;
  }
}

/** The request each client of the crowd sends: `line`, paying with its clientId. */
function spendRequests(world: ConformanceWorld, line: string): OutgoingRequest[] {
  const { method, target } = requestLine(line);
  return world.crowd.map(({ card }) => ({ method, target, headers: { payment: encode(JSON.stringify({ clientId: card.clientId })) } }));
}

/** Every client of the crowd spends on `line` with its clientId, all in flight together; the answers become the batch. */
export async function spendTogether(world: ConformanceWorld, line: string): Promise<void> {
  await world.processor.markRequest();
  world.batch = await world.target.sendTogether(spendRequests(world, line));
  await world.processor.afterAnswer();
}

/** Every client of the crowd spends on `line` with its clientId, one after the other; the answers become the batch. */
export async function spendInTurn(world: ConformanceWorld, line: string): Promise<void> {
  await world.processor.markRequest();
  world.batch = [];
  for (const request of spendRequests(world, line)) world.batch.push(await world.target.send(request));
  await world.processor.afterAnswer();
}

/**
 * Judges the batch, one answer per client of the crowd: a client whose balance pays the price of `key` is served with
 * its own clientId and its own balance minus the price (CR-6.2), which becomes its balance; any other gets the
 * insufficient-credits challenge (CR-6.3). Every client is judged; the failed checks of both requirements are thrown
 * together (a client served with another's outcome breaks both).
 */
export function expectOwnOutcomes(world: ConformanceWorld, key: string): void {
  const route = world.route(key);
  const challenge = world.expect.challenge(key);
  const wrong: Array<{ id: 'CR-6.2' | 'CR-6.3'; text: string }> = [];
  world.crowd.forEach((client, index) => {
    const exchange = world.batch[index] as Exchange;
    const pays = client.balance !== undefined && client.balance >= route.amount;
    const who = `client ${client.index} (${client.balance === undefined ? 'never paid' : `balance ${client.balance}`}, ${client.card.clientId.slice(0, 12)}…)`;
    if (!pays) {
      if (handlerRan(exchange, key) || exchange.answer?.paymentResponse !== undefined) {
        wrong.push({ id: 'CR-6.3', text: `${who} was served although its balance does not pay ${route.amount}: ${describeExchange(exchange)}` });
      } else if (exchange.answer?.status !== 402 || exchange.answer.paymentRequired === undefined) {
        wrong.push({ id: 'CR-6.3', text: `${who} should get the insufficient-credits challenge, got ${kindOf(exchange)}: ${describeExchange(exchange)}` });
      } else {
        expectChallenge(exchange, challenge, 'insufficient', 'CR-6.3');
      }
      return;
    }
    if (!handlerRan(exchange, key)) {
      wrong.push({ id: 'CR-6.2', text: `${who} should be served, got ${kindOf(exchange)}: ${describeExchange(exchange)}` });
      return;
    }
    const response = expectServed(exchange, key, 'CR-6.2');
    const expected = (client.balance as number) - route.amount;
    if (response.clientId !== client.card.clientId || response.creditsRemaining !== expected) {
      wrong.push({
        id: 'CR-6.2',
        text: `${who} was served with clientId ${response.clientId.slice(0, 12)}… and creditsRemaining ${response.creditsRemaining}, expected its own clientId and ${expected}`,
      });
      return;
    }
    client.balance = expected;
  });
  const outcomesOf = (id: 'CR-6.2' | 'CR-6.3') => () => {
    const items = wrong.filter((item) => item.id === id);
    if (items.length > 0) assert.fail(`${items.length} of ${world.crowd.length} clients did not get their own outcome:\n${items.map((item) => item.text).join('\n')}`);
  };
  checksFor([
    ['CR-6.2', outcomesOf('CR-6.2')],
    ['CR-6.3', outcomesOf('CR-6.3')],
  ]);
}
