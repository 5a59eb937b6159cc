// Idempotency keys: replays the first answer to a repeated POST, rejects a key reused with other parameters.
import { isDeepStrictEqual } from 'node:util';
import type { Params } from './params.ts';

const KEY_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The stored answer of a request that executed. */
interface StoredResponse {
  method: string;
  path: string;
  params: Params;
  status: number;
  body: string;
  requestId: string;
  storedAt: number;
}

type IdempotencyLookup =
  | { kind: 'new' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' };

export class IdempotencyStore {
  readonly #responses = new Map<string, StoredResponse>();

  /** What to do with a request carrying `key`. Keys expire after 24 hours, as at Stripe. */
  lookup(key: string, method: string, path: string, params: Params): IdempotencyLookup {
    const stored = this.#responses.get(key);
    if (!stored || Date.now() - stored.storedAt > KEY_LIFETIME_MS) return { kind: 'new' };
    const same = stored.method === method && stored.path === path && isDeepStrictEqual(stored.params, params);
    return same ? { kind: 'replay', response: stored } : { kind: 'mismatch' };
  }

  save(key: string, response: Omit<StoredResponse, 'storedAt'>): void {
    this.#responses.set(key, { ...response, storedAt: Date.now() });
  }

  clear(): void {
    this.#responses.clear();
  }
}
