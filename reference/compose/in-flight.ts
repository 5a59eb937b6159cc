// Counts the gate decisions under way, so the server can wait for them before closing the store.
import type { Gate, GateDecision } from '../gate/index.ts';

/** A gate that tracks its pending `handle` calls, and a way to wait until none is left. */
interface TrackedGate {
  gate: Gate;
  /** Resolves when no decision is pending, or after `timeoutMs`, whichever comes first. */
  drain(timeoutMs: number): Promise<void>;
}

/** Wraps `gate` so that closing the server never closes the store under a request still being decided. */
export function trackInFlight(gate: Gate): TrackedGate {
  let pending = 0;
  let idle: (() => void) | undefined;
  const finished = (): void => {
    pending -= 1;
    if (pending === 0) idle?.();
  };
  // One `then` on the gate's promise instead of an async wrapper: a paid request allocates one promise here, not two.
  const passOn = (decision: GateDecision): GateDecision => {
    finished();
    return decision;
  };
  const failOn = (error: unknown): never => {
    finished();
    throw error;
  };
  const tracked: Gate = {
    ...gate,
    handle(request) {
      pending += 1;
      let decided: Promise<GateDecision>;
      try {
        decided = gate.handle(request);
      } catch (error) {
        finished();
        return Promise.reject(error);
      }
      return decided.then(passOn, failOn);
    },
  };
  return {
    gate: tracked,
    drain: (timeoutMs) =>
      new Promise<void>((resolve) => {
        if (pending === 0) return resolve();
        const timer = setTimeout(resolve, timeoutMs);
        idle = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
  };
}
