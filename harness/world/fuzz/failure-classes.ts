// Fuzz failures grouped by class (answered 500, the handler ran, a transport reset…), each class with one example.
import type { Exchange } from '../exchange.ts';
import { handlerRan } from '../judge.ts';
import { routeKeyOf } from '../request-line.ts';
import type { FuzzCase } from './arbitraries.ts';
import type { ProcessorCall } from './processor-calls.ts';

/** A generated value whose answer was not allowed, or that made the target call the processor. */
export interface FuzzFailure {
  /** Position of the value in the seeded sample (0-based). */
  index: number;
  fuzzCase: FuzzCase;
  exchange: Exchange;
  /** Why the answer is not allowed; undefined when only the processor calls are wrong. */
  verdict?: string;
  /** Processor calls made while this request was in flight. */
  processorCalls: ProcessorCall[];
}

/** Failures of one class: how many, of which kinds, and the shortest generated value as the example. */
export interface FailureClass {
  label: string;
  count: number;
  kinds: Record<string, number>;
  example: FuzzFailure;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Text that groups well: free-standing numbers as N (not those of `CR-5.2` or `E500`), whitespace collapsed, at most 120 characters. */
export function normalise(text: string): string {
  const flat = text.replace(/(?<![\w.-])\d+(\.\d+)?(?!\w)/g, 'N').replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/** A transport error in a few words: reset, timeout, connection refused, or the normalised message. */
export function transportClass(error: string | undefined): string {
  if (error === undefined) return 'unknown error';
  if (/ECONNRESET|socket hang up/i.test(error)) return 'reset';
  if (/did not answer within/.test(error)) return 'timeout';
  if (/ECONNREFUSED/.test(error)) return 'connection refused';
  if (/EPIPE/.test(error)) return 'broken pipe';
  return normalise(error);
}

/** The first line of a check's message without the exchange it quotes (`: GET /x → 402 {…}`). */
function checkName(verdict: string, exchange: Exchange): string {
  const first = verdict.split('\n', 1)[0] ?? '';
  const quoted = first.indexOf(`: ${exchange.request.method} ${exchange.request.target} → `);
  return normalise(quoted >= 0 ? first.slice(0, quoted) : first);
}

/** A member of the answer, quoted and normalised. */
const short = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(normalise(value)) : normalise(JSON.stringify(value) ?? 'undefined'));

/** The class of a 402 answer the judge rejected. */
function class402(failure: FuzzFailure, verdict: string): string {
  const body = failure.exchange.answer?.json;
  const check = checkName(verdict, failure.exchange);
  if (isObject(body) && 'accepts' in body) {
    if (failure.fuzzCase.allowed !== 'challenge or invalid_payment') return 'a 402 challenge where invalid_payment is required';
    return `a 402 challenge of the wrong shape: ${check}`;
  }
  const neither = '402 that is neither a challenge nor invalid_payment';
  if (!isObject(body)) return `${neither}: the body is ${body === undefined ? 'not JSON' : 'not a JSON object'}`;
  if (body.errorCode !== 'invalid_payment') return `${neither}: errorCode ${'errorCode' in body ? short(body.errorCode) : 'missing'}`;
  if (failure.fuzzCase.allowed === 'malformed' && body.error !== 'Malformed payment header') return `invalid_payment without "Malformed payment header": error ${short(body.error)}`;
  return `invalid_payment of the wrong shape: ${check}`;
}

/** Processor calls as `GET /v1/payment_methods/:id`, each distinct call once, sorted. */
function describeCalls(calls: readonly ProcessorCall[]): string {
  const names = calls.map(({ entry }) => `${entry.method} ${entry.path.replace(/\/(?:pm|cus|pi|ch|re|seti)_[A-Za-z0-9]+(?=\/|$)/g, '/:id')}`);
  return [...new Set(names)].sort().join(', ');
}

/** The class of one failure, derived from its answer and the judge's verdict (processor calls when the answer was right). */
export function classify(failure: FuzzFailure): string {
  const { exchange, verdict } = failure;
  if (verdict === undefined) return `called the processor: ${describeCalls(failure.processorCalls)}`;
  const answer = exchange.answer;
  if (!answer) return `transport error: ${transportClass(exchange.error)}`;
  if (answer.status === 402) return class402(failure, verdict);
  if (answer.status >= 200 && answer.status <= 299 && handlerRan(exchange, routeKeyOf(exchange))) return `answered ${answer.status}: the handler ran`;
  return `answered ${answer.status}`;
}

/** Failures grouped by {@link classify}, most frequent class first; each example is the class's shortest value. */
export function groupFailures(failures: readonly FuzzFailure[]): FailureClass[] {
  const classes = new Map<string, FailureClass>();
  for (const failure of failures) {
    const label = classify(failure);
    const group = classes.get(label) ?? { label, count: 0, kinds: {}, example: failure };
    group.count += 1;
    group.kinds[failure.fuzzCase.kind] = (group.kinds[failure.fuzzCase.kind] ?? 0) + 1;
    const [a, b] = [failure.fuzzCase.value.length, group.example.fuzzCase.value.length];
    if (a < b || (a === b && failure.index < group.example.index)) group.example = failure;
    classes.set(label, group);
  }
  return [...classes.values()].sort((x, y) => y.count - x.count || x.label.localeCompare(y.label));
}
