// Names of the Redis store's keys under one prefix, one namespace per kind of key: the layout of one server, and the hash-tagged one of a cluster.

/**
 * The keys of one prefix: `<prefix>client:<id>` (hash), `<prefix>transactions:<id>` (stream),
 * `<prefix>credited:<paymentIntentId>` (hash; a string before balances had a currency),
 * `<prefix>reversals:<paymentIntentId>` (hash), `<prefix>request:<length of client id>:<client id>:<request id>`
 * and `<prefix>refund:<length of client id>:<client id>:<refund id>` (strings), `<prefix>event:<id>`, `<prefix>lock:<name>`, `<prefix>legacy-currency` and `<prefix>store-id` (strings).
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

  /** An applied refund of (client, refund id), kept until it expires; laid out as {@link request}. */
  refund(clientId: string, refundId: string): string {
    return `${this.prefix}refund:${clientId.length}:${clientId}:${refundId}`;
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

  /** The store's id (pinned once, random): one per prefix. */
  storeId(): string {
    return `${this.prefix}store-id`;
  }
}

/**
 * The keys of one prefix on a Redis Cluster, where a script may only touch keys of one hash slot. Every key of a
 * client shares the hash tag `{c:<length of id>:<id>}`, every key of a PaymentIntent `{p:<length of id>:<id>}`
 * (the length first keeps keys apart whatever the ids contain, `}` included: the tag ends at the first `}`, inside the
 * common start of the keys of that one id, so they share a slot all the same). Per client: `<prefix>{c:…}client`
 * (hash), `<prefix>{c:…}transactions` (stream), `<prefix>{c:…}request:<request id>`, `<prefix>{c:…}refund:<refund id>` and `<prefix>{c:…}credit:<pi>`
 * (the client's side of a credited PaymentIntent: see redis-cluster-scripts.ts). Per PaymentIntent:
 * `<prefix>{p:…}credited` and `<prefix>{p:…}reversals`. Processed events, leases, the legacy currency and the store id
 * keep their names: each is the only key of its commands. The prefix must hold no `{` or `}`, which would move the
 * hash tag.
 */
export class ClusterKeys extends RedisKeys {
  #client(clientId: string): string {
    return `${this.prefix}{c:${clientId.length}:${clientId}}`;
  }

  #paymentIntent(paymentIntentId: string): string {
    return `${this.prefix}{p:${paymentIntentId.length}:${paymentIntentId}}`;
  }

  override client(clientId: string): string {
    return `${this.#client(clientId)}client`;
  }

  override log(clientId: string): string {
    return `${this.#client(clientId)}transactions`;
  }

  override request(clientId: string, requestId: string): string {
    return `${this.#client(clientId)}request:${requestId}`;
  }

  override refund(clientId: string, refundId: string): string {
    return `${this.#client(clientId)}refund:${refundId}`;
  }

  /** The client's side of a PaymentIntent credited to it: hash { currency, amount, reversed }. */
  credit(clientId: string, paymentIntentId: string): string {
    return `${this.#client(clientId)}credit:${paymentIntentId}`;
  }

  override credited(paymentIntentId: string): string {
    return `${this.#paymentIntent(paymentIntentId)}credited`;
  }

  override reversals(paymentIntentId: string): string {
    return `${this.#paymentIntent(paymentIntentId)}reversals`;
  }
}
