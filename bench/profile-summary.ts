// `tsx bench/profile-summary.ts FILE|DIR [--kind paid] [--versus FLOOR_DIR] [--top N]`: where a server's time goes, per request.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readProfile, type ReadProfile } from './profile-read.ts';

const project = (key: string): boolean => / (reference|harness|bench)\//.test(key);

function top(map: Map<string, number>, count: number, totalMs: number, requests: number | undefined, filter: (key: string) => boolean = () => true): string[] {
  return [...map.entries()]
    .filter(([key]) => filter(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => {
      const us = requests === undefined ? '' : `${((ms * 1000) / requests).toFixed(2).padStart(8)} µs/req`;
      return `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / totalMs).toFixed(1).padStart(5)}% ${us}  ${key}`;
    });
}

const busyMs = (read: ReadProfile): number => read.times.totalMs - (read.times.self.get('(idle)') ?? 0);

function header(read: ReadProfile): string {
  const { file, times, served } = read;
  const head = `# ${file}: ${times.totalMs.toFixed(0)} ms sampled, ${busyMs(read).toFixed(0)} ms not idle`;
  if (served === undefined) return `${head} (whole profile: start-up included)`;
  return `${head} in ${served.windowsUs.length} load windows, ${served.requests} requests: ${((busyMs(read) * 1000) / served.requests).toFixed(1)} µs not idle per request`;
}

/** Native entries shown beside the files in a comparison: the syscall writing responses, GC, V8's own work. */
const NATIVE = ['writev', '(garbage collector)', '(program)'];

/** Self time per file, package or native entry, µs per request, of `read` against `base` (a floor), biggest difference first. */
function versus(read: ReadProfile, base: ReadProfile, count: number): string[] {
  const perRequest = (r: ReadProfile, ms: number | undefined): number => ((ms ?? 0) * 1000) / (r.served?.requests ?? Number.NaN);
  const files = new Set([...read.times.files.keys(), ...base.times.files.keys()]);
  files.delete('(native or VM)');
  const of = (r: ReadProfile, key: string): number => perRequest(r, files.has(key) ? r.times.files.get(key) : r.times.self.get(key));
  const rows = [...files, ...NATIVE]
    .map((key) => ({ key, a: of(read, key), b: of(base, key) }))
    .sort((x, y) => y.a - y.b - (x.a - x.b))
    .slice(0, count);
  const [a, b] = [perRequest(read, busyMs(read)), perRequest(base, busyMs(base))];
  return [
    `## not idle µs per request: ${a.toFixed(1)} vs ${b.toFixed(1)} (${(a - b).toFixed(1)} more); self µs per request by file, package or native entry (other native code not shown)`,
    ...rows.map((row) => `${row.a.toFixed(2).padStart(8)} ${row.b.toFixed(2).padStart(8)} ${signed(row.a - row.b).padStart(8)}  ${row.key}`),
  ];
}

const signed = (value: number): string => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' }, kind: { type: 'string' }, versus: { type: 'string' } } });
  const count = Number(values.top ?? 25);
  const kind = values.kind ?? 'paid';
  for (const given of positionals) {
    const read = readProfile(given, kind);
    const { totalMs, self, files, inclusive } = read.times;
    const requests = read.served?.requests;
    console.log(header(read));
    if (values.versus !== undefined) {
      const base = readProfile(values.versus, kind);
      console.log(`${header(base)}\n\n${versus(read, base, count).join('\n')}\n`);
      continue;
    }
    console.log(`\n## self time by function\n${top(self, count, totalMs, requests).join('\n')}`);
    console.log(`\n## self time by file or package\n${top(files, count, totalMs, requests).join('\n')}`);
    console.log(`\n## inclusive time of project functions\n${top(inclusive, count, totalMs, requests, project).join('\n')}\n`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
