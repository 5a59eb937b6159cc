// The scenario's view of the Stripe emulator: journal entries attributed to this scenario, and scoped fault injection.
import { randomBytes } from 'node:crypto';
import { EmulatorControl } from 'credit402-stripe-emulator';
import type { FaultKind, FaultSpec, JournalEntry } from 'credit402-stripe-emulator';
import { revealedIds } from './journal-queries.ts';

/** A fault the scenario injects; `match` (a subset of decoded params) keeps it to the scenario's own requests. */
export interface ScopedFault {
  kind: FaultKind;
  method: 'GET' | 'POST';
  path: string;
  count: number;
  delayMs?: number;
  match?: Record<string, string>;
}

// Process-wide: the newest journal sequence number seen, and the markers of scenarios that already ran here.
let newestSeq = 0;
const earlierMarkers = new Set<string>();

/** Journal and faults of one scenario. */
export class ProcessorView {
  readonly control: EmulatorControl;
  readonly #apiUrl: string;
  /** Payment method ids, clientIds and revealed customer ids that identify this scenario's processor calls. */
  readonly markers = new Set<string>();
  /** Counting unattributed entries as ours is right only when no other scenario runs at the same time. */
  readonly exclusive: boolean;
  readonly #harnessSeqs = new Set<number>();
  #faults = 0;
  #matchIgnored = false;
  startSeq = 0;
  /** Newest sequence number before the scenario's last judged request. */
  requestSeq = 0;

  constructor(emulatorUrl: string, exclusive: boolean) {
    this.#apiUrl = emulatorUrl.replace(/\/$/, '');
    this.control = new EmulatorControl(`${this.#apiUrl}/_emulator`);
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

  /** This scenario's entries after `since` (default: since the last judged request), in order. */
  async entries(since: number = this.requestSeq): Promise<JournalEntry[]> {
    const known = new Set(this.markers);
    const ours: JournalEntry[] = [];
    for (const entry of await this.control.journal({ since })) {
      newestSeq = Math.max(newestSeq, entry.seq);
      if (this.#harnessSeqs.has(entry.seq) || (entry.method === 'POST' && entry.path === '/v1/payment_methods')) continue;
      const haystack = JSON.stringify([entry.path, entry.params, entry.idempotencyKey ?? '']);
      const mine = [...known].some((marker) => haystack.includes(marker));
      const foreign = !mine && [...earlierMarkers].some((marker) => haystack.includes(marker));
      if (!mine && (foreign || !this.exclusive)) continue;
      ours.push(entry);
      for (const id of revealedIds(entry)) {
        known.add(id);
        this.markers.add(id);
      }
    }
    return ours;
  }

  /** Entries of the whole scenario. */
  scenarioEntries(): Promise<JournalEntry[]> {
    return this.entries(this.startSeq);
  }

  /** Injects a fault; resolves with a warning when the emulator ignored `match` (the fault then hits any matching path). */
  async injectFault(fault: ScopedFault): Promise<string | undefined> {
    this.#faults += 1;
    const active = (await this.control.injectFault(fault as FaultSpec)) as FaultSpec & { match?: unknown };
    if (fault.match && active.match === undefined) {
      this.#matchIgnored = true;
      return `the emulator ignored the fault's match ${JSON.stringify(fault.match)}: it applies to every ${fault.method} ${fault.path}… request`;
    }
    return undefined;
  }

  /** After the scenario: clears faults that could hit others, and hands the markers to later scenarios. */
  async finish(): Promise<void> {
    if (this.#faults > 0 && (this.exclusive || this.#matchIgnored)) await this.control.clearFaults();
    for (const marker of this.markers) earlierMarkers.add(marker);
  }
}
