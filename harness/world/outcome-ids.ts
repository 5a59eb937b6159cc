// The requirements an outcome check names: for each outcome a scenario expects (served, a challenge, a payment error,
// not gated, 503), the requirements that decide it, resolved against the scenario's tags, and a default.
import { among, firstOf, type CandidateIds } from './check.ts';

/** A request served (CR-4.6): the requirements that make a gated request reach its handler, paid. */
export const SERVED: CandidateIds = among(
  [
    'CR-1.1', 'CR-3.1', 'CR-3.4', 'CR-3.7', 'CR-3.9', 'CR-3.11', 'CR-4.2', 'CR-4.3', 'CR-4.5', 'CR-4.6', 'CR-4.8', 'CR-4.12', 'CR-4.13',
    'CR-4.14', 'CR-6.2', 'CR-6.4', 'CR-6.5', 'CR-6.8', 'CR-6.9', 'CR-7.1', 'CR-7.2', 'CR-7.4', 'CR-7.5', 'CR-7.6', 'CR-7.7', 'CR-7.8',
    'CR-7.9', 'CR-7.11', 'CR-7.13', 'CR-7.22', 'CR-7.23', 'CR-7.25', 'CR-8.12', 'CR-9.1', 'CR-9.2', 'CR-10.1', 'CR-10.2', 'CR-10.3',
    'CR-12.2', 'CR-12.5', 'CR-13.10', 'CR-13.16', 'CR-13.25', 'CR-13.31', 'CR-13.32', 'CR-13.33', 'CR-13.36', 'CR-13.40', 'CR-13.41',
    'CR-13.42', 'CR-14.3', 'CR-14.5', 'CR-14.7', 'CR-14.8',
  ],
  'CR-4.6',
);

/** The plain challenge (CR-5.4): no payment, or a payload without clientId and paymentMethodId, on a gated route. */
export const PLAIN_CHALLENGE: CandidateIds = among(
  ['CR-1.4', 'CR-1.5', 'CR-3.4', 'CR-4.2', 'CR-4.3', 'CR-4.5', 'CR-4.8', 'CR-4.12', 'CR-4.14', 'CR-5.1', 'CR-5.4', 'CR-13.10', 'CR-13.19', 'CR-13.25', 'CR-13.42'],
  'CR-5.4',
);

/** The insufficient-credits challenge (CR-5.5): a balance that does not pay, and what must leave it so (nothing credited). */
export const INSUFFICIENT_CHALLENGE: CandidateIds = among(
  [
    'CR-5.5', 'CR-6.1', 'CR-6.3', 'CR-6.7', 'CR-6.8', 'CR-6.9', 'CR-7.7', 'CR-7.11', 'CR-7.20', 'CR-7.27', 'CR-8.8', 'CR-10.4', 'CR-12.5',
    'CR-13.16', 'CR-13.17', 'CR-13.23', 'CR-13.41', 'CR-14.2', 'CR-14.3', 'CR-14.4', 'CR-14.6',
  ],
  'CR-6.3',
);

/**
 * The requirements that give a payment error its code (the conditions CR-8.3 lists). The codes' own requirements
 * (CR-8.4–CR-8.7) are not candidates: they are the defaults, named only when the scenario names no condition.
 */
const PAYMENT_ERROR_CANDIDATES = [
  'CR-3.4', 'CR-3.5', 'CR-3.6', 'CR-3.7', 'CR-3.8', 'CR-4.14', 'CR-6.9', 'CR-7.1', 'CR-7.2', 'CR-7.7', 'CR-7.20', 'CR-7.27', 'CR-8.11', 'CR-9.4', 'CR-12.2', 'CR-13.10', 'CR-13.15', 'CR-13.16', 'CR-13.19', 'CR-13.24', 'CR-13.33',
  'CR-13.35', 'CR-13.36', 'CR-13.37', 'CR-13.41',
];

/** The requirement of each payment error code (§8), the default when the scenario names none of the candidates. */
const CODE_IDS: Readonly<Record<string, string>> = {
  invalid_payment: 'CR-8.4',
  top_up_below_minimum: 'CR-8.5',
  card_declined: 'CR-8.6',
  payment_failed: 'CR-8.7',
};

/** The payment error `code` (CR-8.1): the requirements that give it, else the code's own (CR-8.4–CR-8.7, or CR-8.3). */
export function paymentErrorIds(code: string): CandidateIds {
  return among(PAYMENT_ERROR_CANDIDATES, CODE_IDS[code] ?? 'CR-8.3');
}

/** A payment error with any code (the default is CR-8.3's table). */
export const PAYMENT_ERROR: CandidateIds = among(PAYMENT_ERROR_CANDIDATES, 'CR-8.3');

/**
 * `Payment processing failed` (CR-8.10): the requirement of the cause the scenario is about. A PaymentIntent whose
 * status is not `succeeded` (wire, CR-7.7), no answer from the processor (CR-13.35), another processor error
 * (CR-13.37), an unknown PaymentMethod or one without a card fingerprint (CR-13.24).
 */
export const PROCESSING_FAILED_MESSAGE: CandidateIds = firstOf(['CR-7.7', 'CR-13.35', 'CR-13.37', 'CR-13.24'], 'CR-13.37');

/** A message a scenario expects verbatim other than the two normative texts: a card error's, the processor's (CR-7.20, CR-8.6). */
export const CARD_ERROR_MESSAGE: CandidateIds = among(['CR-7.20', 'CR-8.6'], 'CR-8.6');

/** A free request (CR-4.4): the requirements that make a request free, or not a gated route's. */
export const NOT_GATED: CandidateIds = among(['CR-1.5', 'CR-4.2', 'CR-4.3', 'CR-4.4', 'CR-4.9', 'CR-4.12', 'CR-13.25', 'CR-13.29', 'CR-13.42'], 'CR-4.4');

/** A 503 `service_unavailable` answer (CR-8.9): the store failures that call for it. */
export const SERVICE_UNAVAILABLE: CandidateIds = among(
  ['CR-6.6', 'CR-7.21', 'CR-7.22', 'CR-8.9', 'CR-8.12', 'CR-11.9', 'CR-13.20', 'CR-13.30', 'CR-14.7'],
  'CR-8.9',
);
