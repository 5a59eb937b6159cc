// The money auditor: every PaymentIntent that succeeded in a scenario reached the client as a chargeId, or a webhook credited it.
import type { EventRecord } from 'credit402-stripe-emulator';
import { readable } from './base64-json.ts';
import type { Exchange } from './exchange.ts';
import { describeEntry, paymentIntentCreations, responseObject, type JournalEntry } from './journal-queries.ts';

/** The requirements a "charged but not credited" finding names: the credit (CR-7.9) and the success answer (CR-7.13). */
export const CHARGED_NOT_CREDITED_IDS = ['CR-7.9', 'CR-7.13'] as const;

/** The chargeIds of the successful paid answers among `exchanges`. */
function answeredChargeIds(exchanges: readonly Exchange[]): Set<string> {
  const ids = new Set<string>();
  for (const exchange of exchanges) {
    const { success, chargeId } = readable(exchange.answer?.paymentResponse) ?? {};
    if (success === true && typeof chargeId === 'string') ids.add(chargeId);
  }
  return ids;
}

/** PaymentIntent ids of `payment_intent.succeeded` events some endpoint at `url` acknowledged with 2xx. */
export function webhookCreditedIds(events: readonly EventRecord[], url: string): Set<string> {
  const ids = new Set<string>();
  for (const { event, attempts } of events) {
    const acknowledged = attempts.some((attempt) => attempt.url === url && attempt.status !== null && attempt.status >= 200 && attempt.status < 300);
    if (event.type === 'payment_intent.succeeded' && acknowledged) ids.add(event.data.object.id);
  }
  return ids;
}

/**
 * Findings of one scenario: each PaymentIntent the journal shows succeeded that no successful answer carried as its
 * `chargeId` and no acknowledged webhook delivery (`credited`) covers.
 */
export function chargedButNotCredited(entries: readonly JournalEntry[], exchanges: readonly Exchange[], credited: ReadonlySet<string> = new Set()): string[] {
  const answered = answeredChargeIds(exchanges);
  const findings: string[] = [];
  const seen = new Set<string>();
  for (const entry of paymentIntentCreations([...entries])) {
    const intent = responseObject(entry);
    if (intent?.status !== 'succeeded' || typeof intent.id !== 'string' || seen.has(intent.id)) continue;
    seen.add(intent.id);
    if (answered.has(intent.id) || credited.has(intent.id)) continue;
    findings.push(`charged but not credited: PaymentIntent ${intent.id} succeeded, but no successful answer carried it as chargeId${credited.size > 0 ? ' and no acknowledged webhook covers it' : ''} (${describeEntry(entry)})`);
  }
  return findings;
}
