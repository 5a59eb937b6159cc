// `tsx bench/profile-summary.ts FILE.cpuprofile [--top N]`: self and inclusive time per function, self time per file.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

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

/** Self time per function, self time per file and inclusive time per function, all in ms. */
function summarizeProfile(profile: CpuProfile): { totalMs: number; self: Map<string, number>; files: Map<string, number>; inclusive: Map<string, number> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
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

function top(map: Map<string, number>, count: number, totalMs: number, filter: (key: string) => boolean = () => true): string[] {
  return [...map.entries()]
    .filter(([key]) => filter(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / totalMs).toFixed(1).padStart(5)}%  ${key}`);
}

function main(): void {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string' } } });
  const count = Number(values.top ?? 25);
  for (const file of positionals) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const { totalMs, self, files, inclusive } = summarizeProfile(profile);
    const busy = totalMs - (self.get('(idle)') ?? 0);
    const project = (key: string): boolean => / (reference|harness|bench)\//.test(key);
    console.log(`# ${file}: ${totalMs.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms not idle`);
    console.log(`\n## self time by function\n${top(self, count, totalMs).join('\n')}`);
    console.log(`\n## self time by file or package\n${top(files, count, totalMs).join('\n')}`);
    console.log(`\n## inclusive time of project functions\n${top(inclusive, count, totalMs, project).join('\n')}\n`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
