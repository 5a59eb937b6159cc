// Coded configuration error raised at construction time.

/** Codes of configuration errors; each names the option at fault. */
export type ConfigErrorCode =
  | 'ERR_ROUTES'
  | 'ERR_ROUTE_KEY'
  | 'ERR_ROUTE_AMOUNT'
  | 'ERR_ROUTE_CURRENCY'
  | 'ERR_ROUTE_MIN_TOP_UP'
  | 'ERR_ROUTE_MAX_TOP_UP'
  | 'ERR_ROUTE_DESCRIPTION'
  | 'ERR_ROUTE_PATTERN'
  | 'ERR_ROUTE_CONFLICT'
  | 'ERR_ROUTE_MOUNT'
  | 'ERR_STRIPE_SECRET_KEY'
  | 'ERR_PUBLISHABLE_KEY'
  | 'ERR_KEY_MODE_MISMATCH'
  | 'ERR_SERVER_SECRET'
  | 'ERR_SERVICE_NAME'
  | 'ERR_CUSTOMER_METADATA_KEY'
  | 'ERR_STORE'
  | 'ERR_PROCESSOR'
  | 'ERR_SERVER_CONFIG'
  | 'ERR_GATEWAY_CONFIG'
  | 'ERR_LOCK'
  | 'ERR_REQUEST_ID_TTL'
  | 'ERR_REFUND_ON_HANDLER_ERROR'
  | 'ERR_RATE_LIMIT'
  | 'ERR_TRUST_PROXY'
  | 'ERR_CORS'
  | 'ERR_HOOKS'
  | 'ERR_WEBHOOK_SECRET'
  | 'ERR_WEBHOOK_PATH'
  | 'ERR_MISSING_PACKAGE'
  | 'ERR_LIVE_KEYS_WITH_EMULATOR'
  | 'ERR_CONFORMANCE_CONTROL';

/** Thrown when credit402 is configured wrongly; `code` says which rule was broken. */
export class Credit402ConfigError extends Error {
  readonly code: ConfigErrorCode;
  constructor(code: ConfigErrorCode, message: string) {
    super(`${code}: ${message}`);
    this.name = 'Credit402ConfigError';
    this.code = code;
  }
}
