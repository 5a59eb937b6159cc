// The requirement an outcome check names: for each outcome a scenario expects (served, a challenge, a payment error, not
// gated, 503), the requirements that can demand it, most decisive first (those of the wire level before the strict ones,
// so that an outcome the source demands fails at the wire level; the robustness profile's first where only it makes the
// outcome), and the outcome's own requirement. A check names one:
// the first the scenario is tagged with (harness/world/check.ts, firstOf).
import { firstOf, type Premises } from './check.ts';

/**
 * A request served (CR-4.6): first what only the robustness profile serves (a balance a webhook credited, a card's
 * payments serialised, the retry after a processor timeout), since such a request is expected served only in that
 * profile; then what makes the request reach its handler, paid, before the path's own success (CR-7.13, a new payment;
 * CR-6.2, the credits path); then what only credit402 serves (HEAD, patterns, number reading, request ids,
 * per-currency balances, decoded paths, CR-4.8–CR-13.42).
 */
export const SERVED: Premises = firstOf(
  [
    'CR-14.2', 'CR-14.3', 'CR-14.4', 'CR-14.5', 'CR-14.6', 'CR-14.7', 'CR-14.8',
    'CR-3.1', 'CR-3.9', 'CR-3.11', 'CR-4.2', 'CR-4.3', 'CR-4.5', 'CR-6.4', 'CR-7.4', 'CR-7.25', 'CR-9.1', 'CR-9.2', 'CR-10.1', 'CR-10.2',
    'CR-10.3', 'CR-12.5', 'CR-7.13', 'CR-6.2', 'CR-7.1', 'CR-7.2', 'CR-7.5', 'CR-7.6', 'CR-7.7', 'CR-7.8', 'CR-7.9', 'CR-7.11', 'CR-1.1',
    'CR-4.8', 'CR-4.13', 'CR-4.12', 'CR-4.14', 'CR-3.4', 'CR-3.7', 'CR-6.5', 'CR-6.8', 'CR-6.9', 'CR-7.22', 'CR-7.23', 'CR-8.12', 'CR-12.2',
    'CR-13.10', 'CR-13.16', 'CR-13.25', 'CR-13.31', 'CR-13.32', 'CR-13.33', 'CR-13.36', 'CR-13.40', 'CR-13.41', 'CR-13.42',
  ],
  'CR-4.6',
);

/**
 * The plain challenge (CR-5.4): no payment on a gated route (the route key and matching, CR-1.4–CR-4.5, the challenge
 * answer, CR-5.1); then a payment header that decodes to a payload without clientId and paymentMethodId (strict:
 * CR-3.4, CR-13.10, CR-13.19) and what only credit402 gates (HEAD, patterns, decoded paths).
 */
export const PLAIN_CHALLENGE: Premises = firstOf(
  [
    'CR-1.4', 'CR-1.5', 'CR-4.2', 'CR-4.3', 'CR-4.5', 'CR-5.4', 'CR-5.1',
    'CR-4.8', 'CR-4.12', 'CR-4.14', 'CR-13.25', 'CR-3.4', 'CR-13.10', 'CR-13.19', 'CR-13.42',
  ],
  'CR-5.4',
);

/**
 * The insufficient-credits challenge (CR-5.5): a balance that does not pay (CR-6.3), and what must leave it so (a card
 * error or a PaymentIntent that did not succeed credits nothing); then credit402's decisions (the clientId's shape,
 * balances per currency, request ids) and the robustness profile.
 */
export const INSUFFICIENT_CHALLENGE: Premises = firstOf(
  [
    'CR-6.7', 'CR-7.7', 'CR-7.11', 'CR-7.20', 'CR-8.8', 'CR-10.4', 'CR-12.5', 'CR-6.3', 'CR-5.5',
    'CR-6.1', 'CR-6.8', 'CR-6.9', 'CR-7.27', 'CR-13.16', 'CR-13.17', 'CR-13.23', 'CR-13.41', 'CR-14.2', 'CR-14.3', 'CR-14.4', 'CR-14.6',
  ],
  'CR-6.3',
);

/**
 * The requirements that give a payment error its code (the conditions CR-8.3 lists): the source's (a malformed header,
 * a top-up below the minimum, a card error, a PaymentIntent that did not succeed), then credit402's (strict decoding and
 * payload validation, request ids, the maximum top-up, version, processor failures). The codes' own requirements
 * (CR-8.4–CR-8.7) are not premises: they are the defaults, named only when the scenario names no condition. CR-8.11
 * is none either: it asks a payload the target cannot process for a 402 that fails closed (checked on its own), not
 * for a code, which CR-3.6 gives.
 */
const PAYMENT_ERROR_PREMISES = [
  'CR-3.5', 'CR-7.1', 'CR-7.2', 'CR-7.20', 'CR-7.7',
  'CR-3.6', 'CR-3.7', 'CR-3.8', 'CR-3.4', 'CR-13.36', 'CR-13.10', 'CR-4.14', 'CR-6.9', 'CR-7.27', 'CR-9.4', 'CR-12.2', 'CR-13.15', 'CR-13.16', 'CR-13.19',
  'CR-13.24', 'CR-13.33', 'CR-13.35', 'CR-13.37', 'CR-13.41',
];

/** The requirement of each payment error code (§8), the default when the scenario names none of the candidates. */
const CODE_IDS: Readonly<Record<string, string>> = {
  invalid_payment: 'CR-8.4',
  top_up_below_minimum: 'CR-8.5',
  card_declined: 'CR-8.6',
  payment_failed: 'CR-8.7',
};

/** The payment error `code` (CR-8.1): the requirements that give it, else the code's own (CR-8.4–CR-8.7, or CR-8.3). */
export function paymentErrorIds(code: string): Premises {
  return firstOf(PAYMENT_ERROR_PREMISES, CODE_IDS[code] ?? 'CR-8.3');
}

/** A payment error with any code (the default is CR-8.3's table). */
export const PAYMENT_ERROR: Premises = firstOf(PAYMENT_ERROR_PREMISES, 'CR-8.3');

/**
 * `Payment processing failed` (CR-8.10): the requirement of the cause the scenario is about. A PaymentIntent whose
 * status is not `succeeded` (wire, CR-7.7), no answer from the processor (CR-13.35), another processor error
 * (CR-13.37), an unknown PaymentMethod or one without a card fingerprint (CR-13.24).
 */
export const PROCESSING_FAILED_MESSAGE: Premises = firstOf(['CR-7.7', 'CR-13.35', 'CR-13.37', 'CR-13.24'], 'CR-13.37');

/**
 * `Malformed payment header` (CR-3.5): for a value that no base64 variant reads or text that is not JSON, CR-3.5 itself
 * (wire); for a value that only credit402's decoding refuses (padding, an `=` inside the body, bytes that are not UTF-8,
 * several field lines: strict, CR-3.4, CR-13.36, CR-13.10), the rule that refuses it, since the wire level lets a
 * target read such a value (CR-3.5).
 */
export const MALFORMED_MESSAGE: Premises = firstOf(['CR-3.5', 'CR-3.4', 'CR-13.36', 'CR-13.10'], 'CR-3.5');

/** A message a scenario expects verbatim other than the two normative texts: a card error's, the processor's (CR-7.20, CR-8.6). */
export const CARD_ERROR_MESSAGE: Premises = firstOf(['CR-7.20', 'CR-8.6'], 'CR-8.6');

/** A free request (CR-4.4): the requirements that make a request free, or not a gated route's. */
export const NOT_GATED: Premises = firstOf(['CR-4.2', 'CR-4.3', 'CR-1.5', 'CR-4.4', 'CR-4.12', 'CR-4.9', 'CR-13.25', 'CR-13.29', 'CR-13.42'], 'CR-4.4');

/** A 503 `service_unavailable` answer (CR-8.9): the store failures that call for it. */
export const SERVICE_UNAVAILABLE: Premises = firstOf(['CR-6.6', 'CR-7.21', 'CR-7.22', 'CR-8.12', 'CR-11.9', 'CR-13.30', 'CR-8.9', 'CR-13.20', 'CR-14.7'], 'CR-8.9');
