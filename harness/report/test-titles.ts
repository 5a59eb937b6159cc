// Finds requirement IDs named in the titles of vitest tests (`it('CR-11.2 never overdraws', …)`).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A test title that names at least one requirement ID. */
export interface TestTitle {
  file: string;
  title: string;
  ids: string[];
}

const TITLE = /\b(?:it|test|describe)(?:\.[A-Za-z]+)*\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;
const ID = /CR-\d+\.\d+/g;

/** The titles in one test source that name requirement IDs. */
export function titlesNamingIds(source: string, file: string): TestTitle[] {
  const titles: TestTitle[] = [];
  for (const [, , title = ''] of source.matchAll(TITLE)) {
    const ids = title.match(ID);
    if (ids) titles.push({ file, title, ids: [...new Set(ids)] });
  }
  return titles;
}

/** Test titles naming IDs in every TypeScript file under `dirs` that imports vitest (test files and shared suites). */
export function readTestTitles(dirs: readonly string[], root: string): TestTitle[] {
  return dirs.flatMap((dir) => {
    let files: string[];
    try {
      files = readdirSync(dir, { recursive: true, encoding: 'utf8' });
    } catch {
      return [];
    }
    return files
      .filter((file) => file.endsWith('.ts') && !file.split(/[\\/]/).includes('node_modules'))
      .sort()
      .flatMap((file) => {
        const source = readFileSync(join(dir, file), 'utf8');
        return /from ['"]vitest['"]/.test(source) ? titlesNamingIds(source, relative(root, join(dir, file))) : [];
      });
  });
}
