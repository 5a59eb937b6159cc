// Runs a Lua script by its SHA1 (EVALSHA), falling back to EVAL when the server does not hold it yet.
import { createHash } from 'node:crypto';

/** The part of a node-redis client the Redis store uses: raw commands, default type mapping. */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** A Lua script and its SHA1. */
export class LuaScript {
  readonly sha1: string;
  constructor(readonly source: string) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  /** Loads the script into the server's script cache (SCRIPT LOAD). */
  async load(client: RedisCommandClient): Promise<void> {
    await client.sendCommand(['SCRIPT', 'LOAD', this.source]);
  }

  /** EVALSHA; on NOSCRIPT (first use, restart, SCRIPT FLUSH) EVAL, which also caches the script. */
  async run(client: RedisCommandClient, keys: string[], args: string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await client.sendCommand(['EVALSHA', this.sha1, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.sendCommand(['EVAL', this.source, ...tail]);
    }
  }
}
