// The top-up metadata of a PaymentIntent (CR-7.17): written by the gate, read back by webhooks and reconciliation.
import { isClientIdShape } from '../protocol/identity.ts';
import { unitsToCents } from '../protocol/units.ts';
import type { TopUpMetadata } from './processor.ts';

/** Metadata key holding the clientId the top-up credits. */
const CLIENT_ID_KEY = 'credit402_client_id';
/** Metadata key holding the top-up in units, as a decimal string. */
const TOP_UP_UNITS_KEY = 'credit402_top_up_units';
/** Metadata key holding the store id the top-up was charged under (CR-14.13); absent on older PaymentIntents. */
const STORE_ID_KEY = 'credit402_store_id';
/** A store id as stores make them (CR-7.16): at most 64 letters, digits and hyphens. */
const STORE_ID = /^[A-Za-z0-9-]{1,64}$/;

/** Why a PaymentIntent without credit402 metadata is ignored (not an error: other payments share the account). */
export const NOT_A_TOP_UP = 'not a credit402 top-up';

/**
 * The metadata the gate puts on a top-up PaymentIntent; with `storeId`, the id of the store the charge's key was made
 * with, so that a webhook or reconciliation credits it only in that store, never after it was reset (CR-14.13).
 */
export function topUpMetadata(clientId: string, units: number, storeId?: string): Record<string, string> {
  const metadata = { [CLIENT_ID_KEY]: clientId, [TOP_UP_UNITS_KEY]: String(units) };
  return storeId === undefined ? metadata : { ...metadata, [STORE_ID_KEY]: storeId };
}

/** What {@link readTopUp} reads of a PaymentIntent. */
interface TopUpSource {
  metadata: Record<string, string> | null | undefined;
  amountReceivedCents: number;
  /** The PaymentIntent's currency: the balance the top-up credits (CR-6.8). */
  currency: unknown;
}

/**
 * Reads the top-up back from a PaymentIntent's metadata, received amount and currency. Refuses metadata the gate
 * would not have written, a currency that is not a lowercase ISO 4217 code, and a PaymentIntent that received less
 * than the top-up's price, so that metadata set by hand cannot credit more than was paid.
 */
export function readTopUp({ metadata, amountReceivedCents, currency }: TopUpSource): TopUpMetadata | string {
  const clientId = metadata?.[CLIENT_ID_KEY];
  const units = metadata?.[TOP_UP_UNITS_KEY];
  if (clientId === undefined && units === undefined) return NOT_A_TOP_UP;
  if (clientId === undefined || !isClientIdShape(clientId)) return `metadata ${CLIENT_ID_KEY} is not a client id`;
  if (units === undefined || !/^[1-9][0-9]{0,15}$/.test(units) || !Number.isSafeInteger(Number(units))) {
    return `metadata ${TOP_UP_UNITS_KEY} is not a positive integer`;
  }
  if (typeof currency !== 'string' || !/^[a-z]{3}$/.test(currency)) return `currency ${JSON.stringify(currency)} is not a lowercase ISO 4217 code`;
  const storeId = metadata?.[STORE_ID_KEY];
  if (storeId !== undefined && (typeof storeId !== 'string' || !STORE_ID.test(storeId))) return `metadata ${STORE_ID_KEY} is not a store id`;
  const value = Number(units);
  if (amountReceivedCents < unitsToCents(value)) {
    return `received ${amountReceivedCents} minor units, less than the ${unitsToCents(value)} a top-up of ${value} units costs`;
  }
  return storeId === undefined ? { clientId, units: value, currency } : { clientId, units: value, currency, storeId };
}
