// The client run's shared parts: the scripted server and the driver channel the runner started, handed to the cucumber World.
import type { DriverChannel } from './driver.ts';
import type { ScriptedServer } from './scripted-server.ts';

/** What the runner starts once per client run. */
export interface ClientSession {
  server: ScriptedServer;
  driver: DriverChannel;
}

/** Kept on globalThis under a registered symbol, so the World finds it whichever copy of this module it loaded. */
const KEY = Symbol.for('credit402.clientSession');
type Holder = { [KEY]?: ClientSession };

/** Makes `session` the run's (the runner, before the suite runs); undefined clears it. */
export function setClientSession(session: ClientSession | undefined): void {
  (globalThis as Holder)[KEY] = session;
}

/** The run's session; throws when no client run started one. */
export function clientSession(): ClientSession {
  const session = (globalThis as Holder)[KEY];
  if (session === undefined) throw new Error('no client run is under way: the client suite runs through `credit402-conformance client`');
  return session;
}
