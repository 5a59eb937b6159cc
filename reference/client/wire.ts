// Client-side readers of the challenge and PaymentResponse: check every member used, ignore unknown ones (CR-12.4).
import { PROTOCOL_VERSION } from '../protocol/constants.ts';
import { isClientIdShape } from '../protocol/identity.ts';
import type { PaymentRequiredResponse, PaymentRequirement, PaymentResponse } from '../protocol/types.ts';

export type WireResult<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** A challenge as a version-1 client understands it, with its `stripe` payment requirement. */
export interface ReadChallenge {
  challenge: PaymentRequiredResponse;
  accepts: PaymentRequirement;
}

/** A payment error body (402, or 503 `service_unavailable`). */
interface PaymentFailure {
  errorCode: string;
  error: string;
}

type Members = Record<string, unknown>;

const isObject = (value: unknown): value is Members => typeof value === 'object' && value !== null && !Array.isArray(value);
const isUnits = (value: unknown, min: number): value is number => Number.isSafeInteger(value) && (value as number) >= min;
const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

function readRequirement(element: Members, problems: string[]): PaymentRequirement | undefined {
  const { currency, amount, minTopUp, publishableKey, description } = element;
  if (!isText(currency)) problems.push('accepts[stripe].currency must be a non-empty string');
  if (!isUnits(amount, 0)) problems.push('accepts[stripe].amount must be a non-negative safe integer');
  if (!isUnits(minTopUp, 1)) problems.push('accepts[stripe].minTopUp must be a positive safe integer');
  if (!isText(publishableKey)) problems.push('accepts[stripe].publishableKey must be a non-empty string');
  if (description !== undefined && typeof description !== 'string') problems.push('accepts[stripe].description must be a string');
  if (!isText(currency) || !isUnits(amount, 0) || !isUnits(minTopUp, 1) || !isText(publishableKey)) return undefined;
  if (description !== undefined && typeof description !== 'string') return undefined;
  return { scheme: 'stripe', currency, amount, minTopUp, publishableKey, ...(typeof description === 'string' ? { description } : {}) };
}

/** Reads a decoded `payment-required` value; the first `accepts` element with scheme `stripe` is the one used. */
export function readChallenge(value: unknown): WireResult<ReadChallenge> {
  if (!isObject(value)) return { ok: false, problems: ['the challenge must be a JSON object'] };
  const problems: string[] = [];
  if (value.stripe402Version !== PROTOCOL_VERSION) problems.push(`stripe402Version must be ${PROTOCOL_VERSION}`);
  const resource = value.resource;
  if (!isObject(resource) || typeof resource.url !== 'string') problems.push('resource.url must be a string');
  const stripe = Array.isArray(value.accepts) ? value.accepts.find((element) => isObject(element) && element.scheme === 'stripe') : undefined;
  if (!isObject(stripe)) problems.push('accepts must hold an element with scheme "stripe"');
  if (value.message !== undefined && typeof value.message !== 'string') problems.push('message must be a string');
  const accepts = isObject(stripe) ? readRequirement(stripe, problems) : undefined;
  if (problems.length > 0 || accepts === undefined || !isObject(resource) || typeof resource.url !== 'string') return { ok: false, problems };
  const challenge: PaymentRequiredResponse = {
    stripe402Version: PROTOCOL_VERSION,
    resource: { url: resource.url, ...(typeof resource.description === 'string' ? { description: resource.description } : {}) },
    accepts: [accepts],
    ...(value.error === 'insufficient_credits' ? { error: 'insufficient_credits' as const } : {}),
    ...(typeof value.message === 'string' ? { message: value.message } : {}),
  };
  return { ok: true, value: { challenge, accepts } };
}

/** Reads a decoded `payment-response` header: must be a success with a derived clientId. */
export function readPaymentSuccess(value: unknown): WireResult<PaymentResponse> {
  if (!isObject(value)) return { ok: false, problems: ['the payment response must be a JSON object'] };
  const { success, creditsRemaining, clientId, chargeId } = value;
  const problems: string[] = [];
  if (success !== true) problems.push('success must be true in a payment-response header');
  if (!isUnits(creditsRemaining, 0)) problems.push('creditsRemaining must be a non-negative safe integer');
  if (typeof clientId !== 'string' || !isClientIdShape(clientId)) problems.push('clientId must be 64 lowercase hex characters');
  if (chargeId !== undefined && !isText(chargeId)) problems.push('chargeId must be a non-empty string');
  if (problems.length > 0 || !isUnits(creditsRemaining, 0) || typeof clientId !== 'string') return { ok: false, problems };
  return { ok: true, value: { success: true, creditsRemaining, clientId, ...(isText(chargeId) ? { chargeId } : {}) } };
}

/** Reads a response body as a payment error; `undefined` when it is not one (not a credit402 answer). */
export function readPaymentFailure(value: unknown): PaymentFailure | undefined {
  if (!isObject(value) || value.success !== false || !isText(value.errorCode) || typeof value.error !== 'string') return undefined;
  return { errorCode: value.errorCode, error: value.error };
}
