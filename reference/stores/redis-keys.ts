// Names of the Redis store's keys under one prefix, one namespace per kind of key.

/**
 * The keys of one prefix: `<prefix>client:<id>` (hash), `<prefix>transactions:<id>` (stream),
 * `<prefix>credited:<paymentIntentId>` (hash; a string before balances had a currency),
 * `<prefix>reversals:<paymentIntentId>` (hash), `<prefix>request:<length of client id>:<client id>:<request id>`
 * (string), `<prefix>event:<id>`, `<prefix>lock:<name>` and `<prefix>legacy-currency` (string).
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** The client's hash: `top_ups`, `created_at` and `balance:<currency>` per currency held. */
  client(clientId: string): string {
    return `${this.prefix}client:${clientId}`;
  }

  /** The client's transaction log (a stream). */
  log(clientId: string): string {
    return `${this.prefix}transactions:${clientId}`;
  }

  /** The marker of a credited PaymentIntent. */
  credited(paymentIntentId: string): string {
    return `${this.prefix}credited:${paymentIntentId}`;
  }

  /** The reversals recorded for a PaymentIntent. */
  reversals(paymentIntentId: string): string {
    return `${this.prefix}reversals:${paymentIntentId}`;
  }

  /**
   * A kept deduction of (client, request id). The client id's length comes first, so that no two pairs
   * share a key even when the ids contain `:`.
   */
  request(clientId: string, requestId: string): string {
    return `${this.prefix}request:${clientId.length}:${clientId}:${requestId}`;
  }

  /** A processed webhook event id. */
  event(eventId: string): string {
    return `${this.prefix}event:${eventId}`;
  }

  /** A lease. */
  lock(name: string): string {
    return `${this.prefix}lock:${name}`;
  }

  /** The currency this prefix's data from before balances had a currency is read as (pinned once). */
  legacyCurrency(): string {
    return `${this.prefix}legacy-currency`;
  }
}
