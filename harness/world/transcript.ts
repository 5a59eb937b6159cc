// The plain-text transcript attached to a failed scenario: requirement IDs, every HTTP exchange, the processor journal.
import { describePayment } from './base64-json.ts';
import type { Exchange } from './exchange.ts';
import { describeEntry, type JournalEntry } from './journal-queries.ts';

const indent = (text: string, prefix = '    '): string => text.split('\n').map((line) => `${prefix}${line}`).join('\n');

function decodedLine(name: string, decoded: { ok: true; value: unknown } | { ok: false; reason: string } | undefined): string[] {
  if (!decoded) return [];
  return [`  decoded ${name}: ${decoded.ok ? JSON.stringify(decoded.value) : `NOT DECODABLE (${decoded.reason})`}`];
}

function setupLine(exchange: Exchange, index: number): string {
  const { request, answer } = exchange;
  const decoded = answer?.paymentResponse ?? answer?.paymentRequired;
  const outcome = answer ? `${answer.status}${decoded?.ok ? ` ${JSON.stringify(decoded.value)}` : ''}` : `no answer: ${exchange.error ?? 'unknown'}`;
  const payment = request.headers?.payment;
  const sent = typeof payment === 'string' ? ` payment ${describePayment(payment)}` : '';
  return `[${index + 1}] (set-up) ${request.method} ${request.target}${sent} → ${outcome}`;
}

function formatExchange(exchange: Exchange, index: number): string {
  if (exchange.setup) return setupLine(exchange, index);
  const { request, answer } = exchange;
  const lines = [`[${index + 1}] ${exchange.startedAt} ${request.method} ${request.target} (${exchange.durationMs} ms)`];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      lines.push(`  > ${name}: ${JSON.stringify(item)}`);
      if (name.toLowerCase() === 'payment') lines.push(`    decoded payment (lenient, for reading only): ${JSON.stringify(describePayment(item))}`);
    }
  }
  if (!answer) {
    lines.push(`  ! no answer: ${exchange.error ?? 'unknown'}`);
    return lines.join('\n');
  }
  lines.push(`  < ${answer.status}`);
  for (const [name, value] of answer.rawHeaders) lines.push(`  < ${name}: ${value}`);
  lines.push(...decodedLine('payment-required', answer.paymentRequired), ...decodedLine('payment-response', answer.paymentResponse));
  if (answer.text !== '') lines.push('  body:', indent(answer.text.length > 2000 ? `${answer.text.slice(0, 2000)}…` : answer.text));
  return lines.join('\n');
}

/** Everything a target implementer needs to see why a scenario failed. */
export interface TranscriptInput {
  scenario: string;
  requirementIds: string[];
  notes: string[];
  exchanges: Exchange[];
  journal: JournalEntry[] | string;
}

/** Formats the transcript as plain text. */
export function formatTranscript(input: TranscriptInput): string {
  const journal = typeof input.journal === 'string' ? [`  (${input.journal})`] : input.journal.map((entry) => `  ${describeEntry(entry)}`);
  return [
    `Scenario: ${input.scenario}`,
    `Requirements: ${input.requirementIds.join(' ') || '(none)'}`,
    ...input.notes.map((note) => `Note: ${note}`),
    '',
    `HTTP exchanges with the target (${input.exchanges.length}):`,
    ...input.exchanges.map(formatExchange),
    '',
    `Processor journal of this scenario (${typeof input.journal === 'string' ? 0 : input.journal.length} entries):`,
    ...(journal.length > 0 ? journal : ['  (none)']),
  ].join('\n');
}
