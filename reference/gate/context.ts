// The resolved configuration one gate instance works with, shared by its processing paths.
import type { Processor } from '../processor/processor.ts';
import type { Store } from '../stores/store.ts';
import type { Emit } from './events.ts';
import type { ErrorReporter } from './failures.ts';
import type { RouteChallenges } from './responses.ts';
import type { ResolvedRoute } from './routes.ts';

/**
 * A gated route with its challenges. A route of an exact key (`exact`) has them built once; for any other route (a
 * pattern, or one the application's router matched) `path` and `challenges` are the request's (`resource.url` is the
 * request path, CR-4.14), made for each request by {@link forRequest}.
 */
export interface GatedRoute extends ResolvedRoute {
  /** Whether the key's path is the one request path this route matches (a table key without pattern). */
  readonly exact: boolean;
  readonly challenges: RouteChallenges;
}

export interface GateContext {
  store: Store;
  processor: Processor;
  serverSecret: string;
  serviceName: string;
  report: ErrorReporter;
  /** The per-client payment lock's timing, or undefined when the store has no locks. */
  lock: { waitMs: number; ttlMs: number } | undefined;
  /** The deadline of one store call, in ms: a deduction carries it (`timeoutMs`), so the deadline wrapper need not copy it to add it. */
  storeTimeoutMs: number;
  /** How long a deduction is kept under its request id (CR-6.9), in ms. */
  requestIdTtlMs: number;
  /** How long a claim of a request id's repeat holds unconfirmed (CR-6.9), in ms: {@link repeatLeaseMs} of the store bound. */
  repeatLeaseMs: number;
  /** The current time as ISO 8601 text, for the dates of records (the gate's own clock, iso-clock.ts). */
  isoNow: () => string;
  /** Whether a served request's price goes back when its handler fails (`refundOnHandlerError`). */
  refundOnHandlerError: boolean;
  /** Hands lifecycle events to the `hooks` option (a no-op without hooks); never throws. */
  emit: Emit;
}

/**
 * The route as one request to it sees it: an exact route as it is; any other with `path` the request path and its
 * challenges built from that path, on first use (a paid request never builds them).
 */
export function forRequest(route: GatedRoute, requestPath: string, build: (route: ResolvedRoute) => RouteChallenges): GatedRoute {
  if (route.exact) return route;
  let challenges: RouteChallenges | undefined;
  const requested: ResolvedRoute = { ...route, path: requestPath };
  return Object.freeze({
    ...requested,
    exact: false,
    get challenges(): RouteChallenges {
      challenges ??= build(requested);
      return challenges;
    },
  });
}

/**
 * The lease of a repeat's claim for a store bound of `storeTimeoutMs`: the claim's answer and its confirmation each
 * arrive within the bound, or the call failed; one second more for the event loops and clocks between them.
 */
export function repeatLeaseMs(storeTimeoutMs: number): number {
  return 2 * storeTimeoutMs + 1_000;
}
