// The client mode's cucumber World: one scenario's calls through the driver and what the scripted server received meanwhile.
import { setWorldConstructor, World, type IWorldOptions } from '@cucumber/cucumber';
import { parseDeclarations, type Declarations } from '../world/declarations.ts';
import { isLevel, type Level } from '../world/levels.ts';
import type { CallbackAnswer, CallSpec, FetchReply } from './driver-replies.ts';
import type { OriginName } from './ledger.ts';
import type { RecordedRequest, ScriptedServer } from './scripted-server.ts';
import { clientSession } from './session.ts';

/** What the client runner passes as cucumber `worldParameters`. */
export interface ClientWorldParameters {
  /** The highest level judged (default strict). */
  level?: string;
  /** The driver's declarations, as JSON text. */
  declarations?: string;
}

/** One `fetch` instruction: what was asked, what the driver replied and what the server received meanwhile. */
export interface CallRecord {
  specs: CallSpec[];
  callback: CallbackAnswer;
  reply: FetchReply;
  /** The requests the scripted server received during the instruction, in order of arrival. */
  requests: RecordedRequest[];
  /** Charges made before the instruction. */
  chargesBefore: number;
}

/** The payment method every approving callback of the suite pays with. */
export const PAYMENT_METHOD = 'pm_kit_card';

/** The scenario's world. */
export class ClientWorld extends World<ClientWorldParameters> {
  readonly runLevel: Level;
  readonly declarations: Declarations;
  scenarioName = '';
  tags: string[] = [];
  /** Lines added to the failure transcript. */
  readonly notes: string[] = [];
  readonly calls: CallRecord[] = [];

  constructor(options: IWorldOptions<ClientWorldParameters>) {
    super(options);
    const { level, declarations } = options.parameters;
    this.runLevel = isLevel(level) ? level : 'strict';
    this.declarations = declarations ? parseDeclarations(JSON.parse(declarations)) : {};
  }

  get server(): ScriptedServer {
    return clientSession().server;
  }

  /** The URL of `target` (path and query) on an origin of the scripted server. */
  url(origin: OriginName, target: string): string {
    return `${this.server.url(origin)}${target}`;
  }

  /** Makes `specs` through the client, all at once, the callback answering `callback`; records the call. */
  async call(specs: CallSpec[], callback: CallbackAnswer): Promise<CallRecord> {
    const { server, driver } = clientSession();
    const from = server.requests.length;
    const chargesBefore = server.charges.length;
    const reply = await driver.fetch(specs, callback);
    const record = { specs, callback, reply, requests: server.requests.slice(from), chargesBefore };
    this.calls.push(record);
    return record;
  }

  /** The last call of the scenario. */
  get last(): CallRecord {
    const last = this.calls.at(-1);
    if (!last) throw new Error('no call was made yet in this scenario');
    return last;
  }

  /** The clientId an origin gave the client: the clientId of its first charge in this scenario. */
  givenClientId(origin: OriginName): string {
    const charge = this.server.charges.find((one) => one.origin === origin);
    if (!charge) throw new Error(`server ${origin} charged nothing in this scenario, so it gave no clientId`);
    return charge.clientId;
  }
}

setWorldConstructor(ClientWorld);
