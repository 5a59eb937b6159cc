// With --parallel, scenarios tagged @atomicity, @fuzz, @faults or @shared-card (a fixed test card number, so a shared client) run alone.
import { setParallelCanAssign } from '@cucumber/cucumber';

/** Tags of scenarios that must not share the target and processor with others. */
export const EXCLUSIVE_TAGS: ReadonlySet<string> = new Set(['@atomicity', '@fuzz', '@faults', '@shared-card']);

setParallelCanAssign((pickle, inProgress) => {
  const exclusive = (candidate: typeof pickle) => candidate.tags.some((tag) => EXCLUSIVE_TAGS.has(tag.name));
  if (inProgress.some(exclusive)) return false;
  return !exclusive(pickle) || inProgress.length === 0;
});
