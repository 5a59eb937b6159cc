// The text of a failed fuzz run: the seed, then every failure class with its count and one full example.
import { describeEntry, type JournalEntry } from '../journal-queries.ts';
import { formatExchange } from '../transcript.ts';
import { groupFailures, type FailureClass, type FuzzFailure } from './failure-classes.ts';

/** What a fuzz run did. */
export interface FuzzReport {
  seed: number;
  runs: number;
  durationMs: number;
  kinds: Record<string, number>;
  failures: FuzzFailure[];
  /** Processor calls tied to no value: none was in flight, or none made them again when sent alone. */
  unattributedCalls: JournalEntry[];
}

const indent = (text: string, prefix: string): string => text.split('\n').map((line) => `${prefix}${line}`).join('\n');
const kindsOf = (kinds: Record<string, number>): string => Object.entries(kinds).sort(([, a], [, b]) => b - a).map(([kind, n]) => `${kind} ${n}`).join(', ');

/** The example of a class: the request and the whole answer, why it is wrong, the processor calls it may have caused. */
function example(failure: FuzzFailure, runs: number): string[] {
  const { index, fuzzCase, exchange, verdict, processorCalls } = failure;
  const lines = [`  example: value ${index + 1} of ${runs}, ${fuzzCase.kind} (the shortest of this class)`, indent(formatExchange(exchange, index), '    ')];
  const [first, ...more] = verdict?.split('\n') ?? [];
  if (first !== undefined) lines.push(`  why: ${first}`, ...more.map((line) => `    ${line}`));
  if (processorCalls.length > 0) {
    const confirmed = processorCalls.some((call) => call.resent);
    lines.push('  processor calls answered while it was in flight:');
    for (const { entry, suspects, resent } of processorCalls) {
      const shared = suspects > 1 ? ` (${suspects} values were in flight${confirmed ? '' : ": may be another one's"})` : '';
      lines.push(`    ${describeEntry(entry)}${resent ? ' (when it was sent again, alone)' : shared}`);
    }
  }
  return lines;
}

const heading = (group: FailureClass, number: number, total: number): string =>
  `class ${number} of ${total}: ${group.label} — ${group.count} value${group.count === 1 ? '' : 's'} (${kindsOf(group.kinds)})`;

/** Every failure class of the run with its count, and a full example for the first `fullExamples` classes. */
export function describeFailures(report: FuzzReport, fullExamples = 10): string {
  const groups = groupFailures(report.failures);
  const lines = [
    `${report.failures.length} of ${report.runs} generated values got a wrong answer or reached the processor (seed ${report.seed}; ` +
      `the same seed sends the same values, worldParameters.fuzzSeed picks another), in ${groups.length} class${groups.length === 1 ? '' : 'es'}:`,
  ];
  groups.forEach((group, i) => {
    lines.push('', heading(group, i + 1, groups.length));
    if (i < fullExamples) lines.push(...example(group.example, report.runs));
  });
  if (groups.length > fullExamples) lines.push('', `(examples of the first ${fullExamples} classes only)`);
  if (report.unattributedCalls.length > 0) {
    const untied = `${report.unattributedCalls.length} processor call(s) tied to no generated value (none was in flight, or none made them again when sent alone):`;
    lines.push('', untied);
    lines.push(...report.unattributedCalls.slice(0, 5).map((entry) => `  ${describeEntry(entry)}`));
  }
  return lines.join('\n');
}
