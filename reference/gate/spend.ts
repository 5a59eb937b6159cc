// Spending from a balance (steps 6.2, 7.4 and 7.11): the deduction with its record and request id, and the paid pass it earns.
import { randomUUID } from 'node:crypto';
import type { PaymentResponse } from '../protocol/types.ts';
import type { Deduction, DeductionResult } from '../stores/store.ts';
import type { GateContext, GatedRoute } from './context.ts';
import type { GateDecision } from './decision.ts';
import { settlement } from './handler-refund.ts';
import { paymentError, serve, serviceUnavailable } from './responses.ts';
import { storeFailure } from './failures.ts';
import { OUTCOME_UNKNOWN } from './store-outcome.ts';
import { clientTag, NO_EVENTS } from './events.ts';

/** Who spends: the client, and the payload's request id when it has one (CR-6.9). */
interface Spender {
  clientId: string;
  requestId?: string | undefined;
}


/** The answer to a request id already spent on another request, or already repeated once (CR-6.9). */
const REQUEST_ID_SPENT = 'Invalid payment header: requestId was already used for another request, or its retry was already served';

/** The 503 for a retry whose request id's one repeat is claimed by another attempt still being answered (CR-6.9). */
const REPEAT_CLAIMED = 'Another attempt of this request is being answered; retry it in a moment with the same requestId';

/**
 * What a request id is kept for: the route key, the request path (a pattern route matches many), its currency and
 * its price; a retry must match it. The path of an exact route is its key's, so the key alone names it.
 */
function fingerprintOf(route: GatedRoute): string {
  return route.exact ? `${route.key}\n${route.currency}\n${route.amount}` : `${route.key}\n${route.path}\n${route.currency}\n${route.amount}`;
}

/** The `paid` of a deduction that no payment of this request preceded (one object, not one per call). */
const SPENT_FROM_BALANCE: { afterCredit: boolean } = Object.freeze({ afterCredit: false });

/**
 * Deducts the route price from the client's balance in the route's currency (CR-6.8) and builds the paid pass;
 * resolves null when the balance is insufficient. When the store keeps a log, the `deduction` record goes with
 * the deduction in the same atomic step; with a request id, a retry of that request is served without deducting
 * again, and a reused id is refused. `afterCredit` marks the step-11 deduction, whose 503 says the payment is
 * credited; `chargeId` goes into its `payment-response`. Only a pass that deducted can give its deduction back when
 * settled as failed (its price, record and request id together); a served retry deducted nothing and owes nothing.
 */
export async function spendBalance(
  ctx: GateContext,
  route: GatedRoute,
  spender: Spender,
  paid: { afterCredit: boolean; chargeId?: string } = SPENT_FROM_BALANCE,
): Promise<GateDecision | null> {
  const { store } = ctx;
  const { clientId, requestId } = spender;
  // With its deadline (the store-deadline wrapper's own), so that the wrapper hands it on as it is instead of copying it.
  const deduction: Deduction = { clientId, currency: route.currency, amount: route.amount, timeoutMs: ctx.storeTimeoutMs };
  if (store.recordTransaction) {
    deduction.record = { id: randomUUID(), type: 'deduction', clientId, currency: route.currency, amount: route.amount, createdAt: ctx.isoNow(), resource: route.key };
  }
  if (requestId !== undefined) {
    deduction.request = { id: requestId, fingerprint: fingerprintOf(route), ttlMs: ctx.requestIdTtlMs };
    // A repeat is only claimed until this call hears it was answered (CR-6.9): a claim whose answer is lost lapses.
    if (store.confirmRepeat) deduction.request.claim = { id: randomUUID(), leaseMs: ctx.repeatLeaseMs };
  }
  let result: DeductionResult;
  try {
    result = checkedResult(await store.deductBalance(deduction));
  } catch (error) {
    throw storeFailure(ctx.report, 'deductBalance', paid.afterCredit ? OUTCOME_UNKNOWN.DEDUCTION_AFTER_CREDIT : OUTCOME_UNKNOWN.DEDUCTION, error);
  }
  switch (result.status) {
    case 'insufficient':
      return null;
    case 'conflict':
      return paymentError('invalid_payment', REQUEST_ID_SPENT);
    case 'busy':
      return serviceUnavailable(REPEAT_CLAIMED);
    case 'deducted':
    case 'repeated': {
      const repeated = result.status === 'repeated';
      if (repeated) confirmRepeat(ctx, clientId, deduction);
      // Built only for a listener: without hooks a paid request allocates no event.
      if (ctx.emit !== NO_EVENTS) ctx.emit({
        type: 'deduction', route: route.key, currency: route.currency, units: repeated ? 0 : route.amount, balance: result.balance,
        repeated, afterCharge: paid.afterCredit, client: clientTag(clientId),
      });
      const payment: PaymentResponse = { success: true, creditsRemaining: result.balance, clientId };
      if (paid.chargeId !== undefined) payment.chargeId = paid.chargeId;
      const made = result.status === 'deducted' ? { recordId: deduction.record?.id, requestId } : undefined;
      return serve(payment, settlement(ctx, clientId, route, made));
    }
  }
}

/**
 * Tells the store that the repeat `deduction` claimed was answered, so that it is used (CR-6.9); not awaited: the
 * request is served meanwhile. A failure is reported: the claim then lapses, and one more retry may be served.
 */
function confirmRepeat(ctx: GateContext, clientId: string, deduction: Deduction): void {
  const { request } = deduction;
  if (request?.claim === undefined || !ctx.store.confirmRepeat) return;
  ctx.store.confirmRepeat({ clientId, requestId: request.id, claimId: request.claim.id }).catch((error: unknown) => ctx.report(error, 'confirmRepeat'));
}

const RESULT_STATUSES: ReadonlySet<unknown> = new Set(['deducted', 'insufficient', 'repeated', 'busy', 'conflict']);

/**
 * The store's answer when it is a {@link DeductionResult}; otherwise throws, so that a store outside the contract (one
 * answering a bare balance or null, as CR-11.2's wire-level signature does) fails closed as a failed deduction of
 * unknown outcome (CR-8.11, CR-8.12) and is reported, instead of passing an unreadable answer on.
 */
function checkedResult(result: DeductionResult): DeductionResult {
  // The usual answer, read without reflection: a plain object that says deducted with a safe integer balance.
  if (typeof result === 'object' && result !== null && result.status === 'deducted' && Number.isSafeInteger(result.balance)) return result;
  const fields: unknown = result;
  const status = typeof fields === 'object' && fields !== null ? Reflect.get(fields, 'status') : undefined;
  const balance = typeof fields === 'object' && fields !== null ? Reflect.get(fields, 'balance') : undefined;
  const needsBalance = status === 'deducted' || status === 'repeated';
  if (!RESULT_STATUSES.has(status) || (needsBalance && !Number.isSafeInteger(balance))) {
    throw new TypeError(`deductBalance resolved ${JSON.stringify(result)}, which is not a DeductionResult (see the store contract)`);
  }
  return result;
}
