// Paying the reference server through the protocol: a card payment that funds a client, and the clientId header.
import { decodeBase64Json, encodeBase64Json } from '../reference/protocol/base64-json.ts';
import { HEADERS } from '../reference/protocol/constants.ts';
import { createCardPaymentMethod } from 'credit402-tooling/testing/test-cards';

/** The gated hot-path route: price 1 unit. */
export const GATED_ROUTE = '/api/nodesc';
/** An ungated route of the reference server. */
export const FREE_ROUTE = '/free';
/** Large enough that the balance never runs out during a load run (900,000.00 usd). */
const LARGE_TOP_UP = 9_000_000_000;

/** The `payment` header for a payload. */
export function paymentHeader(payload: Record<string, unknown>): Record<string, string> {
  return { [HEADERS.PAYMENT]: encodeBase64Json(payload) };
}

/** One GET of the gated route with `payload`; resolves to the decoded payment-response, rejects unless 200. */
export async function payGated(serverUrl: string, payload: Record<string, unknown>): Promise<{ clientId: string; creditsRemaining: number; chargeId?: string }> {
  const response = await fetch(`${serverUrl}${GATED_ROUTE}`, { headers: paymentHeader(payload) });
  await response.arrayBuffer();
  const header = response.headers.get(HEADERS.PAYMENT_RESPONSE);
  const decoded = header === null ? undefined : decodeBase64Json(header);
  if (response.status !== 200 || decoded === undefined || !decoded.ok) {
    throw new Error(`payment not accepted: HTTP ${response.status}`);
  }
  return decoded.value as { clientId: string; creditsRemaining: number; chargeId?: string };
}

/** Pays once with a new card and a large top-up; resolves to the funded client's id. */
export async function fundClient(serverUrl: string, stripeApiUrl: string): Promise<string> {
  const paymentMethodId = await createCardPaymentMethod(stripeApiUrl);
  const paid = await payGated(serverUrl, { paymentMethodId, topUpAmount: LARGE_TOP_UP });
  if (paid.chargeId === undefined || paid.creditsRemaining !== LARGE_TOP_UP - 1) {
    throw new Error(`unexpected funding answer ${JSON.stringify(paid)}`);
  }
  return paid.clientId;
}
