// Where the client keeps its clientIds, one per origin; the in-memory default.

/** Pluggable clientId storage keyed by origin (`https://api.example.com`). A clientId is a bearer credential (CR-10.2). */
export interface ClientIdStorage {
  get(origin: string): Promise<string | undefined>;
  set(origin: string, clientId: string): Promise<void>;
}

/** Keeps clientIds for the life of the process. */
export class MemoryClientIdStorage implements ClientIdStorage {
  readonly #ids = new Map<string, string>();

  async get(origin: string): Promise<string | undefined> {
    return this.#ids.get(origin);
  }

  async set(origin: string, clientId: string): Promise<void> {
    this.#ids.set(origin, clientId);
  }
}
