// The settlement of a served request: the refund of its whole deduction when its upstream or handler failed, retried, applied at most once.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeductionRefund, DeductionRefundResult } from '../stores/store.ts';
import type { GateContext, GatedRoute } from './context.ts';
import type { ServeDecision, ServeOutcome } from './decision.ts';
import { clientTag, type ClientTag } from './events.ts';

type Settle = ServeDecision['settle'];

/** Whether the answer to a served request failed: the handler threw, or the answer's status is 5xx. */
function handlerFailed(outcome: ServeOutcome): boolean {
  return 'threw' in outcome || outcome.status >= 500;
}

/** Whether the outcome gives the price back: a gateway's upstream failure always (CR-15.3), a failed handler with `refundOnHandlerError`. */
function refundOwed(refundOnHandlerError: boolean, outcome: ServeOutcome): boolean {
  return 'upstreamFailed' in outcome || (refundOnHandlerError && handlerFailed(outcome));
}

/** What a settlement that gives nothing back answers: one resolved promise, shared. */
const SETTLED: Promise<void> = Promise.resolve();

/** The settlement of a pass that owes nothing back. */
const NOTHING_OWED: Settle = () => SETTLED;

/** The deduction a pass made: its record's id (when the store keeps a log) and the request id it was kept under. */
export interface MadeDeduction {
  recordId: string | undefined;
  requestId: string | undefined;
}

/**
 * The `settle` of a paid pass. With a deduction made by this request (`made`; undefined for a pass that deducted
 * nothing), its first call gives that deduction back whole when the outcome owes it (an upstream failure of a gateway
 * always, a failed handler with `refundOnHandlerError`): the route's price to `clientId`'s balance in the route's
 * currency, its record out of the log and its request id forgotten, in one store step, so that the same request id
 * is deducted again rather than served free as a repeat (CR-6.9, CR-15.3). A refund whose call failed or timed out is
 * tried again in the background, under the same refund id (see {@link refund}). Later calls do nothing. Never rejects:
 * a store failure is reported as `refundOnHandlerError`.
 */
export function settlement(ctx: GateContext, clientId: string, route: GatedRoute, made: MadeDeduction | undefined): Settle {
  if (made === undefined || route.amount === 0) return NOTHING_OWED;
  let settled = false;
  // Not async: the usual outcome owes nothing and answers the shared resolved promise.
  return (outcome) => {
    if (settled) return SETTLED;
    settled = true;
    if (!refundOwed(ctx.refundOnHandlerError, outcome)) return SETTLED;
    return refund(ctx, clientId, route, made);
  };
}

/** The pauses before the second and the third attempt of a refund whose call failed or timed out, in ms. */
export const REFUND_RETRY_DELAYS_MS: readonly number[] = [250, 1_000];

/** What a refund that did not reach the client tells an operator: the route, the client's tag, the amount and the refund id. */
export abstract class RefundNotGivenError extends Error {
  /** The route key whose price stays deducted. */
  readonly route: string;
  /** The client's tag (the first 8 characters of its id: never the bearer credential itself). */
  readonly client: ClientTag;
  readonly currency: string;
  readonly units: number;
  /** The refund's id: a store applies it at most once, so giving it back by hand under this id is safe. */
  readonly refundId: string;

  constructor(route: GatedRoute, given: DeductionRefund, why: string, options?: { cause: unknown }) {
    super(`the refund ${given.refundId} of ${given.amount} ${given.currency} units (${route.key}, client ${clientTag(given.clientId)}…) ${why}`, options);
    this.route = route.key;
    this.client = clientTag(given.clientId);
    this.currency = given.currency;
    this.units = given.amount;
    this.refundId = given.refundId;
  }
}

/** A refund that still failed after its last attempt: the client did not get the price back, and an operator should. */
export class RefundFailedError extends RefundNotGivenError {
  readonly code = 'ERR_REFUND_FAILED';

  constructor(route: GatedRoute, given: DeductionRefund, readonly attempts: number, options: { cause: unknown }) {
    super(route, given, `failed ${attempts} times; the client did not get it back`, options);
    this.name = 'RefundFailedError';
  }
}

/**
 * A refund the store did not apply because the client's retry of the same request id was answered as its repeat first
 * (`superseded`, CR-6.9): the deduction paid for that answer and stands, and nobody owes anything. Reported once per
 * refund (stage `refundOnHandlerError`) so that an operator who counts `refund` events sees why one is missing.
 */
export class RefundSupersededError extends RefundNotGivenError {
  readonly code = 'ERR_REFUND_SUPERSEDED';

  constructor(route: GatedRoute, given: DeductionRefund, readonly attempts: number) {
    super(route, given, 'was not applied: a retry of its request id was answered as the repeat first, so the deduction paid for that answer and stands (CR-6.9)');
    this.name = 'RefundSupersededError';
  }
}

/**
 * Gives the deduction back whole (price, record, request id) under one refund id, so that the store applies it at most
 * once however many attempts reach it (CR-15.3). Resolves once the first attempt settled; when it failed or timed out
 * (its outcome unknown: a late one applies nothing, a lost reply may have applied it) the next attempts follow in the
 * background after {@link REFUND_RETRY_DELAYS_MS}. Each failed attempt is reported as `refundOnHandlerError`, the last
 * one as a {@link RefundFailedError}. An attempt the store answers `superseded` (the client's retry of the request id
 * was served as its repeat before the refund reached the store, CR-6.9) ends the refund: no `refund` event, no more
 * attempts, one {@link RefundSupersededError} reported. Never rejects.
 */
async function refund(ctx: GateContext, clientId: string, route: GatedRoute, made: MadeDeduction): Promise<void> {
  const given: DeductionRefund = {
    clientId,
    currency: route.currency,
    amount: route.amount,
    recordId: made.recordId,
    requestId: made.requestId,
    refundId: randomUUID(),
  };
  if (await attempt(ctx, route, given, 1)) return;
  void retry(ctx, route, given);
}

/** The attempts after the first, each after its pause, until one applies or the last has failed. */
async function retry(ctx: GateContext, route: GatedRoute, given: DeductionRefund): Promise<void> {
  for (const [index, pause] of REFUND_RETRY_DELAYS_MS.entries()) {
    await sleep(pause);
    if (await attempt(ctx, route, given, index + 2)) return;
  }
}

/**
 * One call of the refund; true when the store answered it, so that no attempt follows: `refunded` (now or before) emits
 * the `refund` event, `superseded` is reported, and an answer outside the store contract is reported as a TypeError
 * (the store answered, so another attempt would not learn more). A failure is reported; never rejects.
 */
async function attempt(ctx: GateContext, route: GatedRoute, given: DeductionRefund, number: number): Promise<boolean> {
  let result: DeductionRefundResult;
  try {
    result = await ctx.store.refundDeduction(given);
  } catch (error) {
    const last = number > REFUND_RETRY_DELAYS_MS.length;
    ctx.report(last ? new RefundFailedError(route, given, number, { cause: error }) : error, 'refundOnHandlerError');
    return false;
  }
  switch (statusOf(result)) {
    case 'refunded':
      ctx.emit({ type: 'refund', route: route.key, currency: route.currency, units: route.amount, client: clientTag(given.clientId) });
      break;
    case 'superseded':
      ctx.report(new RefundSupersededError(route, given, number), 'refundOnHandlerError');
      break;
    default:
      ctx.report(new TypeError(`refundDeduction resolved ${shown(result)}, which is not a DeductionRefundResult (see the store contract); whether the refund ${given.refundId} was applied is unknown`), 'refundOnHandlerError');
  }
  return true;
}

/** The status of a store's refund answer, read without trusting its shape; undefined when it is not a {@link DeductionRefundResult}. */
function statusOf(result: unknown): DeductionRefundResult['status'] | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const status: unknown = Reflect.get(result, 'status');
  if (status !== 'refunded' && status !== 'superseded') return undefined;
  return Number.isSafeInteger(Reflect.get(result, 'balance')) ? status : undefined;
}

/** A store's answer as text for a report: JSON when it has one, else what String makes of it; never throws. */
function shown(answer: unknown): string {
  try {
    return JSON.stringify(answer) ?? String(answer);
  } catch {
    return Object.prototype.toString.call(answer);
  }
}
