// The conformance control routes a target may offer (PROFILE.md, Capabilities): store faults by clientId, and a client's records.

/** `GET` lists, `POST` arms, `DELETE` removes store faults (capability `storeFaults`). */
export const STORE_FAULTS_PATH = '/_conformance/store-faults';

/** `GET ?clientId=` answers the client record and its transaction records (capability `records`). */
export const RECORDS_PATH = '/_conformance/records';

/** The operations a store fault names (spec §11, those about one client), or `any` of them. */
const STORE_OPERATIONS = ['deductBalance', 'addBalance', 'ensureClient', 'getClient', 'creditTopUp', 'recordTransaction', 'listTransactions', 'any'] as const;

/** One of {@link STORE_OPERATIONS}. */
export type StoreOperation = (typeof STORE_OPERATIONS)[number];

/**
 * A fault to arm: the calls of `operation` for `clientId` fail, after `skip` of them went through; `count` of them, or
 * all. With `replyLost`, each failing call takes effect first and then fails, as when a store's reply is lost. With
 * `delayMs`, each call the fault fires on is held that long first (a store that hangs), then fails, or with `proceed`
 * goes on to the store as if no fault were armed (a store that answers late).
 */
export interface StoreFaultSpec {
  clientId: string;
  operation: StoreOperation;
  skip?: number;
  count?: number;
  replyLost?: boolean;
  delayMs?: number;
  proceed?: boolean;
}

/** A fault as the target reports it: how many calls it failed so far. */
export interface StoreFaultState extends StoreFaultSpec {
  fired: number;
}

/** What the records route answers: the client record (null when there is none) and its transaction records, oldest first. */
export interface RecordsView {
  client: Record<string, unknown> | null;
  records: Array<Record<string, unknown>>;
}

/** The target answered a control route other than the profile says; the message says which and how. */
export class ControlRouteError extends Error {
  override name = 'ControlRouteError';
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads one fault of an answer; throws on anything else. */
export function parseFault(value: unknown): StoreFaultState {
  if (!isObject(value) || typeof value.clientId !== 'string' || !(STORE_OPERATIONS as readonly unknown[]).includes(value.operation) || !Number.isSafeInteger(value.fired)) {
    throw new ControlRouteError(`not a store fault {clientId, operation, fired, …}: ${JSON.stringify(value)}`);
  }
  return value as unknown as StoreFaultState;
}

/** Reads the answer of the records route; throws on anything else. */
export function parseRecordsView(value: unknown): RecordsView {
  if (!isObject(value) || !(value.client === null || isObject(value.client)) || !Array.isArray(value.records) || !value.records.every(isObject)) {
    throw new ControlRouteError(`not {"client": {…} | null, "records": [{…}, …]}: ${JSON.stringify(value)?.slice(0, 300)}`);
  }
  return { client: value.client as RecordsView['client'], records: value.records as RecordsView['records'] };
}

/** Calls the control routes of one target. */
export class ControlRoutes {
  readonly #base: string;
  readonly #timeoutMs: number;

  constructor(targetUrl: string, timeoutMs = 10_000) {
    this.#base = targetUrl.replace(/\/$/, '');
    this.#timeoutMs = timeoutMs;
  }

  async #call(method: 'GET' | 'POST' | 'DELETE', target: string, expected: number, body?: unknown): Promise<unknown> {
    const what = `${method} ${target}`;
    let response: Response;
    try {
      response = await fetch(`${this.#base}${target}`, {
        method,
        ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.#timeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      throw new ControlRouteError(`${what} could not be sent: ${error instanceof Error ? error.message : String(error)}`);
    }
    const text = await response.text();
    if (response.status !== expected) {
      const hint = response.status === 404 ? ' (does the target offer the capability it declares? harness/PROFILE.md, Capabilities)' : '';
      throw new ControlRouteError(`${what} answered ${response.status} instead of ${expected}${hint}: ${text.slice(0, 300)}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ControlRouteError(`${what} answered ${response.status} without a JSON body: ${text.slice(0, 300)}`);
    }
  }

  /** Arms a store fault (`POST`, answered 201 `{"fault": …}`). */
  async armStoreFault(spec: StoreFaultSpec): Promise<StoreFaultState> {
    const answer = await this.#call('POST', STORE_FAULTS_PATH, 201, spec);
    return parseFault(isObject(answer) ? answer.fault : answer);
  }

  /** Removes the client's store faults (`DELETE`, answered 200 `{"faults": […]}`); resolves with them as they ended. */
  async clearStoreFaults(clientId: string): Promise<StoreFaultState[]> {
    const answer = await this.#call('DELETE', `${STORE_FAULTS_PATH}?clientId=${encodeURIComponent(clientId)}`, 200);
    if (!isObject(answer) || !Array.isArray(answer.faults)) throw new ControlRouteError(`DELETE ${STORE_FAULTS_PATH}: not {"faults": […]}: ${JSON.stringify(answer)}`);
    return answer.faults.map(parseFault);
  }

  /** The client's record and transaction records. */
  async records(clientId: string): Promise<RecordsView> {
    return parseRecordsView(await this.#call('GET', `${RECORDS_PATH}?clientId=${encodeURIComponent(clientId)}`, 200));
  }
}
