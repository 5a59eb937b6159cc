// Optional oracle: asks stripe-mock (STRIPE_MOCK_URL) about each API request and adopts its 400 verdicts.
import { internalError } from './errors.ts';

const ORACLE_TIMEOUT_MS = 5_000;

/** The request as received, to be replayed against stripe-mock. */
interface OracleRequest {
  method: string;
  /** Path with its query string. */
  pathAndQuery: string;
  body: string;
  authorization: string | undefined;
  contentType: string | undefined;
}

/** stripe-mock's answer when it rejects the request with a 400, otherwise undefined (the emulator proceeds). */
export async function askStripeMock(baseUrl: string, request: OracleRequest): Promise<{ status: number; body: string } | undefined> {
  const target = new URL(request.pathAndQuery, baseUrl);
  const headers: Record<string, string> = {};
  if (request.authorization) headers.authorization = request.authorization;
  if (request.contentType) headers['content-type'] = request.contentType;
  let response: Response;
  let body: string;
  try {
    response = await fetch(target, {
      method: request.method,
      headers,
      ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }),
      signal: AbortSignal.timeout(ORACLE_TIMEOUT_MS),
    });
    body = await response.text();
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw internalError(`The stripe-mock oracle at ${baseUrl} (STRIPE_MOCK_URL) is unreachable: ${reason}`);
  }
  return response.status === 400 ? { status: 400, body } : undefined;
}
