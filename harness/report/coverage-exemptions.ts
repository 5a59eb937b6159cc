// Requirements the suite documents as not checkable over HTTP, whole or in part: the tables of two sections of features/README.md.

const EXEMPT_HEADING = /^##\s+Requirements no scenario checks\b/;
const PART_HEADING = /^##\s+Parts of requirements no scenario reaches\b/;
const ID = /CR-\d+\.\d+/g;

/** ID → reason, from the tables of the section under `heading` (first column: IDs, second: why). */
function sectionTable(markdown: string, heading: RegExp): Map<string, string> {
  const reasons = new Map<string, string>();
  let inSection = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('#')) inSection = heading.test(line);
    if (!inSection || !line.startsWith('|')) continue;
    const [ids = '', reason = ''] = line.split('|').slice(1).map((cell) => cell.trim());
    for (const id of ids.match(ID) ?? []) reasons.set(id, reason);
  }
  return reasons;
}

/** ID → reason of the requirements no scenario checks at all ("## Requirements no scenario checks over HTTP"). */
export function parseExemptions(markdown: string): Map<string, string> {
  return sectionTable(markdown, EXEMPT_HEADING);
}

/**
 * ID → what no scenario reaches of requirements that scenarios do check ("## Parts of requirements no scenario
 * reaches"): a target that breaks only that part passes the suite, and the matrix says so beside the ✓.
 */
export function parseUnreachedParts(markdown: string): Map<string, string> {
  return sectionTable(markdown, PART_HEADING);
}
