// Counts the gate decisions under way, so the server can wait for them before closing the store.
import type { Gate } from '../gate/gate.ts';

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
  const tracked: Gate = {
    ...gate,
    async handle(request) {
      pending += 1;
      try {
        return await gate.handle(request);
      } finally {
        pending -= 1;
        if (pending === 0) idle?.();
      }
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
