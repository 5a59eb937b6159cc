// The gateway's requests to its upstream through an undici Pool (kept-alive connections, no per-request agent or ClientRequest): a small answer handed over whole, any other streamed with backpressure.
import { Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import { UpstreamFailure, type UpstreamCall, type UpstreamCallback, type UpstreamRequest, type UpstreamSender } from './upstream-call.ts';

/** undici's error codes of a wait that ran out: connecting, the answer's head, a pause of its body. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** `error` as the gateway tells it: a timeout (504) or a failure (502). */
function asUpstreamFailure(error: Error): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  const code = (error as Error & { code?: unknown }).code;
  const timedOut = typeof code === 'string' && TIMEOUT_CODES.has(code);
  return new UpstreamFailure(timedOut, timedOut ? `the upstream timed out: ${error.message}` : `the upstream failed: ${error.message}`, error);
}

/** The answer's body: pushed as undici reads it, undici paused while the reader is behind, the request aborted when the reader gives up. */
class AnswerBody extends Readable {
  private readonly controller: Dispatcher.DispatchController;
  ended = false;

  constructor(controller: Dispatcher.DispatchController) {
    super();
    this.controller = controller;
  }

  override _read(): void {
    this.controller.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Destroyed before its end (the client went away, the reply failed): the upstream's answer is not read further.
    if (!this.ended) this.controller.abort(error ?? new UpstreamFailure(false, 'the answer was abandoned'));
    callback(error);
  }
}

/** Hands the answer of `call` over once the read that brought its head is processed (a `process.nextTick` callback). */
function handOver(call: Forwarding): void {
  call.handOver();
}

/**
 * One request under way: undici's handler, and the call the gateway may destroy. The answer's head is handed over
 * once the socket read that brought it is processed: an answer whose body came whole with its head (most small
 * answers) is handed over as one Buffer, any other with a stream of its body (what came so far, then the rest).
 */
class Forwarding implements Dispatcher.DispatchHandler, UpstreamCall {
  private done: UpstreamCallback | undefined;
  private readonly headTimer: NodeJS.Timeout;
  private controller: Dispatcher.DispatchController | undefined;
  /** Why the call was ended before undici gave it a controller (a timeout, the client gone): aborted as soon as it does. */
  private abortReason: Error | undefined;
  /** The answer's head, until it is handed over. */
  private head: { status: number; headers: Record<string, string | string[] | undefined> } | undefined;
  /** The body's chunks that came before the hand-over. */
  private chunks: Buffer[] = [];
  private complete = false;
  /** The body's stream, once handed over incomplete. */
  private body: AnswerBody | undefined;

  constructor(done: UpstreamCallback, timeoutMs: number) {
    this.done = done;
    this.headTimer = setTimeout(() => this.end(new UpstreamFailure(true, `the upstream sent no answer within ${timeoutMs} ms`)), timeoutMs);
  }

  /** Ends the call before its answer was handed over: `done` gets `failure`, and the request is aborted (now, or once undici starts it). */
  private end(failure: UpstreamFailure): void {
    this.finish(failure);
    if (this.controller !== undefined) this.controller.abort(failure);
    else this.abortReason ??= failure;
  }

  private finish(failure: UpstreamFailure): void {
    clearTimeout(this.headTimer);
    const done = this.done;
    this.done = undefined;
    done?.(failure);
  }

  destroy(): void {
    if (this.body !== undefined) this.body.destroy();
    else this.end(new UpstreamFailure(false, 'the client went away'));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortReason !== undefined) controller.abort(this.abortReason);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // An interim answer (1xx) is not the answer.
    if (statusCode < 200) return;
    clearTimeout(this.headTimer);
    if (this.done === undefined) {
      // Ended already (timed out, the client gone): the answer is not read.
      controller.abort(new UpstreamFailure(false, 'the answer came too late'));
      return;
    }
    this.head = { status: statusCode, headers };
    process.nextTick(handOver, this);
  }

  /** Calls `done` with the answer: its body whole when it came with the head, else streamed. */
  handOver(): void {
    const done = this.done;
    const head = this.head;
    const controller = this.controller;
    this.done = undefined;
    if (done === undefined || head === undefined || controller === undefined) return;
    let body: Buffer | AnswerBody;
    if (this.complete) body = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    else {
      body = this.body = new AnswerBody(controller);
      for (const chunk of this.chunks) body.push(chunk);
    }
    done(undefined, { status: head.status, headers: head.headers, body });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.body === undefined) this.chunks.push(chunk);
    else if (!this.body.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    if (this.body === undefined) {
      this.complete = true;
      return;
    }
    this.body.ended = true;
    this.body.push(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const failure = asUpstreamFailure(error);
    // After the hand-over the answer's head is on its way: its body breaks off. Before, no answer reached the gateway.
    if (this.body !== undefined) this.body.destroy(failure);
    else this.finish(failure);
  }
}

/**
 * Sends to the upstream at `base` through one undici Pool: as many kept-alive connections as requests under way, one
 * request at a time on each (no pipelining), `timeoutMs` for connecting and for each pause of an answer's body (the
 * wait for the head, connecting included, is the call's own timer). Header fields and the target go as given.
 */
export function createUndiciSender(base: URL, timeoutMs: number): UpstreamSender {
  const pool = new Pool(base.origin, { pipelining: 1, connect: { timeout: timeoutMs }, headersTimeout: 0, bodyTimeout: timeoutMs });
  return {
    send(request: UpstreamRequest, path: string, done: UpstreamCallback): UpstreamCall {
      const call = new Forwarding(done, timeoutMs);
      // A request undici refuses to build (a header or target it will not send) is reported through onResponseError.
      pool.dispatch({ path, method: request.method, headers: request.headers, body: request.body ?? null }, call);
      return call;
    },
    close: () => pool.close(),
  };
}
