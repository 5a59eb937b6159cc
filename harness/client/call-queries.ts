// Readings of a call that the client checks share: the payment error it reported, the requests carrying a paymentMethodId or a clientId.
import type { CallResult } from './driver-replies.ts';
import type { RecordedRequest } from './scripted-server.ts';

/** The code and message of a payment error a call reported: raised (`error`), or returned as its 402 (or 503) answer (CR-16.5). */
export function reportedPaymentError(result: CallResult): { code: string | null; message: string } | undefined {
  if (result.error) return result.error.kind === 'payment' ? { code: result.error.code, message: result.error.message } : undefined;
  if (result.status !== 402 && result.status !== 503) return undefined;
  try {
    const body: unknown = JSON.parse(result.body ?? '');
    if (typeof body !== 'object' || body === null) return undefined;
    const { errorCode, error } = body as Record<string, unknown>;
    return typeof errorCode === 'string' ? { code: errorCode, message: typeof error === 'string' ? error : '' } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a request's payload carries a paymentMethodId (a payment sent). */
export const paysWithCard = (request: RecordedRequest): boolean => request.payment?.paymentMethodId !== undefined;

/** The clientId a request's payload carries, if any. */
export const clientIdOf = (request: RecordedRequest): unknown => request.payment?.clientId;

/** One request, on one line, for assertion messages. */
export const describeRequest = (request: RecordedRequest): string =>
  `[${request.seq}] ${request.origin} ${request.method} ${request.target}${request.paymentRaw !== undefined ? ` payment ${JSON.stringify(request.payment ?? request.paymentRaw)}` : ''} → ${request.status} ${request.outcome}`;

/** The requests, one per line. */
export const describeRequests = (requests: readonly RecordedRequest[]): string => (requests.length === 0 ? '(none)' : requests.map(describeRequest).join('\n'));
