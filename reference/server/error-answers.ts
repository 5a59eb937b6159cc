// The reference server's answers to errors its frameworks raise (a body over the limit, a handler that throws): JSON
// with the status's reason phrase, never a stack trace, a file path or the error's own message, whatever NODE_ENV says.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServerLog, type ServerLog } from '../compose/server-log.ts';

/** The status an error asks for (`status`/`statusCode` of http-errors and Fastify) when it is 4xx or 5xx, else 500. */
export function errorStatus(error: unknown): number {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as { status?: unknown; statusCode?: unknown };
  const status = fields.statusCode ?? fields.status;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500;
}

/** The body of an error answer: only the standard reason phrase of `status` (`Payload Too Large`). */
export function errorBody(status: number): { error: string } {
  return { error: STATUS_CODES[status] ?? 'Error' };
}

/** Logs server faults (5xx) for the operator, one line with a code (stacks at debug); the client sees none of it. */
export function reportFault(log: ServerLog, status: number, method: string | undefined, url: string | undefined, error: unknown): void {
  if (status >= 500) log.failure('credit402 reference server', `${method ?? '?'} ${url ?? '?'}`, error);
}

type ExpressErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
type FastifyErrorHandler = (
  error: unknown,
  request: { method: string; url: string },
  reply: { code(status: number): { type(contentType: string): { send(body: unknown): unknown } } },
) => void;

/** Express error middleware logging to `log` (mount it last): `app.use(expressErrorAnswersTo(log))`. */
export function expressErrorAnswersTo(log: ServerLog): ExpressErrorHandler {
  // Four parameters: Express tells error middleware by its arity.
  return (error, req, res, _next) => {
    const status = errorStatus(error);
    reportFault(log, status, req.method, req.url, error);
    // Too late for an answer of its own: end the connection, as Express does, without writing anything.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(errorBody(status)));
  };
}

/** Fastify error handler logging to `log`: `app.setErrorHandler(fastifyErrorAnswersTo(log))` before registering plugins. */
export function fastifyErrorAnswersTo(log: ServerLog): FastifyErrorHandler {
  return (error, request, reply) => {
    const status = errorStatus(error);
    reportFault(log, status, request.method, request.url, error);
    reply.code(status).type('application/json; charset=utf-8').send(errorBody(status));
  };
}

/** {@link expressErrorAnswersTo} the default (info) log. */
export const expressErrorAnswers: ExpressErrorHandler = expressErrorAnswersTo(createServerLog());

/** {@link fastifyErrorAnswersTo} the default (info) log. */
export const fastifyErrorAnswers: FastifyErrorHandler = fastifyErrorAnswersTo(createServerLog());
