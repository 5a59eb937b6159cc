// The conformance control routes (harness/PROFILE.md, Capabilities): store faults by clientId and a client's records, framework-free.
import { definedFields } from '../config/defined-fields.ts';
import type { Store } from '../stores/store.ts';
import { FAULT_OPERATIONS, type FaultOperation, type StoreFaults, type StoreFaultSpec } from './store-faults.ts';

/** `GET` lists, `POST` arms, `DELETE` removes store faults (capability `storeFaults`). */
export const STORE_FAULTS_PATH = '/_conformance/store-faults';

/** `GET ?clientId=` answers the client record and transaction records (capability `records`). */
export const RECORDS_PATH = '/_conformance/records';

/** Largest body of a `POST` to the store-faults route, in bytes. */
export const CONTROL_BODY_LIMIT = 16_384;

/** One request to a control route, as the framework received it. */
interface ControlRequest {
  method: string;
  /** The request target: path and query. */
  url: string;
  /** The raw body, when there is one. */
  body?: string;
}

/** The answer: a status and a JSON body (errors are `{ "error": "<message>" }`). */
interface ControlAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const CLIENT_ID = /^[0-9a-f]{64}$/;
const MAX_COUNT = 1_000_000;
const FAULT_MEMBERS = ['clientId', 'operation', 'count', 'skip', 'replyLost', 'delayMs', 'proceed'];
/** The longest hold of a store call a fault may ask for, in ms. */
const MAX_DELAY_MS = 60_000;

class BadRequest extends Error {}

const error = (status: number, message: string, headers?: Record<string, string>): ControlAnswer => ({ status, body: { error: message }, ...(headers ? { headers } : {}) });

function clientIdOf(query: URLSearchParams, required: boolean): string | undefined {
  const values = query.getAll('clientId');
  if (values.length === 0 && !required) return undefined;
  const [value] = values;
  if (values.length !== 1 || value === undefined || !CLIENT_ID.test(value)) {
    throw new BadRequest(`the query must carry one clientId of 64 lowercase hex digits, got ${values.length === 0 ? 'none' : JSON.stringify(values.join(','))}`);
  }
  return value;
}

function integer(name: string, value: unknown, min: number, max: number = MAX_COUNT): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new BadRequest(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return value;
}

function flag(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new BadRequest(`${name} must be true or false, got ${JSON.stringify(value)}`);
  return value;
}

/** Validates the body of `POST /_conformance/store-faults`; throws a message naming the wrong member. */
export function parseFaultSpec(text: string | undefined): StoreFaultSpec {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    throw new BadRequest('the body must be a JSON object {"clientId", "operation", "count"?, "skip"?, "replyLost"?, "delayMs"?, "proceed"?}');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadRequest('the body must be a JSON object');
  const body = value as Record<string, unknown>;
  const unknown = Object.keys(body).filter((name) => !FAULT_MEMBERS.includes(name));
  if (unknown.length > 0) throw new BadRequest(`unknown member ${unknown.join(', ')}; known: ${FAULT_MEMBERS.join(', ')}`);
  if (typeof body.clientId !== 'string' || !CLIENT_ID.test(body.clientId)) throw new BadRequest(`clientId must be 64 lowercase hex digits, got ${JSON.stringify(body.clientId)}`);
  if (!(FAULT_OPERATIONS as readonly unknown[]).includes(body.operation)) {
    throw new BadRequest(`operation must be one of ${FAULT_OPERATIONS.join(', ')}, got ${JSON.stringify(body.operation)}`);
  }
  const replyLost = body.replyLost === undefined ? undefined : flag('replyLost', body.replyLost);
  const delayMs = body.delayMs === undefined ? undefined : integer('delayMs', body.delayMs, 1, MAX_DELAY_MS);
  const proceed = body.proceed === undefined ? undefined : flag('proceed', body.proceed);
  if (proceed === true && delayMs === undefined) throw new BadRequest('proceed needs delayMs: a fault that lets the call proceed at once changes nothing');
  if (proceed === true && replyLost === true) throw new BadRequest('proceed and replyLost exclude each other: a call that proceeds does not fail');
  return {
    clientId: body.clientId,
    operation: body.operation as FaultOperation,
    skip: body.skip === undefined ? 0 : integer('skip', body.skip, 0),
    ...definedFields({ count: body.count === undefined ? undefined : integer('count', body.count, 1), replyLost, delayMs, proceed }),
  };
}

/** Answers the control routes of one server: faults go to `faults`, records are read from `store` (never faulted). */
export class ConformanceControl {
  readonly #store: Store;
  readonly faults: StoreFaults;

  /** `store` must be the store as it is, not the one behind the faults: the control routes never fail with the target. */
  constructor(store: Store, faults: StoreFaults) {
    this.#store = store;
    this.faults = faults;
  }

  /** Answers one request to {@link STORE_FAULTS_PATH} or {@link RECORDS_PATH}; never rejects. */
  async handle(request: ControlRequest): Promise<ControlAnswer> {
    const url = new URL(request.url, 'http://localhost');
    try {
      if (url.pathname === STORE_FAULTS_PATH) return this.#storeFaults(request, url.searchParams);
      if (url.pathname === RECORDS_PATH) {
        if (request.method !== 'GET' && request.method !== 'HEAD') return error(405, `${RECORDS_PATH} answers GET only`, { allow: 'GET' });
        return await this.#records(url.searchParams);
      }
      return error(404, `no control route ${url.pathname}`);
    } catch (thrown) {
      if (thrown instanceof BadRequest || thrown instanceof RangeError) return error(400, thrown.message);
      return error(500, `the control route failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
    }
  }

  #storeFaults(request: ControlRequest, query: URLSearchParams): ControlAnswer {
    switch (request.method) {
      case 'GET':
      case 'HEAD':
        return { status: 200, body: { faults: this.faults.list(clientIdOf(query, false)) } };
      case 'POST':
        return { status: 201, body: { fault: this.faults.arm(parseFaultSpec(request.body)) } };
      case 'DELETE':
        return { status: 200, body: { faults: this.faults.clear(clientIdOf(query, false)) } };
      default:
        return error(405, `${STORE_FAULTS_PATH} answers GET, POST and DELETE`, { allow: 'GET, POST, DELETE' });
    }
  }

  async #records(query: URLSearchParams): Promise<ControlAnswer> {
    const clientId = clientIdOf(query, true) as string;
    const { listTransactions } = this.#store;
    if (!listTransactions) return error(501, 'this store keeps no transaction log');
    const [client, records] = await Promise.all([this.#store.getClient(clientId), listTransactions.call(this.#store, clientId)]);
    return { status: 200, body: { client, records } };
  }
}

/** The control path a configured route key (`<METHOD> <path>`) already uses, if any: the control routes cannot be mounted then. */
export function controlPathTaken(routeKeys: Iterable<string>): string | undefined {
  for (const key of routeKeys) {
    const path = key.slice(key.indexOf(' ') + 1);
    if (path === STORE_FAULTS_PATH || path === RECORDS_PATH) return path;
  }
  return undefined;
}
