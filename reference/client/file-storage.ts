// ClientId storage in a JSON file (origin → clientId), for CLIs: private mode, atomic replace, writes serialised.
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ClientIdStorage } from './storage.ts';

type Entries = Record<string, string>;

function parse(path: string, text: string): Entries {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`FileClientIdStorage: ${path} must hold a JSON object of origin → clientId`);
  }
  const entries: Entries = {};
  for (const [origin, clientId] of Object.entries(value)) {
    if (typeof clientId !== 'string') throw new Error(`FileClientIdStorage: ${path}: the clientId of ${origin} is not a string`);
    entries[origin] = clientId;
  }
  return entries;
}

/** Stores clientIds in a JSON file created with mode 0600; the file is read on every `get`, so processes share it. */
export class FileClientIdStorage implements ClientIdStorage {
  readonly path: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  async #read(): Promise<Entries> {
    try {
      return parse(this.path, await readFile(this.path, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  }

  async get(origin: string): Promise<string | undefined> {
    await this.#queue;
    return (await this.#read())[origin];
  }

  set(origin: string, clientId: string): Promise<void> {
    const write = this.#queue.then(async () => {
      const entries = { ...(await this.#read()), [origin]: clientId };
      await mkdir(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, this.path);
    });
    this.#queue = write.catch(() => undefined);
    return write;
  }
}
