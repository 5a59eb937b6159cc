// The resolved configuration one gate instance works with, shared by its processing paths.
import type { Processor } from '../processor/processor.ts';
import type { Store } from '../stores/store.ts';
import type { Emit } from './events.ts';
import type { ErrorReporter } from './failures.ts';
import type { RouteChallenges } from './responses.ts';
import type { ResolvedRoute } from './routes.ts';

/** A gated route with its prebuilt challenges. */
export interface GatedRoute extends ResolvedRoute {
  challenges: RouteChallenges;
}

export interface GateContext {
  store: Store;
  processor: Processor;
  serverSecret: string;
  serviceName: string;
  report: ErrorReporter;
  /** The per-client payment lock's timing, or undefined when the store has no locks. */
  lock: { waitMs: number; ttlMs: number } | undefined;
  /** How long a deduction is kept under its request id (CR-6.9), in ms. */
  requestIdTtlMs: number;
  /** Whether a served request's price goes back when its handler fails (`refundOnHandlerError`). */
  refundOnHandlerError: boolean;
  /** Hands lifecycle events to the `hooks` option (a no-op without hooks); never throws. */
  emit: Emit;
}
