// The counterexample of a failed history run as a replayable script: the command that replays it, its operations, and the transcript of its failing run.
import type { JournalEntry } from 'credit402-stripe-emulator';
import type { HistoryResult } from './execute.ts';
import { describeOperation, type Operation } from './operations.ts';
import { describeExchange } from './wire.ts';

/** What replays a counterexample: fast-check's seed and shrink path, and the operations themselves. */
export interface ReplayScript {
  seed: number;
  path?: string;
  operations: Operation[];
}

/** The file a replay script is written to, in the reports directory. */
export const SCRIPT_FILE = 'history-counterexample.json';

/** Reads a replay script written by a failed run (`--replay FILE`); throws a message naming what is wrong. */
export function parseReplayScript(text: string): ReplayScript {
  const value = JSON.parse(text) as unknown;
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { operations?: unknown }).operations)) {
    throw new Error('a replay script is a JSON object {"seed": N, "path": "…", "operations": […]}');
  }
  const { seed, path, operations } = value as { seed?: unknown; path?: unknown; operations: unknown[] };
  for (const operation of operations) {
    const op = (operation as { op?: unknown } | null)?.op;
    if (!['call', 'burst', 'flood', 'malformed', 'fault', 'upstream'].includes(op as string)) throw new Error(`not an operation of a history: ${JSON.stringify(operation)}`);
  }
  return { seed: Number.isSafeInteger(seed) ? (seed as number) : 0, ...(typeof path === 'string' ? { path } : {}), operations: operations as Operation[] };
}

function journalLine(entry: JournalEntry): string {
  const intent = entry.response as { id?: unknown; status?: unknown; amount?: unknown; currency?: unknown; metadata?: Record<string, unknown> } | null;
  const units = intent?.metadata?.credit402_top_up_units;
  return `  #${entry.seq} POST ${entry.path} ⇒ ${entry.status ?? 'no answer'}${entry.replayed ? ' (replayed)' : ''} → ${String(intent?.id ?? '?')} ${String(intent?.status ?? '')} ${String(intent?.amount ?? '')} ${String(intent?.currency ?? '')}${units === undefined ? '' : ` for ${String(units)} units`}`;
}

/**
 * The counterexample in words: the violated requirement, the operations numbered as the transcript names them, the
 * replay command (seed and path, or the script file), and the transcript of its run: every exchange and the journal.
 */
export function formatCounterexample(script: ReplayScript, result: HistoryResult, replay: string): string {
  const violation = result.violation;
  const lines = [
    `✗ history failed: ${violation?.ids.join(' ') ?? '(no requirement)'}`,
    `  ${violation?.message ?? 'no violation'}`,
    `  at ${violation?.at ?? '?'}`,
    '',
    `shrunk history (${script.operations.length} operation${script.operations.length === 1 ? '' : 's'}; seed ${script.seed}${script.path ? `, path ${script.path}` : ''}):`,
    ...script.operations.map((operation, index) => `  ${index}. ${describeOperation(operation)}`),
    '',
    `replay: ${replay}`,
    '',
    `transcript (${result.exchanges.length} exchange${result.exchanges.length === 1 ? '' : 's'}, ${result.durationMs} ms):`,
    ...result.exchanges.map(describeExchange),
    '',
    `emulator journal, PaymentIntents of this history (${result.journal.length}):`,
    ...(result.journal.length === 0 ? ['  (none)'] : result.journal.map(journalLine)),
    ...result.notes.map((note) => `note: ${note}`),
  ];
  return lines.join('\n');
}
