// Whether one fuzz answer is allowed: a 402 challenge or payment error of the right shape, never 2xx or 5xx.
import { AssertionError } from 'node:assert';
import { inspect } from 'node:util';
import { withoutLevels } from '../check.ts';
import { expectChallenge, expectPaymentError } from '../judge.ts';
import type { Exchange } from '../exchange.ts';
import type { Allowed } from './arbitraries.ts';

const COMPARISONS = new Set(['strictEqual', 'notStrictEqual', 'deepStrictEqual', 'notDeepStrictEqual', 'match', 'doesNotMatch']);

/** A failed check's message; a comparison that printed no diff gets its actual and expected values. */
function explain(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (!(error instanceof AssertionError) || error.message.includes('\n') || !COMPARISONS.has(error.operator)) return error.message;
  const show = (value: unknown): string => inspect(value, { depth: 4, breakLength: 120, maxStringLength: 300 });
  return `${error.message}\n  actual:   ${show(error.actual)}\n  expected: ${show(error.expected)}`;
}

/** Undefined when the answer is allowed, otherwise why not (the failed check's whole message, diff included). */
export function fuzzVerdict(exchange: Exchange, allowed: Allowed, challenge: Record<string, unknown>): string | undefined {
  const answer = exchange.answer;
  if (!answer) return `no answer: ${exchange.error ?? 'unknown error'}`;
  if (answer.status !== 402) return `status ${answer.status} (only 402 is allowed)`;
  const body = answer.json;
  const isChallenge = typeof body === 'object' && body !== null && 'accepts' in body;
  try {
    if (isChallenge) {
      if (allowed !== 'challenge or invalid_payment') return 'a challenge, but this value must get invalid_payment';
      const insufficient = 'error' in body;
      withoutLevels(() => expectChallenge(exchange, challenge, insufficient ? 'insufficient' : 'plain'));
    } else {
      withoutLevels(() => expectPaymentError(exchange, 'invalid_payment', allowed === 'malformed' ? 'Malformed payment header' : undefined));
    }
  } catch (error) {
    return explain(error);
  }
  return undefined;
}
