// One attempt of a paid request as a client under the fault load sends it: plainly, cut off by the client, or with its body paused.
import { request } from 'node:http';
import { encodeBase64Json, HEADERS } from 'credit402/protocol';
import { REQUEST_ID_HEADER } from 'credit402/internal/conformance-control/handler-runs';

/** How the client sends the attempt: read the answer; give up after `afterMs` (a cut connection); or pause `pauseMs` mid-body. */
export type AttemptStyle = { kind: 'plain' } | { kind: 'cut'; afterMs: number } | { kind: 'paused'; pauseMs: number };

/** What came back: the status and the payment-response's error code, or nothing (the connection was cut or failed). */
export type AttemptAnswer = { status: number; errorCode: string | undefined; error: string | undefined } | undefined;

const NO_ERROR = { errorCode: undefined, error: undefined };

/** The body of a paid POST (the translate route's demo handler reads nothing of it). */
const BODY = JSON.stringify({ text: 'the fault load pays for this' });

/** The error code and message of an error answer's JSON body (a PaymentResponse), when it is an object. */
function readError(body: string): { errorCode: string | undefined; error: string | undefined } {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { errorCode: undefined, error: undefined };
  }
  if (typeof value !== 'object' || value === null) return { errorCode: undefined, error: undefined };
  const errorCode = Reflect.get(value, 'errorCode');
  const error = Reflect.get(value, 'error');
  return { errorCode: typeof errorCode === 'string' ? errorCode : undefined, error: typeof error === 'string' ? error : undefined };
}

/** Sends `route` (`<METHOD> <path>`) to `base` with the `payment` payload and the request id header, in `style`. */
export function sendAttempt(base: URL, route: string, payment: Record<string, unknown>, requestId: string, style: AttemptStyle): Promise<AttemptAnswer> {
  const [method = 'GET', path = '/'] = route.split(' ');
  const body = method === 'POST' ? BODY : undefined;
  return new Promise((resolve) => {
    const headers: Record<string, string> = { [HEADERS.PAYMENT]: encodeBase64Json(payment), [REQUEST_ID_HEADER]: requestId };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    const req = request({ host: base.hostname, port: base.port, method, path, headers, agent: false, timeout: 15_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(res.statusCode === 200 ? NO_ERROR : readError(body)) }));
      res.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    if (style.kind === 'cut') setTimeout(() => req.destroy(), style.afterMs);
    if (body === undefined) {
      req.end();
      return;
    }
    if (style.kind !== 'paused') {
      req.end(body);
      return;
    }
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    setTimeout(() => req.end(body.slice(half)), style.pauseMs);
  });
}
