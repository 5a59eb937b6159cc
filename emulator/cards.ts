// Card numbers: Luhn check, brand detection, stable fingerprints, and Stripe's documented test-card outcomes.
import { createHmac } from 'node:crypto';

/** What confirming a PaymentIntent with a card does. */
type CardOutcome =
  | { kind: 'succeed' }
  | { kind: 'authenticate' }
  | { kind: 'decline'; code: string; declineCode: string; message: string };

/** A card decline: Stripe's error `code`, `decline_code` and message. */
export type Decline = Extract<CardOutcome, { kind: 'decline' }>;

const declined = (declineCode: string, message = 'Your card was declined.'): Decline => ({
  kind: 'decline',
  code: 'card_declined',
  declineCode,
  message,
});

/** Stripe's documented test numbers with a non-success outcome; any other valid number succeeds. */
const OUTCOMES: Record<string, CardOutcome> = {
  '4000000000000002': declined('generic_decline'),
  '4000000000009995': declined('insufficient_funds', 'Your card has insufficient funds.'),
  '4000000000009987': declined('lost_card'),
  '4000000000009979': declined('stolen_card'),
  '4100000000000019': declined('fraudulent'),
  '4000000000000069': { kind: 'decline', code: 'expired_card', declineCode: 'expired_card', message: 'Your card has expired.' },
  '4000000000000127': { kind: 'decline', code: 'incorrect_cvc', declineCode: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  '4000000000000119': {
    kind: 'decline',
    code: 'processing_error',
    declineCode: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
  },
  '4000002500003155': { kind: 'authenticate' },
  '4000002760003184': { kind: 'authenticate' },
  '4000000000003220': { kind: 'authenticate' },
};

/** Outcome of charging `number` (digits only). */
export const cardOutcome = (number: string): CardOutcome => OUTCOMES[number] ?? { kind: 'succeed' };

/** The decline Stripe gives when a card needing authentication is charged off-session. */
export const AUTHENTICATION_REQUIRED: Decline = declined(
  'authentication_required',
  'Your card was declined. This transaction requires authentication.',
);

/** Luhn (mod 10) sum of `digits`, doubling every second digit from the right (from the last one when `checkDigitMissing`). */
function luhnSum(digits: string, checkDigitMissing: boolean): number {
  let sum = 0;
  const doubled = checkDigitMissing ? 0 : 1;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === doubled) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum;
}

/** Luhn (mod 10) checksum. */
export function luhnValid(number: string): boolean {
  return number.length > 0 && luhnSum(number, false) % 10 === 0;
}

/** Appends the Luhn check digit to `digits`. */
export function withLuhnDigit(digits: string): string {
  return `${digits}${(10 - (luhnSum(digits, true) % 10)) % 10}`;
}

/** Card brand as Stripe names it, from the number's leading digits. */
export function cardBrand(number: string): string {
  const prefix = (n: number): number => Number(number.slice(0, n));
  if (number.startsWith('4')) return 'visa';
  if ((prefix(2) >= 51 && prefix(2) <= 55) || (prefix(4) >= 2221 && prefix(4) <= 2720)) return 'mastercard';
  if (prefix(2) === 34 || prefix(2) === 37) return 'amex';
  if (number.startsWith('6011') || number.startsWith('65')) return 'discover';
  if (prefix(4) >= 3528 && prefix(4) <= 3589) return 'jcb';
  if (prefix(2) === 36 || prefix(2) === 38 || (prefix(3) >= 300 && prefix(3) <= 305)) return 'diners';
  if (number.startsWith('62')) return 'unionpay';
  return 'unknown';
}

/** Fingerprints are stable per number within one emulator instance (HMAC with the instance's salt). */
export const fingerprinter =
  (salt: string) =>
  (number: string): string =>
    createHmac('sha256', salt).update(number).digest('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 16);
