// Test helper: the configuration, cards and clients the engine's decision tables share (Appendix A of spec/protocol.md where it has one).
import { createHmac } from 'node:crypto';
import type { RouteConfig } from 'credit402/protocol';

/** Appendix A's publishable key and server secret. */
export const PUBLISHABLE_KEY = 'pk_test_51credit402example';
export const SERVER_SECRET = 'credit402-example-server-secret-0123456789';

/** The clientId of a card fingerprint (CR-7.3), computed here from the spec's definition, not by the engine. */
export function clientIdOf(fingerprint: string, secret = SERVER_SECRET): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(fingerprint, 'utf8')).digest('hex');
}

/**
 * The gated routes of every table unless a row brings its own: Appendix A's two, then one per rule under test (a zero
 * price, a price of a whole top-up, another currency, HEAD priced apart from GET, an encoded slash in the path).
 */
export const ROUTES: Record<string, RouteConfig> = {
  'GET /api/weather': { amount: 500, description: 'Weather data' },
  'POST /api/translate': { amount: 2_000, maxTopUp: 100_000 },
  'GET /api/zero': { amount: 0 },
  'GET /api/dear': { amount: 50_000 },
  'GET /api/euro': { amount: 500, currency: 'EUR' },
  'GET /api/both': { amount: 500 },
  'HEAD /api/both': { amount: 100 },
  'GET /files/a%2Fb': { amount: 500 },
};

/** Appendix A.6's card: its fingerprint, and the clientId the spec gives for it. */
export const VISA_FINGERPRINT = 'Xt5EWLLDS7FJjR1c';
export const VISA = '7fde6c265afe11e033147ce0669bd0057e518506a8130189675d6c42db0e690c';
/** Another card: its fingerprint and its clientId. */
export const MASTERCARD_FINGERPRINT = 'Mc7Ab0fingerprint';
export const MASTERCARD = clientIdOf(MASTERCARD_FINGERPRINT);

/** PaymentMethods of the fake processor: two of Appendix A.6's card, another card, and one that is not a card. */
export const VISA_PM = 'pm_card_visa';
export const VISA_PM_2 = 'pm_card_visa_second';
export const MASTERCARD_PM = 'pm_card_mastercard';
export const SEPA_PM = 'pm_sepa_debit';
export const CARDS: Record<string, string | null> = {
  [VISA_PM]: VISA_FINGERPRINT,
  [VISA_PM_2]: VISA_FINGERPRINT,
  [MASTERCARD_PM]: MASTERCARD_FINGERPRINT,
  [SEPA_PM]: null,
};

/** Clients known only by their clientId (no card in the tables). */
export const ALICE = 'a'.repeat(64);
export const BOB = 'b'.repeat(64);
