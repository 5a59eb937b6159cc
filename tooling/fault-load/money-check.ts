// The fault load's verdict: every deduction served, every service deducted, every PaymentIntent charged once per request and credited once.
import type { EventRecord } from 'credit402-stripe-emulator';
import { checkInvariants } from '../crash-test/invariants.ts';
import { ledgerFromEvents } from '../crash-test/ledger.ts';
import { HANDLED_PATH } from 'credit402/internal/conformance-control/handler-runs';
import type { Store } from 'credit402/stores';
import type { Operation } from './workload.ts';

/** What the check counted, and each broken rule in words. */
export interface MoneyVerdict {
  deductionsWithoutService: number;
  servicesWithoutDeduction: number;
  /** Payment methods charged more than once (each is used by one request only). */
  chargedTwice: number;
  succeededPaymentIntents: number;
  violations: string[];
}

/** Handler runs per request id, from the server's handled route, 100 ids a query. */
export async function handlerRuns(base: URL, ids: readonly string[]): Promise<Map<string, number>> {
  const runs = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 100) {
    const url = new URL(HANDLED_PATH, base);
    url.searchParams.set('ids', ids.slice(i, i + 100).join(','));
    const answer: unknown = await (await fetch(url)).json();
    if (typeof answer !== 'object' || answer === null) throw new Error(`${HANDLED_PATH} answered ${JSON.stringify(answer)}`);
    for (const [id, count] of Object.entries(answer)) runs.set(id, typeof count === 'number' ? count : Number.NaN);
  }
  return runs;
}

/** Each operation's own verdict: a final answer, and its handler run once, or twice when a cut answer was repeated. */
function operationViolations(ops: readonly Operation[], runs: ReadonlyMap<string, number>): string[] {
  const found: string[] = [];
  for (const op of ops) {
    const ran = runs.get(op.requestId) ?? 0;
    if (op.final === undefined) found.push(`${op.requestId} (${op.route}): no final answer after ${op.attempts} attempts`);
    else if (op.final.status !== 200 && op.final.status !== 402) found.push(`${op.requestId} (${op.route}): answered ${op.final.status} ${op.final.errorCode ?? ''}`);
    else if (op.final.status === 402 && (op.final.errorCode === 'invalid_payment' ? ran === 0 || op.cut === 0 : ran > 0)) {
      // A request id is refused as spent only once its repeat was served (CR-6.9): the handler ran, and the client lost
      // an answer on the way (an attempt cut off); a repeat whose answer nobody received is never used up.
      found.push(`${op.requestId} (${op.route}): refused (${op.final.errorCode}: ${op.final.error}) after its handler ran ${ran} times and ${op.cut} of its ${op.attempts} attempts were cut off`);
    }
    if (ran > 2) found.push(`${op.requestId} (${op.route}): its handler ran ${ran} times (one deduction serves twice at most, CR-6.9)`);
  }
  return found;
}

/** Deduction records against served requests, per client and route: the two counts must be equal. */
async function deductionViolations(store: Store, ops: readonly Operation[], runs: ReadonlyMap<string, number>, verdict: MoneyVerdict): Promise<void> {
  const served = new Map<string, number>();
  for (const op of ops) if ((runs.get(op.requestId) ?? 0) > 0) served.set(`${op.clientId} ${op.route}`, (served.get(`${op.clientId} ${op.route}`) ?? 0) + 1);
  const deducted = new Map<string, number>();
  for (const clientId of new Set(ops.map((op) => op.clientId))) {
    for (const record of (await store.listTransactions?.(clientId)) ?? []) {
      if (record.type === 'deduction') deducted.set(`${clientId} ${record.resource}`, (deducted.get(`${clientId} ${record.resource}`) ?? 0) + 1);
    }
  }
  for (const key of new Set([...served.keys(), ...deducted.keys()])) {
    const gap = (deducted.get(key) ?? 0) - (served.get(key) ?? 0);
    if (gap === 0) continue;
    if (gap > 0) verdict.deductionsWithoutService += gap;
    else verdict.servicesWithoutDeduction -= gap;
    verdict.violations.push(`client ${key.slice(0, 8)}…${key.slice(64)}: ${deducted.get(key) ?? 0} deductions for ${served.get(key) ?? 0} served requests`);
  }
}

/** Succeeded PaymentIntents per payment method: each method pays one request, so more than one is a double charge. */
function chargeViolations(events: readonly EventRecord[], verdict: MoneyVerdict): void {
  const byMethod = new Map<string, string[]>();
  for (const { event } of events) {
    if (event.type !== 'payment_intent.succeeded') continue;
    const object: Record<string, unknown> = { ...event.data.object };
    const method = String(object.payment_method);
    byMethod.set(method, [...(byMethod.get(method) ?? []), String(object.id)]);
    verdict.succeededPaymentIntents++;
  }
  for (const [method, intents] of byMethod) {
    if (intents.length < 2) continue;
    verdict.chargedTwice++;
    verdict.violations.push(`${method}: charged ${intents.length} times for one request (${intents.join(', ')})`);
  }
}

/** Judges a finished fault load: `events` are every event the emulator emitted, after all were delivered. */
export async function checkMoney(store: Store, base: URL, ops: readonly Operation[], events: readonly EventRecord[]): Promise<MoneyVerdict> {
  const verdict: MoneyVerdict = { deductionsWithoutService: 0, servicesWithoutDeduction: 0, chargedTwice: 0, succeededPaymentIntents: 0, violations: [] };
  const runs = await handlerRuns(base, ops.map((op) => op.requestId));
  verdict.violations.push(...operationViolations(ops, runs));
  await deductionViolations(store, ops, runs, verdict);
  chargeViolations(events, verdict);
  verdict.violations.push(...(await checkInvariants(store, ledgerFromEvents(events))));
  return verdict;
}
