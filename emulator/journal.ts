// The request journal: every API request in arrival order, with its parameters, fault and answer; in-flight ones marked.
import type { JournalEntry, JournalFilter } from './control-types.ts';

/** What a request's answer adds to its journal entry. */
type Outcome = Pick<JournalEntry, 'status' | 'response'> & Partial<Pick<JournalEntry, 'replayed' | 'fault' | 'oracle'>>;

/** A request as it arrives, before any answer. */
type Arrival = Omit<JournalEntry, 'seq' | 'time' | 'status' | 'replayed' | 'response' | 'inFlight' | 'durationMs'>;

export class Journal {
  #entries: JournalEntry[] = [];
  readonly #inFlight = new Set<JournalEntry>();
  #seq = 0;

  /** Journals a request at arrival, in flight until {@link Journal.close}; returns its entry. */
  open(arrival: Arrival): JournalEntry {
    const entry: JournalEntry = { seq: ++this.#seq, time: new Date().toISOString(), ...arrival, status: null, replayed: false, response: null, inFlight: true };
    this.#entries.push(entry);
    this.#inFlight.add(entry);
    return entry;
  }

  /** Completes an entry with its answer (or its drop: status null) and takes it out of flight. */
  close(entry: JournalEntry, outcome: Outcome): void {
    delete entry.inFlight;
    Object.assign(entry, { replayed: false, ...outcome, durationMs: Date.now() - Date.parse(entry.time) });
    this.#inFlight.delete(entry);
  }

  list(filter: JournalFilter = {}): JournalEntry[] {
    return this.#entries.filter(
      (e) =>
        (filter.path === undefined || e.path.startsWith(filter.path)) &&
        (filter.method === undefined || e.method === filter.method.toUpperCase()) &&
        (filter.since === undefined || e.seq > filter.since),
    );
  }

  /** Journaled requests not answered yet, oldest first (also those a `clear` removed from the list). */
  inFlight(): JournalEntry[] {
    return [...this.#inFlight].sort((a, b) => a.seq - b.seq);
  }

  /** Empties the journal; sequence numbers keep counting so `since` stays meaningful. */
  clear(): void {
    this.#entries = [];
  }

  /** Empties the journal and restarts numbering at 1. */
  reset(): void {
    this.#entries = [];
    this.#inFlight.clear();
    this.#seq = 0;
  }
}
