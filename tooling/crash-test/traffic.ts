// The crash test's load: paid requests (first payments, spends, both), refunds and disputes, and retries of cut requests.
import type { EmulatorControl } from 'credit402-stripe-emulator';
import { paidFetch } from '../testing/paid-fetch.ts';
import type { LedgerEntry } from './ledger.ts';
import type { Random } from './random.ts';

/** A card and the payment methods created for it (one card, several ids: distinct idempotency keys). */
export interface Card {
  number: string;
  paymentMethods: string[];
}

/** One thing the driver does. */
export type Operation =
  | { kind: 'request'; route: string; payment: Record<string, unknown> }
  | { kind: 'refund'; paymentIntentId: string; cents: number }
  | { kind: 'dispute'; paymentIntentId: string };

/** Counters for the report. */
export interface TrafficStats {
  requests: number;
  answered: Record<string, number>;
  cut: number;
  refunds: number;
  disputes: number;
  /** PaymentIntent ids a 200 answer carried as chargeId: credited by the request path. */
  chargedInAnswer: Set<string>;
}

export function newStats(): TrafficStats {
  return { requests: 0, answered: {}, cut: 0, refunds: 0, disputes: 0, chargedInAnswer: new Set() };
}

const ROUTES = ['GET /api/weather', 'GET /api/weather', 'GET /api/nodesc', 'POST /api/translate'];
const TOP_UPS = [undefined, 50_000, 50_001, 60_050];

/** A random batch of 2 to 6 operations over the known cards and the ledger's clients and top-ups. */
export function randomBatch(rng: Random, cards: readonly Card[], ledger: ReadonlyMap<string, LedgerEntry>): Operation[] {
  const entries = [...ledger.values()];
  const clients = [...new Set(entries.map((e) => e.clientId))];
  const batch: Operation[] = [];
  for (let i = rng.int(2, 6); i > 0; i--) {
    const roll = rng.next();
    const route = rng.pick(ROUTES);
    const paymentMethodId = rng.pick(rng.pick(cards).paymentMethods);
    const topUpAmount = route.startsWith('POST') ? undefined : rng.pick(TOP_UPS);
    const pay = { paymentMethodId, ...(topUpAmount === undefined ? {} : { topUpAmount }) };
    if (roll < 0.45 || clients.length === 0) batch.push({ kind: 'request', route, payment: pay });
    else if (roll < 0.8) batch.push({ kind: 'request', route, payment: { clientId: rng.pick(clients) } });
    else if (roll < 0.9) batch.push({ kind: 'request', route, payment: { clientId: rng.pick(clients), ...pay } });
    else {
      const entry = rng.pick(entries);
      const left = entry.amountCents - entry.refundedCents;
      if (roll < 0.95 && left > 0) batch.push({ kind: 'refund', paymentIntentId: entry.paymentIntentId, cents: rng.chance(0.3) ? left : rng.int(1, left) });
      else batch.push({ kind: 'dispute', paymentIntentId: entry.paymentIntentId });
    }
  }
  return batch;
}

/** Runs one operation; a request cut by a kill is returned for a retry, anything else resolves undefined. */
export async function run(op: Operation, serverUrl: string, control: EmulatorControl, stats: TrafficStats): Promise<Operation | undefined> {
  if (op.kind === 'refund') {
    stats.refunds += await control.refund(op.paymentIntentId, op.cents).then(() => 1, () => 0);
    return undefined;
  }
  if (op.kind === 'dispute') {
    stats.disputes += await control.dispute(op.paymentIntentId).then(() => 1, () => 0);
    return undefined;
  }
  stats.requests++;
  try {
    const response = await paidFetch(serverUrl, op.route, op.payment);
    stats.answered[response.status] = (stats.answered[response.status] ?? 0) + 1;
    const chargeId = (response.paymentResponse as { chargeId?: string } | undefined)?.chargeId;
    if (chargeId) stats.chargedInAnswer.add(chargeId);
    return undefined;
  } catch {
    stats.cut++;
    return op;
  }
}
