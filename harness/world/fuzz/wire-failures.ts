// Which fuzz failures the wire level judges, and under which requirement: what the stripe402 source states about every value.
import { readable } from '../base64-json.ts';
import type { FuzzFailure } from './failure-classes.ts';

/** A character in neither base64 alphabet and not `=` (CR-3.5: not base64 in any variant). */
const OUTSIDE_ALPHABETS = /[^A-Za-z0-9+/\-_=]/;

/** Whether no base64 variant or padding rule reads `value` (CR-3.5 at the wire level): a foreign character, or a body of 4n+1. */
export function notBase64InAnyVariant(value: string): boolean {
  const trimmed = value.trim();
  if (OUTSIDE_ALPHABETS.test(trimmed)) return true;
  const body = trimmed.replace(/=+$/, '');
  return !body.includes('=') && body.length % 4 === 1;
}

/** The wire requirement a fuzz failure breaks, or undefined when only the strict level judges it. */
export function wireRequirementOf(failure: FuzzFailure): 'CR-4.6' | 'CR-8.11' | 'CR-3.5' | undefined {
  const answer = failure.exchange.answer;
  if (answer === undefined) return 'CR-8.11';
  const paid = readable(answer.paymentResponse)?.success === true;
  if (answer.status >= 200 && answer.status < 300 && !paid) return 'CR-4.6';
  if (paid) return notBase64InAnyVariant(failure.fuzzCase.value) ? 'CR-3.5' : undefined;
  return answer.status === 402 ? undefined : 'CR-8.11';
}
