// Requirements the suite documents as not checkable over HTTP: the table under "## Requirements no scenario checks…" in features/README.md.

const HEADING = /^##\s+Requirements no scenario checks\b/;
const ID = /CR-\d+\.\d+/g;

/** ID → reason, from the first table of that section (first column: IDs, second: why). */
export function parseExemptions(markdown: string): Map<string, string> {
  const exemptions = new Map<string, string>();
  let inSection = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('#')) inSection = HEADING.test(line);
    if (!inSection || !line.startsWith('|')) continue;
    const [ids = '', reason = ''] = line.split('|').slice(1).map((cell) => cell.trim());
    for (const id of ids.match(ID) ?? []) exemptions.set(id, reason);
  }
  return exemptions;
}
