// What the gate decides for one request; adapters only apply it.
import type { PaymentResponse } from '../protocol/types.ts';

/** The request as the gate needs it: adapters copy these values and nothing else. */
export interface GateRequest {
  /** Request method as received (HTTP methods are case-sensitive). */
  method: string;
  /** Request target as received (path plus optional query string). */
  url: string;
  /** Raw value(s) of the `payment` header, when present. */
  paymentHeader: string | readonly string[] | undefined;
  /**
   * Address of the client as the adapter sees it (the socket's peer, or the framework's notion of the client IP);
   * used only by the `newPaymentRateLimit` option. Optional: requests without one share one per-address bucket.
   */
  clientAddress?: string | undefined;
  /** The `origin` request header, for the optional CORS policy (`cors` option). */
  origin?: string | undefined;
}

/** The route is not gated: call the handler and add nothing. */
export interface PassDecision {
  action: 'pass';
}

/** The request is paid: add `headers` to the response and call the handler. */
export interface ServeDecision {
  action: 'serve';
  headers: Record<string, string>;
  payment: PaymentResponse;
  /**
   * Present when the gate was built with `refundOnHandlerError`: gives the deducted price back to the
   * balance, at most once however often it is called. Adapters call it when the handler answered 5xx or
   * threw. It never rejects: a store failure is reported through `onError`.
   */
  refund?: () => Promise<void>;
}

/** Answer now, without calling the handler. */
export interface RespondDecision {
  action: 'respond';
  status: number;
  headers: Record<string, string>;
  /** JSON body. */
  body: unknown;
}

export type GateDecision = PassDecision | ServeDecision | RespondDecision;
