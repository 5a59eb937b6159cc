// The scenario's view of the Stripe emulator: its journal entries (judged once none is in flight) and the faults it armed.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { controlUrlOf, EmulatorControl } from 'credit402-stripe-emulator';
import type { ActiveFault, FaultKind, FaultSpec, JournalEntry } from 'credit402-stripe-emulator';
import { describeEntry, revealedIds } from './journal-queries.ts';

/**
 * A fault the scenario injects, scoped by what every target sends: the payment method or customer id, the amount
 * (`match`: equal params), a text the param mentions (`contains`, e.g. the clientId in a customer search query).
 */
export interface ScopedFault {
  kind: FaultKind;
  method: 'GET' | 'POST';
  path: string;
  /** How many matching requests it hits (`barrier`: gathers), or `until-answer`: every one until the target answers the next request. */
  count: number | 'until-answer';
  delayMs?: number;
  match?: Record<string, string>;
  contains?: Record<string, string>;
}

/** One fault the scenario armed, as reports show it. */
interface FaultReport {
  kind: FaultKind;
  count: number | 'until-answer';
  /** The requests it applies to, in words. */
  scope: string;
  /** How many requests it hit (as of the last answer or judged journal read). */
  fired: number;
}

interface Armed extends FaultReport {
  id: string;
  /** Used up, released or removed: `fired` will not change any more. */
  done: boolean;
}

/** How long judging waits for the scenario's requests still in flight at the processor. */
const SETTLE_TIMEOUT_MS = 15_000;

// Process-wide: the newest journal sequence number seen, and the markers of scenarios that already ran here.
let newestSeq = 0;
const earlierMarkers = new Set<string>();

/** `POST /v1/payment_intents with payment_method=pm_… whose query mentions …` */
function scopeOf(fault: ScopedFault): string {
  const equal = Object.entries(fault.match ?? {}).map(([name, value]) => ` with ${name}=${value}`);
  const mentions = Object.entries(fault.contains ?? {}).map(([name, text]) => ` whose ${name} mentions ${text}`);
  return `${fault.method} ${fault.path}${equal.join('')}${mentions.join('')}`;
}

/** Journal and faults of one scenario. */
export class ProcessorView {
  readonly control: EmulatorControl;
  readonly #apiUrl: string;
  /** Payment method ids, clientIds and revealed customer ids that identify this scenario's processor calls. */
  readonly markers = new Set<string>();
  /** Counting unattributed entries as ours is right only when no other scenario runs at the same time. */
  readonly exclusive: boolean;
  readonly #harnessSeqs = new Set<number>();
  readonly #armed: Armed[] = [];
  #faultSync: Promise<void> = Promise.resolve();
  #matchIgnored = false;
  startSeq = 0;
  /** Newest sequence number before the scenario's last judged request. */
  requestSeq = 0;

  constructor(emulatorUrl: string, exclusive: boolean) {
    this.#apiUrl = emulatorUrl.replace(/\/$/, '');
    this.control = new EmulatorControl(controlUrlOf(this.#apiUrl));
    this.exclusive = exclusive;
  }

  /** The newest sequence number in the journal (fetches only what is new since the last look). */
  async newestSeq(): Promise<number> {
    for (const entry of await this.control.journal({ since: newestSeq })) newestSeq = Math.max(newestSeq, entry.seq);
    return newestSeq;
  }

  async start(secretKey: string): Promise<void> {
    if (newestSeq === 0) await this.#probe(secretKey);
    this.startSeq = await this.newestSeq();
    this.requestSeq = this.startSeq;
  }

  /** Finds the newest sequence number without downloading a long journal: one unique request, then its entry. */
  async #probe(secretKey: string): Promise<void> {
    const path = `/v1/payment_methods/pm_credit402harnessprobe${randomBytes(8).toString('hex')}`;
    const response = await fetch(`${this.#apiUrl}${path}`, { headers: { authorization: `Bearer ${secretKey}` }, signal: AbortSignal.timeout(10_000) });
    await response.text();
    for (const entry of await this.control.journal({ path })) newestSeq = Math.max(newestSeq, entry.seq);
  }

  /** Marks the journal position just before a judged request. */
  async markRequest(): Promise<void> {
    this.requestSeq = await this.newestSeq();
  }

  /** Remembers a journal entry the harness itself caused (e.g. its own payment-method retrieval). */
  async excludeHarnessCall(path: string): Promise<void> {
    for (const entry of await this.control.journal({ path, since: this.startSeq })) if (entry.path === path) this.#harnessSeqs.add(entry.seq);
  }

  /** Whether an entry is this scenario's, by the markers in `known`. */
  #ours(entry: JournalEntry, known: ReadonlySet<string>): boolean {
    if (this.#harnessSeqs.has(entry.seq) || (entry.method === 'POST' && entry.path === '/v1/payment_methods')) return false;
    const haystack = JSON.stringify([entry.path, entry.params, entry.idempotencyKey ?? '']);
    if ([...known].some((marker) => haystack.includes(marker))) return true;
    return this.exclusive && ![...earlierMarkers].some((marker) => haystack.includes(marker));
  }

  /**
   * Waits until no request of this scenario is in flight at the processor (held by a fault, or executing), so that
   * the journal is final; fails after `timeoutMs`.
   */
  async settle(timeoutMs: number = SETTLE_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { count, entries } = await this.control.inFlight();
      const ours = entries.filter((entry) => entry.seq > this.startSeq && this.#ours(entry, this.markers));
      const arriving = this.exclusive ? count - entries.length : 0;
      if (ours.length === 0 && arriving <= 0) return;
      if (Date.now() >= deadline) {
        const listed = ours.map((entry) => `\n  ${describeEntry(entry)}`).join('') + (arriving > 0 ? `\n  ${arriving} request(s) still arriving` : '');
        throw new Error(`the processor still had requests of this scenario in flight after ${timeoutMs} ms, so its journal cannot be judged:${listed}`);
      }
      await sleep(20);
    }
  }

  /** This scenario's entries after `since` (default: since the last judged request), in order, once none is in flight. */
  async entries(since: number = this.requestSeq): Promise<JournalEntry[]> {
    await this.settle();
    const journal = await this.control.journal({ since });
    await this.#syncFaults(false);
    const known = new Set(this.markers);
    const ours: JournalEntry[] = [];
    for (const entry of journal) {
      newestSeq = Math.max(newestSeq, entry.seq);
      if (!this.#ours(entry, known)) continue;
      ours.push(entry);
      for (const id of revealedIds(entry)) {
        known.add(id);
        this.markers.add(id);
      }
    }
    return ours;
  }

  /** Entries of the whole scenario, once none is in flight. */
  scenarioEntries(): Promise<JournalEntry[]> {
    return this.entries(this.startSeq);
  }

  /** Injects a fault; resolves with a warning when the emulator ignored its scope (the fault then hits any matching path). */
  async injectFault(fault: ScopedFault): Promise<string | undefined> {
    const { count, ...rest } = fault;
    const spec: FaultSpec = count === 'until-answer' ? { ...rest, untilRemoved: true } : { ...rest, count };
    const active = (await this.control.injectFault(spec)) as Partial<ActiveFault> & { id: string };
    this.#armed.push({ id: active.id, kind: fault.kind, count, scope: scopeOf(fault), fired: 0, done: false });
    const ignored = (['match', 'contains', 'untilRemoved'] as const).filter((name) => spec[name] !== undefined && active[name] === undefined);
    if (ignored.length === 0) return undefined;
    this.#matchIgnored = true;
    return `the emulator ignored the fault's ${ignored.join(', ')}: it applies to ${count === 'until-answer' ? 'the next' : count} ${fault.method} ${fault.path}… request(s)`;
  }

  /** Called after each answer of the target (or give-up): disarms the faults armed until that answer, refreshes fired counts. */
  afterAnswer(): Promise<void> {
    return this.#armed.some((armed) => !armed.done) ? this.#syncFaults(true) : Promise.resolve();
  }

  /** Brings `fired` up to date; with `disarm`, removes the faults armed `until-answer`. Serialised: batches answer at once. */
  #syncFaults(disarm: boolean): Promise<void> {
    const sync = async (): Promise<void> => {
      for (const armed of this.#armed.filter((candidate) => !candidate.done)) {
        const removing = disarm && armed.count === 'until-answer';
        const state = removing ? await this.control.removeFault(armed.id) : await this.control.fault(armed.id);
        armed.fired = state.fired ?? armed.fired;
        armed.done = removing || state.active === false;
      }
    };
    this.#faultSync = this.#faultSync.then(sync, sync);
    return this.#faultSync;
  }

  /** Re-reads how often each armed fault fired (the counts are otherwise as of the last answer or judged read). */
  refreshFaults(): Promise<void> {
    return this.#armed.some((armed) => !armed.done) ? this.#syncFaults(false) : Promise.resolve();
  }

  /** Every fault the scenario armed and how often it fired, for the failure transcript. */
  faultReport(): FaultReport[] {
    return this.#armed.map(({ kind, count, scope, fired }) => ({ kind, count, scope, fired }));
  }

  /** The faults the scenario armed that never fired, in words: a verdict resting on them is inconclusive. */
  unfiredFaults(): string[] {
    return this.#armed
      .filter((armed) => armed.fired === 0)
      .map((armed) => `${armed.kind} ${armed.count === 'until-answer' ? 'until the target answered' : `× ${armed.count}`} on ${armed.scope}: never fired`);
  }

  /** After the scenario: removes its faults still armed, and hands the markers to later scenarios. */
  async finish(): Promise<void> {
    await this.refreshFaults().catch(() => undefined);
    const leftover = this.#armed.filter((armed) => !armed.done);
    const remove = async (armed: Armed): Promise<void> => {
      armed.fired = (await this.control.removeFault(armed.id)).fired;
      armed.done = true;
    };
    await Promise.all(leftover.map((armed) => remove(armed).catch(() => undefined)));
    if (this.#armed.length > 0 && (this.exclusive || this.#matchIgnored)) await this.control.clearFaults();
    for (const marker of this.markers) earlierMarkers.add(marker);
  }
}
