// The verdicts a routing corpus row expects of each variant: refused as ambiguous (CR-4.10), gated as the route it names, or free (CR-4.9).
import assert from 'node:assert/strict';
import { checkFor } from './check.ts';
import { singleHeader, type Exchange } from './exchange.ts';
import { answered, describeExchange, expectChallenge, expectNotGated, expectServed } from './judge.ts';
import { deductions, gatedKeyOf, isObject, priceOf, type CorpusVariant } from './routing-corpus.ts';
import type { ConformanceWorld } from './world.ts';

/** What a corpus row says of its variants, as the feature writes it. */
export type CorpusVerdict = 'refused as ambiguous' | 'gated as the route it names' | 'free' | 'gated or free, as the method is read';

/** The `error` code of the 400 answer to an ambiguous request target (CR-4.10). */
const AMBIGUOUS = 'ambiguous_request_target';

/**
 * The 400 answer of CR-4.10: JSON `{"error": "ambiguous_request_target", "message": "…"}`, no protocol header; or a
 * 400 without a body, which is how HTTP servers refuse a target before any code of the application sees it (Node's
 * parser for most of case 1, Bun's for other schemes), and which spec Appendix C, L-58, lets stand for that answer.
 */
function expectRefused(exchange: Exchange): void {
  const answer = answered(exchange);
  assert.equal(answer.status, 400, `an ambiguous request target is answered 400: ${describeExchange(exchange)}`);
  assert.equal(answer.headers['payment-required'], undefined, `the 400 carries no payment-required: ${describeExchange(exchange)}`);
  assert.equal(answer.headers['payment-response'], undefined, `the 400 carries no payment-response: ${describeExchange(exchange)}`);
  if (exchange.request.method === 'HEAD' || answer.text === '') return;
  assert.match(singleHeader(answer, 'content-type') ?? '', /^application\/json\s*(;|$)/i, `the 400 is JSON: ${describeExchange(exchange)}`);
  const body = isObject(answer.json) ? answer.json : {};
  assert.equal(body.error, AMBIGUOUS, `the 400's error is ${AMBIGUOUS}: ${describeExchange(exchange)}`);
  assert.ok(typeof body.message === 'string' && body.message.trim() !== '', `the 400 has a non-empty message: ${describeExchange(exchange)}`);
}

/** Judges one variant against its row's verdict (`gated or free, as the method is read` leaves it to the agreement check). */
export function expectVerdict(world: ConformanceWorld, { unpaid, paid, before, after }: CorpusVariant, verdict: CorpusVerdict): void {
  if (verdict === 'refused as ambiguous') {
    checkFor('CR-4.10', () => {
      expectRefused(unpaid);
      expectRefused(paid);
    });
  } else if (verdict === 'gated as the route it names') {
    // HEAD on a GET path is gated only by credit402's decision that HEAD follows GET; otherwise the gate and the router
    // agree on the route (CR-4.9, with the decoding of CR-4.2 that CR-13.25 decides).
    checkFor(unpaid.request.method === 'HEAD' ? 'CR-4.8' : 'CR-4.9', () => {
      const key = gatedKeyOf(world, unpaid);
      assert.ok(key, `${unpaid.request.method} ${unpaid.path} names no gated route: the corpus row is wrong`);
      expectChallenge(unpaid, world.expect.challenge(key, unpaid.path), 'plain');
      expectServed(paid, world.route(key).key);
      const { currency } = world.route(key);
      assert.equal(deductions(before, after ?? before)[currency], priceOf(world, key), `a paid ${key} is deducted its price in ${currency}: ${describeExchange(paid)}`);
    });
  } else if (verdict === 'free') {
    checkFor('CR-4.9', () => {
      expectNotGated(unpaid);
      expectNotGated(paid);
    });
  }
}
