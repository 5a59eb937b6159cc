// Then steps about a store call whose outcome is unknown (CR-8.12): what the 503 answer may and may not tell the client.
import assert from 'node:assert/strict';
import { checkFor } from '../world/check.ts';
import { answered as answerOf } from '../world/judge.ts';
import { Then } from './define.ts';

/** Wordings that tell the client nothing was deducted (the reference's outage text before any deduction, and its variants). */
const NOTHING_DEDUCTED = /\bnothing (?:was |has been )?(?:charged (?:or|nor) )?deducted\b|\b(?:was|were|has been) not deducted\b(?! twice| again)|\bno deduction (?:was|has been) made\b/i;

Then('the 503 message does not say that nothing was deducted, since the deduction\'s outcome is unknown', 'CR-8.12', function (this: import('../world/world.ts').ConformanceWorld) {
  const body = answerOf(this.last).json as Record<string, unknown> | undefined;
  const message = typeof body?.error === 'string' ? body.error : '';
  checkFor('CR-8.12', () =>
    assert.ok(!NOTHING_DEDUCTED.test(message), `a deduction whose reply was lost may have been applied: the message must not say nothing was deducted; got "${message}"`),
  );
});
