// Beside a child's CPU profiles: the requests it served per kind and when (monotonic µs), so profile-summary.ts gives µs per request.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { RunResult } from './rounds.ts';

const FILE = 'requests.json';

/** The measured runs of one kind of request a child served: how many, and the load windows (warm-ups excluded). */
export interface ServedRequests {
  requests: number;
  windowsUs: Array<[number, number]>;
}

/** Writes `<dir>/<label>/requests.json` (the directory cpuProfFlags made) when profiling; a no-op otherwise. */
export function writeProfileRequests(dir: string | undefined, label: string, kinds: Record<string, RunResult[] | undefined>): void {
  if (dir === undefined) return;
  const served: Record<string, ServedRequests> = {};
  for (const [kind, runs] of Object.entries(kinds)) {
    if (runs === undefined || runs.length === 0) continue;
    served[kind] = { requests: runs.reduce((sum, run) => sum + run.ok + run.non2xx, 0), windowsUs: runs.map((run) => run.windowUs) };
  }
  writeFileSync(join(resolve(dir, label), FILE), `${JSON.stringify(served, null, 2)}\n`);
}

/** What the child whose profile is `profilePath` served, by kind, when the bench recorded it. */
export function readProfileRequests(profilePath: string): Record<string, ServedRequests> | undefined {
  const path = join(dirname(profilePath), FILE);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, ServedRequests>) : undefined;
}
