// Whether a run's generated histories judge the target: only one whose suite claims the strict level.
import { describe, expect, it } from 'vitest';
import type { LevelVerdict } from '../report/run-summary.ts';
import { historiesCannotJudge } from './history-plan.ts';

const levels = (strictClaimed: boolean): LevelVerdict[] => [
  { level: 'wire', passed: 10, total: 10, claimed: true },
  { level: 'strict', passed: strictClaimed ? 20 : 19, total: 20, claimed: strictClaimed },
  { level: 'robust', passed: 19, total: 21, claimed: false },
];

describe('historiesCannotJudge', () => {
  it('lets the histories judge a target whose run claims strict', () => {
    expect(historiesCannotJudge({ levels: levels(true) })).toBeUndefined();
  });

  it('says why not for a target that takes a freedom strict removes, so that no wire requirement is failed for it', () => {
    expect(historiesCannotJudge({ levels: levels(false) })).toMatch(/did not claim the strict level/);
  });
});
