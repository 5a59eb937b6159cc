// The profile's handlers as the kit's controlled upstream serves them, as tooling/self-test/profile-upstream.py does: route bodies, params, failing handlers, run counts.
import type { Profile } from './parameters.ts';
import { profileKeyOf } from './route-patterns.ts';

/** The profile's default path of the handled route. */
const DEFAULT_HANDLED_PATH = '/_conformance/handled';

/** How many request ids the run counts keep (PROFILE.md: the last 10000). */
const KEPT_IDS = 10_000;

/** An answer of a profile handler (or of the handled route, or a 404). */
export interface HandlerAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** The parameters of a pattern key's path for a request path (CR-4.11): each `:name` by name, the final `*`'s rest. */
export function paramsOf(keyPath: string, path: string): Record<string, string> | undefined {
  const keyParts = keyPath.slice(1).split('/');
  const parts = path.slice(1).split('/');
  const params: Record<string, string> = {};
  let pattern = false;
  keyParts.forEach((part, index) => {
    if (part === '*' && index === keyParts.length - 1) {
      params['*'] = parts.slice(index).join('/');
      pattern = true;
    } else if (part.startsWith(':')) {
      params[part.slice(1)] = parts[index] ?? '';
      pattern = true;
    }
  });
  return pattern ? params : undefined;
}

/**
 * The profile's application: every route of `routes` and `freeRoutes` answers 200 `{"route", "gated", "params"?}` and
 * counts its run under the request's `conformance-request-id`; `failingHandlers` answer 500 with the route's body
 * (`answer500`) or count and then fail as a framework answers a handler that throws (500 `{"error"}`); the handled route
 * answers the counts; anything else is 404.
 */
export class UpstreamHandlers {
  readonly #gated: ReadonlySet<string>;
  readonly #keys: readonly string[];
  readonly #failing: Readonly<Record<string, string>>;
  readonly #handledPath: string;
  readonly #runs = new Map<string, number>();

  constructor(profile: Profile) {
    this.#gated = new Set(Object.keys(profile.routes));
    this.#keys = [...new Set([...Object.keys(profile.routes), ...profile.freeRoutes])];
    this.#failing = profile.failingHandlers ?? {};
    this.#handledPath = profile.handledPath ?? DEFAULT_HANDLED_PATH;
  }

  /** How often the handler of the request with this id ran (0 for an id never seen). */
  runs(requestId: string): number {
    return this.#runs.get(requestId) ?? 0;
  }

  /** Answers one request: `target` as received (path and query not decoded), `requestId` its header, if any. */
  answer(method: string, target: string, requestId: string | undefined): HandlerAnswer {
    const at = target.indexOf('?');
    const path = at === -1 ? target : target.slice(0, at);
    const query = at === -1 ? '' : target.slice(at + 1);
    if (path === this.#handledPath && (method === 'GET' || method === 'HEAD')) return { status: 200, body: this.#counts(query) };
    const key = path.startsWith('/') ? profileKeyOf(this.#keys, `${method} ${path}`) : undefined;
    if (key === undefined) return { status: 404, body: { error: 'Not Found' } };
    if (requestId !== undefined && requestId !== '') this.#count(requestId);
    const params = paramsOf(key.slice(key.indexOf(' ') + 1), path);
    const body: Record<string, unknown> = { route: key, gated: this.#gated.has(key), ...(params ? { params } : {}) };
    const failing = this.#failing[key];
    if (failing === 'throw') return { status: 500, body: { error: 'Internal Server Error' } };
    if (failing === 'answer500') return { status: 500, body: { ...body, error: "the handler answers 500 (the profile's failingHandlers)" } };
    return { status: 200, body };
  }

  #count(requestId: string): void {
    const runs = (this.#runs.get(requestId) ?? 0) + 1;
    this.#runs.delete(requestId);
    this.#runs.set(requestId, runs);
    if (this.#runs.size > KEPT_IDS) this.#runs.delete(this.#runs.keys().next().value ?? '');
  }

  #counts(query: string): Record<string, unknown> {
    const ids = new URLSearchParams(query).getAll('ids').flatMap((value) => value.split(',')).filter((id) => id !== '').slice(0, 1000);
    return Object.fromEntries(ids.map((id) => [id, this.runs(id)]));
  }
}
