// Mutant target: request ids not scoped per client: a request id kept by one client's deduction serves another client's
// request with that id on that route as its repeat, free (breaks CR-6.9).
import { pathToFileURL } from 'node:url';
import type { Deduction, DeductionResult, Store } from 'credit402/stores';
import { wrapStoreMethods } from 'credit402/internal/stores/wrap-store';
import { serveStoreMutant } from './serve-store-mutant.ts';

/**
 * `store` that also remembers every request id it deducted for, whatever the client; the bug: a deduction of another
 * client with a remembered id and the same fingerprint is answered `repeated` with that client's balance, nothing deducted.
 */
export function requestIdUnscoped(store: Store): Store {
  const kept = new Map<string, { clientId: string; fingerprint: string }>();
  return Object.assign(wrapStoreMethods(store, (_name, call) => call()), {
    deductBalance: async (deduction: Deduction): Promise<DeductionResult> => {
      const request = deduction.request;
      const earlier = request === undefined ? undefined : kept.get(request.id);
      if (request && earlier && earlier.clientId !== deduction.clientId && earlier.fingerprint === request.fingerprint) {
        const client = await store.getClient(deduction.clientId);
        return { status: 'repeated', balance: client?.balances[deduction.currency] ?? 0 };
      }
      const result = await store.deductBalance(deduction);
      if (request && result.status === 'deducted') kept.set(request.id, { clientId: deduction.clientId, fingerprint: request.fingerprint });
      return result;
    },
  } satisfies Partial<Store>);
}

// As a `--target-cmd`: profile from CREDIT402_PROFILE, port from PORT, Stripe API from STRIPE_API_BASE.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await serveStoreMutant('request-id-unscoped', requestIdUnscoped);
