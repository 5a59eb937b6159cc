// A target that follows the stripe402 source (source-following-target.ts) and departs from it in four places, as an outside implementer did.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Gate, GateDecision, GateRequest } from 'credit402/gate';
import type { Processor } from 'credit402';
import { decodeBase64Json, encodeBase64Json, HEADERS } from 'credit402/protocol';
import type { ServerConfig } from 'credit402/server';
import { assertSafeInteger } from 'credit402/internal/stores/validate';
import { wrapProcessor } from './serve-mutant.ts';
import { startSourceFollowing, type RunningSourceFollowing } from './source-following-target.ts';

/** What one request's departures tell the processor wrapper (`topUp`: a fractional top-up) and what it reports back (`failure`: the message). */
interface Departure {
  topUp?: number;
  failure?: string;
}

const departure = new AsyncLocalStorage<Departure>();

/** a. Lenient decoding: after the strict rules, Node's `Buffer.from(value, 'base64')`, which skips characters outside the alphabets and a 4n+1st one. */
function lenientDecode(value: string): { ok: true; value: unknown; lenient: boolean } | { ok: false } {
  const strict = decodeBase64Json(value);
  if (strict.ok) return { ...strict, lenient: false };
  try {
    return { ok: true, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64'))), lenient: true };
  } catch {
    return { ok: false };
  }
}

/** b. `payload.clientId` on a payload that is not an object throws: the answer is a 500 with the stack trace. */
function crash(payload: unknown): GateDecision {
  const { stack } = new TypeError(`Cannot read properties of ${JSON.stringify(payload)} (reading 'clientId')`);
  return { action: 'respond', status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: stack, code: 'crash' };
}

/** Whether `gate` gates the request: without a payment it answers the challenge (so free and ambiguous requests are left alone). */
async function gated(gate: Gate, request: GateRequest): Promise<boolean> {
  const decision = await gate.handle({ ...request, paymentHeader: undefined });
  return decision.action === 'respond' && decision.headers[HEADERS.PAYMENT_REQUIRED] !== undefined;
}

/** The gate of departures a, b and c around the source-following gate; the message of c and d replaces `Payment processing failed`. */
function departingGate(gate: Gate): Gate {
  return {
    ...gate,
    async handle(request) {
      const raw = typeof request.paymentHeader === 'string' ? request.paymentHeader : request.paymentHeader?.join(',');
      const decoded = raw === undefined ? undefined : lenientDecode(raw);
      if (!decoded?.ok || !(await gated(gate, request))) return gate.handle(request);
      const payload = decoded.value;
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return crash(payload);
      const topUp = (payload as { topUpAmount?: unknown }).topUpAmount;
      // c. A fractional top-up reaches the charge (⌈t/100⌉ = ⌈⌈t⌉/100⌉ minor units); the processor wrapper then fails the credit.
      const fractional = typeof topUp === 'number' && topUp > 0 && !Number.isInteger(topUp);
      const paymentHeader: GateRequest['paymentHeader'] = fractional ? encodeBase64Json({ ...payload, topUpAmount: Math.ceil(topUp) }) : decoded.lenient ? encodeBase64Json(payload) : request.paymentHeader;
      const state: Departure = fractional ? { topUp } : {};
      const decision = await departure.run(state, () => gate.handle({ ...request, paymentHeader }));
      if (state.failure === undefined || decision.action !== 'respond') return decision;
      return { ...decision, body: { ...(decision.body as object), error: state.failure } };
    },
  };
}

/** The processor of departures c and d: a fractional top-up is charged, then refused by the store's guard; a status not `succeeded` is named. */
function departingProcessor(processor: Processor): Processor {
  return wrapProcessor(processor, {
    charge: async (request) => {
      const state = departure.getStore();
      const topUp = state?.topUp;
      // The PaymentIntent names the top-up the target took from the payload, 50000.5, not the ⌈t⌉ the gate was given.
      const result = await processor.charge(topUp === undefined ? request : { ...request, metadata: { ...request.metadata, credit402_top_up_units: String(topUp) } });
      if (state === undefined) return result;
      if (!result.succeeded) {
        state.failure = `Payment did not succeed. Status: ${result.reason}`;
        return result;
      }
      if (topUp === undefined) return result;
      try {
        assertSafeInteger(topUp, 'amount', 1); // the store's creditTopUp refuses the fraction: charged, never credited
      } catch (error) {
        state.failure = (error as Error).message;
        throw error;
      }
      return result;
    },
  });
}

/** Starts the target like {@link startSourceFollowing}, with the four departures. */
export function startSourceDepartures(config: ServerConfig): Promise<RunningSourceFollowing> {
  return startSourceFollowing(config, { gate: departingGate, processor: departingProcessor });
}
