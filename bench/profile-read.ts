// Reads a V8 CPU profile (a file, or the main thread's in a bench profile directory) into self and inclusive time per function and per file.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readProfileRequests, type ServedRequests } from './profile-requests.ts';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A short place for a script URL: a repository path, `pkg:<name>` for a dependency, or the URL's kind. */
function fileOf(url: string): string {
  if (url === '') return '(native or VM)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = path.lastIndexOf('/node_modules/');
  if (inModules !== -1) {
    const rest = path.slice(inModules + '/node_modules/'.length).split('/');
    return `pkg:${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
}

function frameKey(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (frame.url === '') return name;
  // tsx emits each module on one line, so its line numbers carry nothing.
  return frame.lineNumber > 0 ? `${name} ${fileOf(frame.url)}:${frame.lineNumber + 1}` : `${name} ${fileOf(frame.url)}`;
}

/** A profile's times in ms: self per function, self per file or package, inclusive per function. */
export interface ProfileTimes {
  totalMs: number;
  self: Map<string, number>;
  files: Map<string, number>;
  inclusive: Map<string, number>;
}

/** Totals the samples `keep` accepts (by timestamp, monotonic µs), all of them by default. */
function summarizeProfile(profile: CpuProfile, keep: (timestampUs: number) => boolean = () => true): ProfileTimes {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let timestamp = profile.startTime;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    timestamp += delta;
    if (keep(timestamp)) selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const self = new Map<string, number>();
  const files = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, us: number): void => {
    map.set(key, (map.get(key) ?? 0) + us / 1000);
  };
  // Inclusive time counts a function once per stack, however often it recurses.
  const visit = (id: number, active: Set<string>): number => {
    const node = byId.get(id);
    if (node === undefined) return 0;
    const key = frameKey(node.callFrame);
    const own = selfUs.get(id) ?? 0;
    add(self, key, own);
    add(files, fileOf(node.callFrame.url), own);
    const outer = active.has(key);
    if (!outer) active.add(key);
    let total = own;
    for (const child of node.children ?? []) total += visit(child, active);
    if (!outer) {
      active.delete(key);
      add(inclusive, key, total);
    }
    return total;
  };
  const root = profile.nodes[0];
  const totalUs = root === undefined ? 0 : visit(root.id, new Set());
  return { totalMs: totalUs / 1000, self, files, inclusive };
}

/** A profile file, or the largest CPU.*.cpuprofile of a directory (the main thread; tsx's loader thread writes a small one). */
export function profileFile(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const profiles = readdirSync(path).filter((name) => name.endsWith('.cpuprofile')).map((name) => join(path, name));
  const largest = profiles.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (largest === undefined) throw new Error(`no .cpuprofile in ${path}`);
  return largest;
}

/** One child's profile: the file, its times, and the requests of `kind` they are per (when the bench recorded them). */
export interface ReadProfile {
  file: string;
  times: ProfileTimes;
  /** Set when requests.json names `kind`: the times then cover only that kind's measured load windows. */
  served?: ServedRequests;
}

/** Reads `path`'s profile; with the bench's requests.json, keeps only the samples inside `kind`'s load windows. */
export function readProfile(path: string, kind: string): ReadProfile {
  const file = profileFile(path);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const served = readProfileRequests(file)?.[kind];
  if (served === undefined) return { file, times: summarizeProfile(profile) };
  const inside = (us: number): boolean => served.windowsUs.some(([from, to]) => us >= from && us <= to);
  return { file, times: summarizeProfile(profile, inside), served };
}
