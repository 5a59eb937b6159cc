// Typed errors of the credit402 fetch wrapper: payment errors, spending-limit and top-up refusals, protocol violations.
import type { ErrorCode } from '../protocol/constants.ts';

/** A payment error answer (402 PaymentResponse with `success: false`, or the 503 `service_unavailable` answer). */
export class Credit402PaymentError extends Error {
  /** The server's `errorCode` (CR-8.3); branch on it, never on the message (CR-8.10). */
  readonly code: ErrorCode | (string & {});
  /** HTTP status: 402, or 503 for `service_unavailable`. */
  readonly status: number;
  /** The server's answer; its body is still unread (for headers such as `Retry-After`). */
  readonly response: Response;

  constructor(code: string, message: string, response: Response) {
    super(message);
    this.name = 'Credit402PaymentError';
    this.code = code;
    this.status = response.status;
    this.response = response;
  }

  /** True for `service_unavailable`: the same call may be retried and is never charged twice (CR-7.22). */
  get retryable(): boolean {
    return this.code === 'service_unavailable';
  }
}

/** A top-up refused by the client's own spending limits, before anything was sent to pay. */
export class Credit402SpendingLimitError extends Error {
  /** Which limit refused: `maxTopUpPerPayment` or `maxTopUpPerSession`. */
  readonly limit: 'maxTopUpPerPayment' | 'maxTopUpPerSession';
  /** Units the payment would have charged. */
  readonly requested: number;
  /** The limit, in units. */
  readonly maximum: number;
  /** Units already charged (or in flight) in this session. */
  readonly spent: number;

  constructor(limit: Credit402SpendingLimitError['limit'], requested: number, maximum: number, spent: number) {
    const detail = limit === 'maxTopUpPerSession' ? ` (already ${spent} units this session)` : '';
    super(`credit402: a top-up of ${requested} units exceeds ${limit} ${maximum}${detail}; nothing was charged`);
    this.name = 'Credit402SpendingLimitError';
    this.limit = limit;
    this.requested = requested;
    this.maximum = maximum;
    this.spent = spent;
  }
}

/**
 * The callback approved a `topUpAmount` below the challenge's `minTopUp`, which a server refuses with
 * `top_up_below_minimum` (CR-16.3): thrown before anything is sent, so nothing is charged. Approve at least
 * `minimum`, or no `topUpAmount` at all (the server then charges `minTopUp`).
 */
export class Credit402TopUpError extends Error {
  /** The top-up the callback approved, in units. */
  readonly requested: number;
  /** The challenge's `minTopUp`, in units. */
  readonly minimum: number;

  constructor(requested: number, minimum: number) {
    super(`credit402: the callback approved a top-up of ${requested} units, below the challenge's minTopUp ${minimum}; nothing was sent`);
    this.name = 'Credit402TopUpError';
    this.requested = requested;
    this.minimum = minimum;
  }
}

/** The server answered with protocol data a version-1 client cannot read (a broken challenge or `payment-response`). */
export class Credit402ProtocolError extends Error {
  /** What was wrong, one line each. */
  readonly problems: string[];
  /** The server's answer, body unread. */
  readonly response: Response;

  constructor(what: string, problems: string[], response: Response) {
    super(`credit402: invalid ${what} from ${response.url || 'the server'}: ${problems.join('; ')}`);
    this.name = 'Credit402ProtocolError';
    this.problems = problems;
    this.response = response;
  }
}
