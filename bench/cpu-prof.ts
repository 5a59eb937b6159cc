// The node flags that profile one bench child with --cpu-prof, into a directory of its own.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

/** `--cpu-prof` flags writing into `<dir>/<label>/` (created), or none when `dir` is undefined. */
export function cpuProfFlags(dir: string | undefined, label: string): string[] {
  if (dir === undefined) return [];
  // One directory per child: every thread (tsx's loader thread too) writes its own CPU.*.cpuprofile there.
  const target = resolve(dir, label);
  mkdirSync(target, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${target}`];
}
