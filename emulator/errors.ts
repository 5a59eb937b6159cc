// Stripe-style API errors: the error envelope, its HTTP status, and the usual constructors.

/** The body of Stripe's `{ "error": { ... } }` envelope. */
interface StripeErrorBody {
  type: 'invalid_request_error' | 'card_error' | 'api_error' | 'idempotency_error';
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  doc_url?: string;
  charge?: string;
  payment_intent?: unknown;
  payment_method?: unknown;
}

/** An error answered to the client. `executed` marks errors raised after state changed (stored for idempotent replay). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
    readonly executed = false,
  ) {
    super(body.message);
  }

  envelope(): { error: StripeErrorBody } {
    return { error: this.body };
  }
}

/** Stripe's documentation link for an error code. */
export const docUrl = (code: string): string => `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;

function body(type: StripeErrorBody['type'], message: string, extra: Partial<StripeErrorBody> = {}): StripeErrorBody {
  const withDoc = extra.code ? { doc_url: docUrl(extra.code) } : {};
  return { type, message, ...extra, ...withDoc };
}

export const invalidRequest = (message: string, extra: Partial<StripeErrorBody> = {}, status = 400): ApiError =>
  new ApiError(status, body('invalid_request_error', message, extra));

export const missingParam = (param: string): ApiError =>
  invalidRequest(`Missing required param: ${param}.`, { param, code: 'parameter_missing' });

export const unknownParam = (param: string): ApiError =>
  invalidRequest(`Received unknown parameter: ${param}`, { param, code: 'parameter_unknown' });

export const invalidValue = (param: string, message: string, code?: string): ApiError =>
  invalidRequest(message, code ? { param, code } : { param });

/** 404 for a missing object; `label` is Stripe's wording (`customer`, `PaymentMethod`, `payment_intent`). */
export const resourceMissing = (label: string, id: string, param = 'id'): ApiError =>
  invalidRequest(`No such ${label}: '${id}'`, { param, code: 'resource_missing' }, 404);

export const unrecognizedUrl = (method: string, path: string): ApiError =>
  invalidRequest(
    `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    {},
    404,
  );

export const authenticationError = (message: string): ApiError => new ApiError(401, body('invalid_request_error', message));

export const cardError = (fields: Omit<StripeErrorBody, 'type'>, executed = true): ApiError =>
  new ApiError(402, body('card_error', fields.message, fields), executed);

export const idempotencyMismatch = (key: string): ApiError =>
  new ApiError(
    400,
    body(
      'idempotency_error',
      `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    ),
  );

export const rateLimited = (): ApiError =>
  new ApiError(
    429,
    body('invalid_request_error', 'Request rate limit exceeded. You can learn more about rate limits here https://stripe.com/docs/rate-limits.', {
      code: 'rate_limit',
    }),
  );

export const internalError = (message = 'An unknown error occurred'): ApiError => new ApiError(500, body('api_error', message));

/** A failed control-API call (`/_emulator/...`), answered as `{ error: { message } }`. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
