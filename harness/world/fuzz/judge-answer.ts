// Whether one fuzz answer is allowed: a 402 challenge or payment error of the right shape, never 2xx or 5xx.
import { expectChallenge, expectPaymentError } from '../judge.ts';
import type { Exchange } from '../exchange.ts';
import type { Allowed } from './arbitraries.ts';

/** Undefined when the answer is allowed, otherwise why not. */
export function fuzzVerdict(exchange: Exchange, allowed: Allowed, challenge: Record<string, unknown>): string | undefined {
  const answer = exchange.answer;
  if (!answer) return `no answer: ${exchange.error ?? 'unknown error'}`;
  if (answer.status !== 402) return `status ${answer.status} (only 402 is allowed): ${answer.text.slice(0, 300)}`;
  const body = answer.json;
  const isChallenge = typeof body === 'object' && body !== null && 'accepts' in body;
  try {
    if (isChallenge) {
      if (allowed !== 'challenge or invalid_payment') return `a challenge, but this value must get invalid_payment: ${answer.text.slice(0, 300)}`;
      const insufficient = 'error' in body;
      expectChallenge(exchange, challenge, insufficient ? 'insufficient' : 'plain');
    } else {
      expectPaymentError(exchange, 'invalid_payment', allowed === 'malformed' ? 'Malformed payment header' : undefined);
    }
  } catch (error) {
    return error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
  return undefined;
}
