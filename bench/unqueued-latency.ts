// p99 without a queue: a server and its floor each loaded by one connection, one request at a time, in interleaved rounds.
import { pairedRatio, runRounds, summarize, type Leg, type RouteSummary } from './rounds.ts';

/**
 * Why one connection: under the bench's closed loop of 50 connections at saturation, latency is the connections over
 * the throughput (Little's law), so the p99 ratio there repeats the req/s ratio. autocannon's fixed rate
 * (`overallRate`) sends each second's quota in a burst at the start of the second, which queues as well. One
 * connection never queues at the server: its p99 is each request's own latency, the wire and the load generator included.
 */
export const UNQUEUED_CONNECTIONS = 1;

/** A server against its floor, one request at a time. */
export interface UnqueuedComparison {
  server: RouteSummary;
  floor: RouteSummary;
  /** Median over the repetitions of the server's p99 / the floor's p99 of the same repetition. */
  p99Ratio: number;
}

/** Loads `server` and `floor` (legs already warmed up) with one connection each, `repetitions` interleaved rounds. */
export async function measureUnqueued(
  server: Leg,
  floor: Leg,
  options: { repetitions: number; label: string; log(line: string): void },
): Promise<UnqueuedComparison> {
  const alone = (leg: Leg): Leg => ({ ...leg, name: `${leg.name}, one connection`, load: { ...leg.load, connections: UNQUEUED_CONNECTIONS } });
  const legs = [alone(server), alone(floor)];
  const runs = await runRounds(legs, { repetitions: options.repetitions, warmup: 0, label: `${options.label} (unqueued)`, log: options.log });
  const [serverRuns = [], floorRuns = []] = legs.map((leg) => runs.get(leg.name) ?? []);
  return { server: summarize(serverRuns), floor: summarize(floorRuns), p99Ratio: pairedRatio(serverRuns, floorRuns, (run) => run.p99) };
}
