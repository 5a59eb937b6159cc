// Test helper: expected protocol values built from the text of spec/protocol.md (challenges, error bodies, charge keys), not from the engine.
import { createHash } from 'node:crypto';
import type { PaymentRequiredResponse, PaymentResponse } from 'credit402/protocol';
import { PUBLISHABLE_KEY } from './decision-fixtures.ts';
import { SCRIPTED_STORE_ID } from './scripted-store.ts';

/** The two exact normative messages (CR-8.10). */
export const MALFORMED = 'Malformed payment header';
export const PAYMENT_FAILED = 'Payment processing failed';

/**
 * The informative idempotency key of CR-7.16: `credit402-topup-` and the SHA-256 of the store's id and the six values
 * joined by `\n` (the store's id: a ScriptedStore's unless given).
 */
export function chargeKey(
  clientId: string, topUps: number, paymentMethodId: string, routeKey: string, topUp: number, currency: string, storeId = SCRIPTED_STORE_ID,
): string {
  const material = [storeId, clientId, topUps, paymentMethodId, routeKey, topUp, currency].join('\n');
  return `credit402-topup-${createHash('sha256').update(material).digest('hex')}`;
}

/** The effective route a challenge describes (CR-5.2, CR-5.3); `currency` defaults to usd and `minTopUp` to 50000. */
export interface ChallengedRoute {
  url: string;
  amount: number;
  currency?: string;
  minTopUp?: number;
  description?: string;
}

/** The plain challenge of a route (CR-5.2–CR-5.4, CR-5.6), or the insufficient-credits one (CR-5.5). */
export function challenge(route: ChallengedRoute, insufficient = false): PaymentRequiredResponse {
  const { url, amount, currency = 'usd', minTopUp = 50_000, description } = route;
  return {
    stripe402Version: 1,
    resource: description === undefined ? { url } : { url, description },
    accepts: [{ scheme: 'stripe', currency, amount, minTopUp, publishableKey: PUBLISHABLE_KEY, ...(description === undefined ? {} : { description }) }],
    ...(insufficient ? { error: 'insufficient_credits' as const, message: 'Insufficient credits for this request' } : {}),
  };
}

/** Appendix A's route, as its challenges describe it. */
export const WEATHER_ROUTE: ChallengedRoute = { url: '/api/weather', amount: 500, description: 'Weather data' };

/** A payment-error or service-unavailable body (CR-8.1, CR-8.2): exactly these five members. */
export function failure(errorCode: NonNullable<PaymentResponse['errorCode']>, error: string): PaymentResponse {
  return { success: false, creditsRemaining: 0, clientId: '', error, errorCode };
}
