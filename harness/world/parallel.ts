// With --parallel, scenarios tagged @atomicity, @fuzz or @faults run alone: they count every processor call and inject faults.
import { setParallelCanAssign } from '@cucumber/cucumber';

/** Tags of scenarios that must not share the target and processor with others. */
export const EXCLUSIVE_TAGS: ReadonlySet<string> = new Set(['@atomicity', '@fuzz', '@faults']);

setParallelCanAssign((pickle, inProgress) => {
  const exclusive = (candidate: typeof pickle) => candidate.tags.some((tag) => EXCLUSIVE_TAGS.has(tag.name));
  if (inProgress.some(exclusive)) return false;
  return !exclusive(pickle) || inProgress.length === 0;
});
