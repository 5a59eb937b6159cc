// One request of the gateway to its upstream: what is sent, what comes back, how it fails (502) or times out (504).
import type { Readable } from 'node:stream';

/** Why the upstream gave no answer: `timedOut` when it took longer than the timeout (504), else it failed (502). */
export class UpstreamFailure extends Error {
  readonly timedOut: boolean;
  constructor(timedOut: boolean, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'UpstreamFailure';
    this.timedOut = timedOut;
  }
}

/**
 * The upstream's answer: its status, its header fields as received (lowercase names, hop-by-hop ones included: the
 * caller drops them) and its body, whole when it came in the same read as the head, else streamed.
 */
export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | Readable;
}

/**
 * One request to the upstream: the target in origin-form (or `*`), the header fields to send as they are (name,
 * value, name, value, …: one pair per line, lowercase names, no hop-by-hop field and no `Host`, which is the
 * upstream's), and the body to stream (sent with its `content-length` when the fields have one, else chunked).
 */
export interface UpstreamRequest {
  method: string;
  target: string;
  headers: string[];
  body: Readable | undefined;
}

/** A request under way: destroy it when its client goes away. */
export interface UpstreamCall {
  destroy(): void;
}

/** What `done` is called with: the answer's head as soon as it arrives, or the failure that prevented it. */
export type UpstreamCallback = (failure: UpstreamFailure | undefined, answer?: UpstreamAnswer) => void;

/** One way of sending requests to the upstream; `path` is the target with the upstream URL's path before it (`*` alone). */
export interface UpstreamSender {
  send(request: UpstreamRequest, path: string, done: UpstreamCallback): UpstreamCall;
  close(): Promise<void>;
}

