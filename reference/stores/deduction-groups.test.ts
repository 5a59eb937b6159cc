// DeductionGroups: the deductions of one turn committed together, each answered with its own outcome.
import { describe, expect, it } from 'vitest';
import type { Deduction } from './store.ts';
import { DeductionGroups, MAX_GROUP_SIZE, type DeductionOutcome } from './deduction-groups.ts';

const deduction = (clientId: string, amount = 1): Deduction => ({ clientId, currency: 'usd', amount });

describe('DeductionGroups', () => {
  /** A committer that records its batches and answers each deduction with its amount as the balance. */
  const recording = (fail?: (batch: readonly Deduction[]) => unknown) => {
    const batches: number[] = [];
    const groups = new DeductionGroups({
      commit: async (deductions) => {
        batches.push(deductions.length);
        const failure = fail?.(deductions);
        if (failure !== undefined) throw failure;
        return deductions.map((d): DeductionOutcome => (d.amount === 13
          ? { ok: false, error: new Error('thirteen') }
          : { ok: true, result: { status: 'deducted', balance: d.amount } }));
      },
    }, 'TestStore');
    return { batches, groups };
  };

  it('commits the deductions of one turn together, and those of the next turn apart', async () => {
    const { batches, groups } = recording();
    const first = [1, 2, 3].map((amount) => groups.deduct(deduction('a', amount)));
    expect(batches).toEqual([]); // nothing before the turn ends
    expect(await Promise.all(first)).toEqual([1, 2, 3].map((balance) => ({ status: 'deducted', balance })));
    await groups.deduct(deduction('a', 4));
    expect(batches).toEqual([3, 1]);
  });

  it(`commits at once when ${MAX_GROUP_SIZE} deductions are queued`, async () => {
    const { batches, groups } = recording();
    const all = Array.from({ length: MAX_GROUP_SIZE + 1 }, () => groups.deduct(deduction('a')));
    expect(batches).toEqual([MAX_GROUP_SIZE]);
    await Promise.all(all);
    expect(batches).toEqual([MAX_GROUP_SIZE, 1]);
  });

  it("rejects only the deduction whose outcome is an error, and every deduction when the commit fails", async () => {
    const { groups } = recording((batch) => (batch.some((d) => d.amount === 99) ? new Error('commit failed') : undefined));
    const results = await Promise.allSettled([groups.deduct(deduction('a', 1)), groups.deduct(deduction('a', 13)), groups.deduct(deduction('a', 2))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const failed = await Promise.allSettled([groups.deduct(deduction('a', 1)), groups.deduct(deduction('a', 99))]);
    expect(failed.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['commit failed', 'commit failed']);
  });

  it('flush commits the queue now, so that the next operation sees it', async () => {
    const { batches, groups } = recording();
    const pending = groups.deduct(deduction('a'));
    groups.flush();
    expect(batches).toEqual([1]);
    await pending;
  });
});
