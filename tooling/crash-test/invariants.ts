// The crash test's checks: every client's balance equals the processor's ledger minus its logged deductions.
import type { Store } from 'credit402/stores';
import { netUnits, type LedgerEntry } from './ledger.ts';

/** One broken invariant, in words. */
export type Violation = string;

/**
 * For every client in the ledger and each currency (CR-6.8): balance = Σ (top-up − min(top-up, refunded + disputed)) − Σ logged
 * deductions; `topUps` = its succeeded top-ups; and each succeeded PaymentIntent has exactly one `topup`
 * record (credited once, none lost). Requires a store that keeps a transaction log.
 */
export async function checkInvariants(store: Store, ledger: ReadonlyMap<string, LedgerEntry>): Promise<Violation[]> {
  const byClient = new Map<string, LedgerEntry[]>();
  for (const entry of ledger.values()) byClient.set(entry.clientId, [...(byClient.get(entry.clientId) ?? []), entry]);
  const violations: Violation[] = [];
  for (const [clientId, entries] of byClient) {
    const client = await store.getClient(clientId);
    const log = (await store.listTransactions?.(clientId)) ?? [];
    const short = clientId.slice(0, 8);
    const currencies = new Set([...entries.map((entry) => entry.currency), ...log.map((r) => r.currency), ...Object.keys(client?.balances ?? {})]);
    for (const currency of currencies) {
      const deducted = log.filter((r) => r.type === 'deduction' && r.currency === currency).reduce((sum, r) => sum + r.amount, 0);
      const expected = entries.filter((entry) => entry.currency === currency).reduce((sum, entry) => sum + netUnits(entry), 0) - deducted;
      const balance = client?.balances[currency] ?? 0;
      if (balance !== expected) violations.push(`client ${short}: ${currency} balance ${balance} != expected ${expected}`);
    }
    if (client?.topUps !== entries.length) violations.push(`client ${short}: topUps ${client?.topUps} != ${entries.length} succeeded top-ups`);
    for (const entry of entries) {
      const records = log.filter((r) => r.type === 'topup' && r.paymentIntentId === entry.paymentIntentId).length;
      if (records !== 1) violations.push(`${entry.paymentIntentId}: credited ${records} times`);
    }
    const unknown = log.filter((r) => r.type === 'topup' && !ledger.has(r.paymentIntentId ?? ''));
    for (const record of unknown) violations.push(`client ${short}: credited ${record.paymentIntentId}, which did not succeed`);
  }
  return violations;
}
