// The plain-text transcript attached to a failed scenario: requirement IDs, every HTTP exchange, the processor journal.
import { describePayment, type Decoded } from './base64-json.ts';
import type { Exchange } from './exchange.ts';
import { describeEntry, type JournalEntry } from './journal-queries.ts';

const indent = (text: string, prefix = '    '): string => text.split('\n').map((line) => `${prefix}${line}`).join('\n');

/** The `payment` value read leniently (either base64 alphabet, padding optional) as JSON; undefined when it is not base64 JSON. */
export function lenientPaymentJson(value: string): { value: unknown } | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
  const text = describePayment(value);
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** `title` followed by `value` as pretty JSON, indented under it. */
const prettyJson = (title: string, value: unknown, prefix: string): string[] => [`${prefix}${title}`, indent(JSON.stringify(value, null, 2), `${prefix}  `)];

/** The lines under a sent `payment` header: its lenient decoding, as pretty JSON when it is JSON. */
function paymentLines(value: string): string[] {
  const title = 'decoded payment (lenient, for reading only):';
  const json = lenientPaymentJson(value);
  return json ? prettyJson(title, json.value, '    ') : [`    ${title} ${JSON.stringify(describePayment(value))}`];
}

/** The lines under a `payment-required` / `payment-response` answer header: its strict decoding (CR-3.2). */
function decodedLines(name: string, decoded: Decoded | undefined): string[] {
  if (!decoded) return [];
  return decoded.ok ? prettyJson(`decoded ${name}:`, decoded.value, '    ') : [`    decoded ${name}: NOT DECODABLE (${decoded.reason})`];
}

function setupLine(exchange: Exchange, index: number): string {
  const { request, answer } = exchange;
  const decoded = answer?.paymentResponse ?? answer?.paymentRequired;
  const outcome = answer ? `${answer.status}${decoded?.ok ? ` ${JSON.stringify(decoded.value)}` : ''}` : `no answer: ${exchange.error ?? 'unknown'}`;
  const payment = request.headers?.payment;
  const sent = typeof payment === 'string' ? ` payment ${describePayment(payment)}` : '';
  return `[${index + 1}] (set-up) ${request.method} ${request.target}${sent} → ${outcome}`;
}

/** One exchange as `[index + 1]` with its request headers, status, headers (protocol ones decoded) and body. */
export function formatExchange(exchange: Exchange, index: number): string {
  if (exchange.setup) return setupLine(exchange, index);
  const { request, answer } = exchange;
  const lines = [`[${index + 1}] ${exchange.startedAt} ${request.method} ${request.target} (${exchange.durationMs} ms)`];
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      lines.push(`  > ${name}: ${JSON.stringify(item)}`);
      if (name.toLowerCase() === 'payment') lines.push(...paymentLines(item));
    }
  }
  if (!answer) {
    lines.push(`  ! no answer: ${exchange.error ?? 'unknown'}`);
    return lines.join('\n');
  }
  lines.push(`  < ${answer.status}`);
  const decoded = new Map([['payment-required', answer.paymentRequired], ['payment-response', answer.paymentResponse]]);
  for (const [name, value] of answer.rawHeaders) {
    lines.push(`  < ${name}: ${value}`);
    const key = name.toLowerCase();
    if (decoded.has(key)) lines.push(...decodedLines(key, decoded.get(key)));
    decoded.delete(key);
  }
  if (answer.text !== '') lines.push('  body:', indent(answer.text.length > 2000 ? `${answer.text.slice(0, 2000)}…` : answer.text));
  return lines.join('\n');
}

/** Everything a target implementer needs to see why a scenario failed. */
interface TranscriptInput {
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
