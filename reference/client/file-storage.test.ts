// FileClientIdStorage: round trip, sharing between instances, private file mode, and refusal of a foreign file.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileClientIdStorage } from './file-storage.ts';

describe('FileClientIdStorage', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'credit402-client-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('round-trips clientIds per origin through a private JSON file, creating folders', async () => {
    const path = join(dir, 'nested', 'ids.json');
    const storage = new FileClientIdStorage(path);
    expect(await storage.get('http://a.test')).toBeUndefined();
    await Promise.all([storage.set('http://a.test', 'a'.repeat(64)), storage.set('http://b.test', 'b'.repeat(64))]);
    expect(await new FileClientIdStorage(path).get('http://a.test')).toBe('a'.repeat(64));
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'http://a.test': 'a'.repeat(64), 'http://b.test': 'b'.repeat(64) });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('replaces the clientId of an origin', async () => {
    const storage = new FileClientIdStorage(join(dir, 'ids.json'));
    await storage.set('http://a.test', 'a'.repeat(64));
    await storage.set('http://a.test', 'c'.repeat(64));
    expect(await storage.get('http://a.test')).toBe('c'.repeat(64));
  });

  it('refuses a file that is not an object of strings, and leaves it alone', async () => {
    const path = join(dir, 'ids.json');
    await writeFile(path, '["not", "ids"]');
    const storage = new FileClientIdStorage(path);
    await expect(storage.get('http://a.test')).rejects.toThrow(/JSON object/);
    await expect(storage.set('http://a.test', 'a'.repeat(64))).rejects.toThrow(/JSON object/);
    expect(await readFile(path, 'utf8')).toBe('["not", "ids"]');
  });
});
