// The body rule of CR-4.7 for Web-standard handlers: what the handler's framework would refuse of a gated request's body is refused before anything is charged.

/**
 * Reads a gated request's body as its handler will (`(request) => request.clone().json()`, Hono's
 * `(c) => c.req.json()`), before the gate decides: throwing refuses the request, nothing read of `payment`, nothing
 * charged. Throw a `Response` to answer with it (a 413, say); anything else thrown is answered 400.
 */
export type BodyCheck<Subject> = (subject: Subject) => unknown;

/** The answer to a body the check refused, when it threw no `Response`: 400, JSON, the standard reason phrase only. */
function badRequest(): Response {
  return new Response(JSON.stringify({ error: 'Bad Request' }), { status: 400, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/** Runs `check` on `subject`: undefined when it accepted the body (or there is no check), else the answer that refuses it. */
export async function refusedBody<Subject>(check: BodyCheck<Subject> | undefined, subject: Subject): Promise<Response | undefined> {
  if (check === undefined) return undefined;
  try {
    await check(subject);
    return undefined;
  } catch (thrown) {
    return thrown instanceof Response ? thrown : badRequest();
  }
}
