// The fault load's clients: paid requests and first payments, each retried with its request id until it gets a final answer.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FAILING_RUN_MARK } from 'credit402/internal/compose/engine-config';
import type { Random } from '../crash-test/random.ts';
import { sendAttempt, type AttemptAnswer, type AttemptStyle } from './paid-attempt.ts';

/** A client of the load: its id and its card, from which new payment methods are made. */
export interface LoadClient {
  clientId: string;
  cardNumber: string;
}

/** One paid request of the load, retried under one request id until it is answered for good. */
export interface Operation {
  requestId: string;
  route: string;
  clientId: string;
  /** The payload without `requestId`. */
  payment: Record<string, unknown>;
  /** The payment method it pays with, when it is a first payment or a top-up. */
  paymentMethodId: string | undefined;
  /**
   * Whether its first attempt asks the handler to fail (its `conformance-request-id` ends in the failing-run mark): a
   * 500 to that attempt is retried with the request id, as the refund of a failed handler races that retry.
   */
  failsFirstAttempt: boolean;
  attempts: number;
  /** Attempts cut by the client or the network, and answered 503. */
  cut: number;
  unavailable: number;
  /** The final answer: a status and error code that retrying will not change; undefined while it has none. */
  final: { status: number; errorCode: string | undefined; error: string | undefined } | undefined;
}

/** An answer retrying can change: none (a cut), 503, or 429. */
function retryable(answer: AttemptAnswer): boolean {
  return answer === undefined || answer.status === 503 || answer.status === 429;
}

/** A new operation paying `route` for `client` with `payment` (a funded clientId, or a payment method); `failsFirstAttempt` as {@link Operation}. */
export function newOperation(route: string, client: LoadClient, payment: Record<string, unknown>, failsFirstAttempt = false): Operation {
  const paymentMethodId = typeof payment.paymentMethodId === 'string' ? payment.paymentMethodId : undefined;
  return { requestId: randomUUID(), route, clientId: client.clientId, payment, paymentMethodId, failsFirstAttempt, attempts: 0, cut: 0, unavailable: 0, final: undefined };
}

/** How a client sends an attempt: mostly plainly, sometimes cut off after a moment, a POST sometimes with its body paused. */
function pickStyle(rng: Random, route: string): AttemptStyle {
  const roll = rng.next();
  if (roll < 0.1) return { kind: 'cut', afterMs: rng.int(0, 400) };
  if (route.startsWith('POST') && roll < 0.4) return { kind: 'paused', pauseMs: rng.int(50, 1_200) };
  return { kind: 'plain' };
}

/**
 * Sends `op` until it has a final answer or `maxAttempts` attempts were made, keeping its request id: a cut attempt
 * and a 503 are retried after a short pause (a 429 after a longer one), as CR-8.12 and CR-7.22 ask of a client, and so
 * is the 500 of a first attempt that asked its handler to fail.
 */
export async function runOperation(op: Operation, base: URL, rng: Random, maxAttempts: number): Promise<void> {
  while (op.final === undefined && op.attempts < maxAttempts) {
    op.attempts++;
    const marked = op.failsFirstAttempt && op.attempts === 1;
    const handlerId = marked ? `${op.requestId}${FAILING_RUN_MARK}` : op.requestId;
    const answer = await sendAttempt(base, op.route, { ...op.payment, requestId: op.requestId }, handlerId, pickStyle(rng, op.route));
    if (!retryable(answer) && !(marked && answer?.status === 500)) {
      op.final = { status: answer?.status ?? 0, errorCode: answer?.errorCode, error: answer?.error };
      return;
    }
    if (answer === undefined) op.cut++;
    else if (answer.status === 503) op.unavailable++;
    await sleep(answer?.status === 429 ? 1_000 : rng.int(10, 200));
  }
}
