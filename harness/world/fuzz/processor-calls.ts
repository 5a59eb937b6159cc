// Ties the processor calls of a fuzz run to the generated values that were in flight when the processor answered them.
import { describePayment } from '../base64-json.ts';
import type { Exchange } from '../exchange.ts';
import type { JournalEntry } from '../journal-queries.ts';

/** A generated value as sent. */
export interface SentValue {
  index: number;
  value: string;
  exchange: Exchange;
}

/** A processor call tied to a value; `suspects` counts the values it could equally come from (1: certain). */
export interface ProcessorCall {
  entry: JournalEntry;
  suspects: number;
  /** Made when the value was sent again alone, to tell it from the values in flight with it. */
  resent?: boolean;
}

/** What {@link attributeCalls} found. */
export interface Attribution {
  /** Value index → the calls that may be its own. */
  byIndex: Map<number, ProcessorCall[]>;
  /** Calls answered while no value was in flight (made after the target answered, or by someone else). */
  unattributed: JournalEntry[];
}

const IDS = /\b(?:pm|cus|pi)_[A-Za-z0-9]+/g;

/**
 * For each call, the values whose request was in flight when the processor answered it (± `slackMs`), narrowed to
 * those that name one of the call's ids (the card's payment method…) when any does.
 */
export function attributeCalls(calls: readonly JournalEntry[], sent: readonly SentValue[], slackMs = 5): Attribution {
  const byIndex = new Map<number, ProcessorCall[]>();
  const unattributed: JournalEntry[] = [];
  for (const entry of calls) {
    const at = Date.parse(entry.time);
    const inFlight = sent.filter(({ exchange }) => {
      const start = Date.parse(exchange.startedAt);
      return at >= start - slackMs && at <= start + exchange.durationMs + slackMs;
    });
    const ids = JSON.stringify([entry.path, entry.params]).match(IDS) ?? [];
    const naming = inFlight.filter(({ value }) => ids.some((id) => value.includes(id) || describePayment(value).includes(id)));
    const suspects = naming.length > 0 ? naming : inFlight;
    if (suspects.length === 0) unattributed.push(entry);
    for (const { index } of suspects) byIndex.set(index, [...(byIndex.get(index) ?? []), { entry, suspects: suspects.length }]);
  }
  return { byIndex, unattributed };
}
