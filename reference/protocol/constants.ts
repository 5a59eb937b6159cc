// Protocol constants: header names, version, unit scale, defaults and error codes.

/** Protocol version carried as `stripe402Version` in the challenge and the payment payload. */
export const PROTOCOL_VERSION = 1;

/** HTTP header names of the protocol (lowercase, as Node exposes them). */
export const HEADERS = {
  PAYMENT: 'payment',
  PAYMENT_REQUIRED: 'payment-required',
  PAYMENT_RESPONSE: 'payment-response',
} as const;

/** Units per major currency unit (10000 units = 1.00). */
export const UNITS_PER_MAJOR = 10_000;
/** Units per minor currency unit (100 units = 1 cent). */
export const UNITS_PER_MINOR = 100;

export const DEFAULT_CURRENCY = 'usd';
export const DEFAULT_MIN_TOP_UP = 50_000;
/** Stripe's largest charge in minor units (99,999,999), expressed in units: the default maximum top-up. */
export const DEFAULT_MAX_TOP_UP = 99_999_999 * UNITS_PER_MINOR;
export const DEFAULT_SERVICE_NAME = 'credit402';
export const DEFAULT_CUSTOMER_METADATA_KEY = 'credit402_client_id';

/** Machine codes carried in `errorCode` (PaymentResponse) or `error` (challenge). */
export const ERROR_CODES = [
  'card_declined',
  'payment_failed',
  'invalid_payment',
  'top_up_below_minimum',
  'insufficient_credits',
  'service_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const MESSAGES = {
  MALFORMED_HEADER: 'Malformed payment header',
  PAYMENT_FAILED: 'Payment processing failed',
  INSUFFICIENT_CREDITS: 'Insufficient credits for this request',
  STORE_UNAVAILABLE: 'Credit store temporarily unavailable; nothing was charged or deducted',
} as const;
