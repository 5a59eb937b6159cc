// Schema version 6 of the Postgres store: a claim made while another call is keeping the same request id waits for it (CR-6.9).
import { deductClaimingFunction } from './postgres-version5.ts';

/**
 * Version 6 in the schema `s` (already quoted), for the store `name` (a validated identifier, used inside the lock key):
 * `deduct_claiming` first takes a transaction advisory lock on (client, request id). Version 5 looked for the kept id
 * without waiting: a retry arriving while the first attempt's deduction was still uncommitted did not see it, went on
 * to `deduct`, waited there on the row and then used the repeat up at once, as `deduct` does without claims; when that
 * retry's answer was lost as well, the repeat was gone although nobody was served, and every later retry was refused
 * (`conflict`) with its deduction kept. Now the second call waits until the first commits (or rolls back) and then
 * reads the kept id, so a repeat is only claimed, never used before it is answered. The lock is released at commit.
 */
export function version6(s: string, name: string): string {
  const waitForKeeper = `
    -- A concurrent call keeping this id (not yet committed) holds this lock: wait for it, then look.
    PERFORM pg_advisory_xact_lock(hashtextextended('credit402:${name}:request-id:' || p_client || ':' || p_request_id, 0));`;
  return deductClaimingFunction(s, 'CREATE OR REPLACE', waitForKeeper);
}
