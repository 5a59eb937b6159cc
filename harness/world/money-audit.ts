// The money auditor: every PaymentIntent that succeeded in a scenario reached the client as a chargeId, or a webhook credited it.
import type { EventRecord } from 'credit402-stripe-emulator';
import { readable } from './base64-json.ts';
import type { Exchange } from './exchange.ts';
import { describeEntry, paymentIntentCreations, responseObject, type JournalEntry } from './journal-queries.ts';

/**
 * The checks of a charge that every request answered and none carried: its success answer with the chargeId (CR-7.13)
 * and its credit (CR-7.9), each a finding of its own.
 */
export const CHARGED_NOT_CREDITED_IDS = ['CR-7.13', 'CR-7.9'] as const;

/** The requirement a second charge for a request the client retried names: the idempotency key that prevents it. */
export const CHARGED_TWICE_ID = 'CR-7.16';

/** One finding of the auditor, with the requirement whose check it failed. */
export interface MoneyFinding {
  id: string;
  message: string;
}

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

/** Whom a PaymentIntent charged: its customer, else its clientId metadata. */
function payerOf(intent: Record<string, unknown>): string | undefined {
  if (typeof intent.customer === 'string') return intent.customer;
  const metadata = intent.metadata as Record<string, unknown> | undefined;
  return typeof metadata?.credit402_client_id === 'string' ? metadata.credit402_client_id : undefined;
}

/**
 * Findings of one scenario, for each PaymentIntent the journal shows succeeded that no successful answer carried as
 * its `chargeId` and no acknowledged webhook delivery (`credited`) covers. When a request of the scenario got no
 * answer (the client gave up) and the same payer has another succeeded PaymentIntent, the finding is a second charge
 * for one paid request (CR-7.16); when a request got no answer and the payer none, the kit cannot tell whether it was
 * credited and says so in `unknown`; when every request was answered, it was charged and not credited (CR-7.13: no
 * answer carried it; CR-7.9: nothing was credited for it). The PaymentIntents the kit made itself (`kitMade`: a top-up
 * behind the target's back, whose crediting the scenario's own steps judge) are not the target's charges.
 */
export function auditCharges(
  entries: readonly JournalEntry[],
  exchanges: readonly Exchange[],
  credited: ReadonlySet<string> = new Set(),
  kitMade: ReadonlySet<string> = new Set(),
): { findings: MoneyFinding[]; unknown: string[] } {
  const answered = answeredChargeIds(exchanges);
  const unanswered = exchanges.filter((exchange) => exchange.answer === undefined);
  const succeeded = new Map<string, { intent: Record<string, unknown>; entry: JournalEntry }>();
  for (const entry of paymentIntentCreations([...entries])) {
    const intent = responseObject(entry);
    if (intent?.status === 'succeeded' && typeof intent.id === 'string' && !succeeded.has(intent.id)) succeeded.set(intent.id, { intent, entry });
  }
  const findings: MoneyFinding[] = [];
  const unknown: string[] = [];
  const webhook = credited.size > 0 ? ' and no acknowledged webhook covers it' : '';
  for (const [id, { intent, entry }] of succeeded) {
    if (answered.has(id) || credited.has(id) || kitMade.has(id)) continue;
    const payer = payerOf(intent);
    const others = [...succeeded].filter(([other, seen]) => other !== id && payer !== undefined && payerOf(seen.intent) === payer).map(([other]) => other);
    if (unanswered.length > 0 && others.length > 0) {
      const gaveUp = unanswered[0] as Exchange;
      findings.push({
        id: CHARGED_TWICE_ID,
        message: `two charges for one paid request: PaymentIntent ${id} and ${others.join(', ')} both charged ${payer}; a request got no answer (${gaveUp.request.method} ${gaveUp.request.target}: ${gaveUp.error ?? 'no answer'}) and its retry was charged again instead of replaying the first charge (${describeEntry(entry)})`,
      });
    } else if (unanswered.length > 0) {
      unknown.push(`PaymentIntent ${id} succeeded and no answer carried it as chargeId, but ${unanswered.length} request${unanswered.length === 1 ? '' : 's'} got no answer: the kit cannot tell whether it was credited`);
    } else {
      const [answer, credit] = CHARGED_NOT_CREDITED_IDS;
      findings.push(
        { id: answer, message: `charged but not credited: PaymentIntent ${id} succeeded, but every request was answered and no successful answer carried it as chargeId${webhook} (${describeEntry(entry)})` },
        { id: credit, message: `charged but not credited: the top-up of PaymentIntent ${id} was credited to no answered request${webhook}` },
      );
    }
  }
  return { findings, unknown };
}
