// The request journal: every API request in order, with its parameters, fault and answer.
import type { JournalEntry, JournalFilter } from './control-types.ts';

export class Journal {
  #entries: JournalEntry[] = [];
  #seq = 0;

  /** Appends an entry, assigning its sequence number and time. */
  record(entry: Omit<JournalEntry, 'seq' | 'time'>): JournalEntry {
    const full: JournalEntry = { seq: ++this.#seq, time: new Date().toISOString(), ...entry };
    this.#entries.push(full);
    return full;
  }

  list(filter: JournalFilter = {}): JournalEntry[] {
    return this.#entries.filter(
      (e) =>
        (filter.path === undefined || e.path.startsWith(filter.path)) &&
        (filter.method === undefined || e.method === filter.method.toUpperCase()) &&
        (filter.since === undefined || e.seq > filter.since),
    );
  }

  /** Empties the journal; sequence numbers keep counting so `since` stays meaningful. */
  clear(): void {
    this.#entries = [];
  }

  /** Empties the journal and restarts numbering at 1. */
  reset(): void {
    this.#entries = [];
    this.#seq = 0;
  }
}
