// Reads a Web-standard request's body up to a size limit, as the node:http servers' body parsers do.

/** A body larger than the limit: answered 413. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** The request's body bytes, at most `limit` of them; throws {@link BodyTooLargeError} past that (read no further). */
export async function readLimitedBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw new BodyTooLargeError(`the body is ${declared} bytes, over ${limit}`);
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(`the body is over ${limit} bytes`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** The request's body bytes, or the 413 answer of a body over `limit`: what the webhook and control handlers read. */
export async function bodyWithin(request: Request, limit: number): Promise<Uint8Array | Response> {
  try {
    return await readLimitedBody(request, limit);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return jsonResponse(413, { error: 'Payload Too Large' });
    throw error;
  }
}

/** A JSON answer with `status`. */
export function jsonResponse(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' } });
}
