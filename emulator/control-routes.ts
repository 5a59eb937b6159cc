// The control API under /_emulator: journal, in-flight requests, faults, search lag, reset, webhooks (secrets never read back),
// held events, events, charges without a PaymentIntent, refunds and disputes.
import { ControlError } from './errors.ts';
import { parseFaultSpec } from './faults.ts';
import { readBody, sendJson } from './http-io.ts';
import { createChargeWithoutPaymentIntent } from './charges.ts';
import { disputePaymentIntent, refundPaymentIntent } from './refunds-disputes.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorState } from './context.ts';

/** The path prefix of the control API on the emulator's origin. */
export const CONTROL_PREFIX = '/_emulator';

/** The control API's base URL of the emulator whose Stripe API is at `apiUrl` (what `RunningEmulator.controlUrl` is). */
export function controlUrlOf(apiUrl: string): string {
  return `${apiUrl.replace(/\/$/, '')}${CONTROL_PREFIX}`;
}

type Body = Record<string, unknown>;
interface ControlRoute {
  method: 'GET' | 'POST' | 'DELETE';
  path: RegExp;
  handle: (state: EmulatorState, body: Body, match: string[], query: URLSearchParams) => unknown | Promise<unknown>;
}

const ok = { ok: true };

function jsonBody(raw: string): Body {
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ControlError(400, 'body must be JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ControlError(400, 'body must be a JSON object');
  return parsed as Body;
}

function sinceParam(query: URLSearchParams): number | undefined {
  const since = query.get('since');
  if (since === null) return undefined;
  if (!/^\d+$/.test(since)) throw new ControlError(400, 'since must be a sequence number');
  return Number(since);
}

const noFault = (id: string): never => {
  throw new ControlError(404, `No such fault: '${id}'`);
};

const ROUTES: readonly ControlRoute[] = [
  { method: 'GET', path: /^$/, handle: () => ok },
  {
    method: 'GET',
    path: /^\/journal$/,
    handle: (state, _body, _match, query) => {
      const since = sinceParam(query);
      return state.journal.list({
        path: query.get('path') ?? undefined,
        method: query.get('method') ?? undefined,
        since,
      });
    },
  },
  {
    method: 'DELETE',
    path: /^\/journal$/,
    handle: (state) => {
      state.journal.clear();
      return ok;
    },
  },
  {
    method: 'GET',
    path: /^\/in-flight$/,
    handle: (state) => {
      const entries = state.journal.inFlight();
      return { count: state.receiving + entries.length, entries };
    },
  },
  { method: 'GET', path: /^\/faults$/, handle: (state, _body, _match, query) => state.faults.list(query.get('all') === 'true') },
  {
    method: 'POST',
    path: /^\/faults$/,
    handle: (state, body) => {
      const fault = parseFaultSpec(body);
      if (typeof fault === 'string') throw new ControlError(400, fault);
      return state.faults.add(fault);
    },
  },
  {
    method: 'DELETE',
    path: /^\/faults$/,
    handle: (state) => {
      state.faults.clear();
      return ok;
    },
  },
  { method: 'GET', path: /^\/faults\/([^/]+)$/, handle: (state, _body, [, id = '']) => state.faults.get(id) ?? noFault(id) },
  { method: 'DELETE', path: /^\/faults\/([^/]+)$/, handle: (state, _body, [, id = '']) => state.faults.remove(id) ?? noFault(id) },
  {
    method: 'POST',
    path: /^\/search-lag$/,
    handle: (state, body) => {
      if (!Number.isInteger(body.ms) || (body.ms as number) < 0) throw new ControlError(400, 'ms must be a non-negative integer');
      state.searchLagMs = body.ms as number;
      return { ms: state.searchLagMs };
    },
  },
  {
    method: 'POST',
    path: /^\/reset$/,
    handle: (state) => {
      state.reset();
      return ok;
    },
  },
  { method: 'GET', path: /^\/webhooks$/, handle: (state) => state.webhooks.endpoints() },
  {
    method: 'POST',
    path: /^\/webhooks$/,
    handle: (state, body) => {
      if (typeof body.url !== 'string' || !URL.canParse(body.url)) throw new ControlError(400, 'url must be an absolute URL');
      if (typeof body.secret !== 'string' || body.secret === '') throw new ControlError(400, 'secret must be a non-empty string');
      return state.webhooks.register(body.url, body.secret);
    },
  },
  {
    method: 'POST',
    path: /^\/webhooks\/hold$/,
    handle: (state, body) => {
      if (typeof body.payment_method !== 'string' || body.payment_method === '') throw new ControlError(400, 'payment_method must be a non-empty string');
      state.heldPaymentMethods.add(body.payment_method);
      return { held: [...state.heldPaymentMethods] };
    },
  },
  { method: 'GET', path: /^\/events$/, handle: (state) => state.webhooks.list() },
  {
    method: 'POST',
    path: /^\/events\/([^/]+)\/redeliver$/,
    handle: async (state, _body, [, id = '']) => {
      const attempts = await state.webhooks.redeliver(id);
      if (!attempts) throw new ControlError(404, `No such event: '${id}'`);
      return attempts;
    },
  },
  {
    method: 'POST',
    path: /^\/charges$/,
    handle: (state, body) => {
      const method = typeof body.payment_method === 'string' ? state.store.paymentMethods.get(body.payment_method) : undefined;
      if (!method) throw new ControlError(400, 'payment_method must name an existing payment method');
      if (!Number.isInteger(body.amount) || (body.amount as number) < 1) throw new ControlError(400, 'amount must be a positive integer');
      if (body.currency !== undefined && (typeof body.currency !== 'string' || !/^[a-z]{3}$/.test(body.currency))) throw new ControlError(400, 'currency must be a lowercase ISO code');
      return createChargeWithoutPaymentIntent(state, method, body.amount as number, (body.currency as string | undefined) ?? 'usd');
    },
  },
  {
    method: 'POST',
    path: /^\/(?:payment_intents|charges)\/([^/]+)\/refund$/,
    handle: (state, body, [, id = '']) => {
      if (body.amount !== undefined && typeof body.amount !== 'number') throw new ControlError(400, 'amount must be a positive integer');
      return refundPaymentIntent(state, id, body.amount);
    },
  },
  {
    method: 'POST',
    path: /^\/(?:payment_intents|charges)\/([^/]+)\/dispute$/,
    handle: (state, body, [, id = '']) => {
      if (body.reason !== undefined && typeof body.reason !== 'string') throw new ControlError(400, 'reason must be a string');
      if (body.amount !== undefined && typeof body.amount !== 'number') throw new ControlError(400, 'amount must be a positive integer');
      return disputePaymentIntent(state, id, body.reason, body.amount);
    },
  },
];

/** Handles a request whose path starts with {@link CONTROL_PREFIX}. */
export async function handleControlRequest(state: EmulatorState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const subpath = url.pathname.slice(CONTROL_PREFIX.length).replace(/\/$/, '');
  const send = (status: number, value: unknown) => sendJson(res, status, JSON.stringify(value, null, 2));
  try {
    const raw = await readBody(req);
    for (const route of ROUTES) {
      const match = route.path.exec(subpath);
      if (!match || route.method !== req.method) continue;
      return send(200, await route.handle(state, jsonBody(raw), [...match], url.searchParams));
    }
    throw new ControlError(404, `No control route ${req.method} ${url.pathname}`);
  } catch (error) {
    if (error instanceof ControlError) return send(error.status, { error: { message: error.message } });
    send(500, { error: { message: error instanceof Error ? error.message : String(error) } });
  }
}
