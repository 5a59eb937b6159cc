// Test helper: one HTTP request to a server under test, with the protocol headers decoded.
import { decodeBase64Json, encodeBase64Json, HEADERS } from 'credit402/protocol';

/** A response with its protocol headers decoded (undefined when absent). */
interface PaidResponse {
  status: number;
  headers: Headers;
  body: unknown;
  paymentResponse: unknown;
  paymentRequired: unknown;
}

function decodeHeader(value: string | null): unknown {
  if (value === null) return undefined;
  const decoded = decodeBase64Json(value);
  return decoded.ok ? decoded.value : { undecodable: value };
}

/** Sends `method path` with an optional `payment` header (an object is encoded, a string is sent raw) and `extraHeaders`. */
export async function paidFetch(
  baseUrl: string,
  route: string,
  payment?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<PaidResponse> {
  const [method, path] = route.split(' ') as [string, string];
  const headers: Record<string, string> = { ...extraHeaders };
  if (payment !== undefined) headers[HEADERS.PAYMENT] = typeof payment === 'string' ? payment : encodeBase64Json(payment);
  const response = await fetch(`${baseUrl}${path}`, { method, headers });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return {
    status: response.status,
    headers: response.headers,
    body,
    paymentResponse: decodeHeader(response.headers.get(HEADERS.PAYMENT_RESPONSE)),
    paymentRequired: decodeHeader(response.headers.get(HEADERS.PAYMENT_REQUIRED)),
  };
}
