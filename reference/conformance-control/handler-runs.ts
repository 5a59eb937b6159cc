// Handler runs of the conformance profile: the demo handlers count their runs per request id; a free route reports the counts.

/** The request header carrying the conformance kit's request id. */
export const REQUEST_ID_HEADER = 'conformance-request-id';

/** The free route answering the counts: `GET /_conformance/handled?ids=<id>,<id>,…` (the profile's `handledPath`). */
export const HANDLED_PATH = '/_conformance/handled';

/** Ids answered by one query of the handled route at most; the kit asks for 100 at a time. */
const MAX_IDS_PER_QUERY = 1000;

/** Counts handler runs by request id, keeping only the most recently started `limit` ids. */
export class HandlerRuns {
  readonly #runs = new Map<string, number>();
  readonly #limit: number;

  /** `limit`: how many request ids are remembered; the oldest is forgotten first (default 10000). */
  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  /** Counts one handler run for the request's id header value; a request without one is not counted. */
  record(requestId: string | readonly string[] | undefined): void {
    const id = typeof requestId === 'string' ? requestId : requestId?.join(', ');
    if (id === undefined || id === '') return;
    const runs = this.#runs.get(id);
    if (runs !== undefined) {
      this.#runs.set(id, runs + 1);
      return;
    }
    if (this.#runs.size >= this.#limit) this.#runs.delete(this.#runs.keys().next().value as string);
    this.#runs.set(id, 1);
  }

  /** The number of runs of each id; 0 for an id never seen or forgotten. */
  count(id: string): number {
    return this.#runs.get(id) ?? 0;
  }

  /** The handled route's JSON body for a request target `…?ids=a,b`: `{"a": 1, "b": 0}` (at most 1000 ids). */
  answer(requestTarget: string): Record<string, number> {
    const query = new URL(requestTarget, 'http://localhost').searchParams;
    const ids = query.getAll('ids').flatMap((value) => value.split(',')).filter((id) => id !== '').slice(0, MAX_IDS_PER_QUERY);
    // fromEntries defines own members, so an id such as "__proto__" stays a plain member.
    return Object.fromEntries(ids.map((id) => [id, this.count(id)]));
  }
}
