// Then step of the message rule of CR-13.37: only card errors carry the processor's message; the wire level accepts the
// source's processor message for other failures, the strict level wants the fixed message.
import assert from 'node:assert/strict';
import { checkFor } from '../world/check.ts';
import { processorErrorMessage } from '../world/processor-judge.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Then } from './define.ts';

Then(
  "the error message is {string}, not the processor's message, where {word} overrides the source",
  'CR-7.20',
  async function (this: ConformanceWorld, expected: string, id: string) {
    const body = this.last.answer?.json;
    const text = typeof body === 'object' && body !== null ? String((body as Record<string, unknown>).error) : '';
    if (text === expected) return;
    let processorMessage: string | undefined;
    try {
      processorMessage = processorErrorMessage(await this.processor.entries());
    } catch {
      processorMessage = undefined;
    }
    if (processorMessage !== undefined && text === processorMessage) {
      // The source's rule (seed §7 Errors): the wire level accepts it; the overriding requirement fails on its own.
      checkFor(id, () => assert.fail(`expected "${expected}"; the target passed on the processor's message "${text}", the source's rule, which ${id} overrides`));
      return;
    }
    checkFor('CR-7.20', () => assert.fail(`the error message "${text}" is neither "${expected}" nor the processor's message${processorMessage === undefined ? '' : ` "${processorMessage}"`}`));
  },
);
