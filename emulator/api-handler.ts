// The /v1 request pipeline: decode, faults, stripe-mock oracle, auth and routing, idempotency, execution, journal.
import { routeApiRequest } from './api-router.ts';
import { ApiError, idempotencyMismatch, internalError, rateLimited } from './errors.ts';
import { newRequestId } from './ids.ts';
import { parseParams } from './params.ts';
import { readBody, sendJson } from './http-io.ts';
import { askStripeMock } from './stripe-mock-oracle.ts';
import { API_VERSION } from './webhooks.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { EmulatorState } from './context.ts';
import type { FaultKind, JournalEntry } from './control-types.ts';
import type { Params } from './params.ts';

interface Answer {
  status: number;
  body: string;
  replayed?: boolean;
  fault?: FaultKind;
  oracle?: boolean;
  headers?: Record<string, string>;
}

const serialize = (value: unknown): string => JSON.stringify(value, null, 2);
const parseOrKeep = (body: string): unknown => {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
};
const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Waits `ms`, or less if the socket closes first; resolves true when the socket is still open. */
function waitUnlessClosed(socket: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      socket.off('close', onClose);
      resolve(!socket.destroyed);
    }, ms);
    socket.once('close', onClose);
  });
}

/** Executes a routed request, answering from or into the idempotency store. */
function execute(state: EmulatorState, req: IncomingMessage, method: string, path: string, params: Params, requestId: string): Answer {
  const idempotencyKey = method === 'POST' ? header(req, 'idempotency-key') : undefined;
  try {
    const routed = routeApiRequest(method, path, header(req, 'authorization'));
    if (idempotencyKey !== undefined) {
      const lookup = state.idempotency.lookup(idempotencyKey, method, path, params);
      if (lookup.kind === 'mismatch') throw idempotencyMismatch(idempotencyKey);
      if (lookup.kind === 'replay') {
        const { status, body, requestId: original } = lookup.response;
        return { status, body, replayed: true, headers: { 'idempotent-replayed': 'true', 'original-request': original } };
      }
    }
    const request = { method, path, params, pathParams: routed.pathParams, keyKind: routed.keyKind, requestId, idempotencyKey: idempotencyKey ?? null };
    const body = serialize(routed.route.handle(request, state));
    if (idempotencyKey !== undefined) state.idempotency.save(idempotencyKey, { method, path, params, status: 200, body, requestId });
    return { status: 200, body };
  } catch (thrown) {
    const error = thrown instanceof ApiError ? thrown : internalError(`Emulator internal error: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
    const body = serialize(error.envelope());
    if (idempotencyKey !== undefined && error.executed) state.idempotency.save(idempotencyKey, { method, path, params, status: error.status, body, requestId });
    return { status: error.status, body };
  }
}

/** Resolves true when `released` settles while the socket is still open; false as soon as the socket closes. */
function heldUntil(socket: Socket, released: Promise<void>): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => resolve(false);
    socket.once('close', onClose);
    void released.then(() => {
      socket.off('close', onClose);
      resolve(!socket.destroyed);
    });
  });
}

/** Reads the body, counting the request as in flight while it arrives. */
async function receive(state: EmulatorState, req: IncomingMessage): Promise<string> {
  state.receiving += 1;
  try {
    return await readBody(req);
  } finally {
    state.receiving -= 1;
  }
}

/** Handles one API request end to end: journaled (in flight) at arrival, completed when answered or dropped. */
export async function handleApiRequest(state: EmulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const requestId = newRequestId();
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://emulator');
  const path = url.pathname;
  const rawBody = await receive(state, req);
  const idempotencyKey = method === 'POST' ? header(req, 'idempotency-key') : undefined;
  let params: Params = {};
  let invalid: ApiError | undefined;
  try {
    params = parseParams(method === 'POST' ? rawBody : url.search.slice(1));
  } catch (error) {
    invalid = error instanceof ApiError ? error : internalError();
  }
  const entry = state.journal.open({ method, path, params, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}), requestId });

  const journal = (status: number | null, body: string | null, extra: Partial<JournalEntry> = {}): void =>
    state.journal.close(entry, { status, ...extra, response: body === null ? null : parseOrKeep(body) });
  const answer = ({ status, body, headers = {}, ...extra }: Answer): void => {
    journal(status, body, extra);
    sendJson(res, status, body, {
      'request-id': requestId,
      'stripe-version': header(req, 'stripe-version') ?? API_VERSION,
      ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
      ...headers,
    });
  };

  const respond = async (): Promise<void> => {
    if (invalid) return answer({ status: invalid.status, body: serialize(invalid.envelope()) });

    const hit = state.faults.take({ method, path, params, idempotencyKey });
    const fault = hit?.fault;
    if (fault) entry.fault = fault.kind;
    if (fault?.kind === 'error500') return answer({ status: 500, body: serialize(internalError().envelope()), fault: fault.kind });
    if (fault?.kind === 'rateLimit429') return answer({ status: 429, body: serialize(rateLimited().envelope()), fault: fault.kind });
    if (fault?.kind === 'reset') {
      journal(null, null, { fault: fault.kind });
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'timeout') {
      if (await waitUnlessClosed(req.socket, fault.delayMs ?? 0)) req.socket.destroy();
      journal(null, null, { fault: fault.kind });
      return;
    }
    const held = fault?.kind === 'delay' ? waitUnlessClosed(req.socket, fault.delayMs ?? 0) : hit?.released ? heldUntil(req.socket, hit.released) : true;
    if (!(await held)) {
      journal(null, null, { fault: fault?.kind });
      return;
    }
    const faultMark = fault ? { fault: fault.kind } : {};

    if (state.stripeMockUrl) {
      try {
        const verdict = await askStripeMock(state.stripeMockUrl, {
          method,
          pathAndQuery: `${path}${url.search}`,
          body: rawBody,
          authorization: header(req, 'authorization'),
          contentType: header(req, 'content-type'),
        });
        if (verdict) return answer({ ...verdict, oracle: true, ...faultMark });
      } catch (error) {
        const apiError = error instanceof ApiError ? error : internalError();
        return answer({ status: apiError.status, body: serialize(apiError.envelope()), ...faultMark });
      }
    }
    answer({ ...execute(state, req, method, path, params, requestId), ...faultMark });
  };
  try {
    await respond();
  } finally {
    // Never leave an entry in flight, even when answering threw (the server then answers 500).
    if (entry.inFlight) journal(null, null);
  }
}
