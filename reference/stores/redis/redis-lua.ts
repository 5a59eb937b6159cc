// How the Redis store talks to a server or a cluster, and runs a Lua script by its SHA1 (EVALSHA), falling back to EVAL when the node does not hold it yet.
import { createHash } from 'node:crypto';

/** The part of a node-redis client the Redis store uses: raw commands, default type mapping. */
export interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * The part of a node-redis cluster client (`createCluster`) the Redis store uses: commands routed by their first
 * key, and the masters, to load the scripts on each.
 */
export interface RedisClusterCommandClient {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  readonly masters: readonly object[];
  nodeClient(node: never): Promise<RedisCommandClient>;
}

/** True for a node-redis cluster client (it has `masters` and `nodeClient`), false for a client of one server. */
export function isClusterClient(client: RedisCommandClient | RedisClusterCommandClient): client is RedisClusterCommandClient {
  return 'masters' in client && typeof (client as Partial<RedisClusterCommandClient>).nodeClient === 'function';
}

/** How the store sends commands: to its one server, or on a cluster to the master of a key's hash slot. */
export interface RedisConnection {
  /** True on a Redis Cluster: every command and script may only touch keys of one hash slot. */
  readonly cluster: boolean;
  /** Sends one command; `key` is its first key (on a cluster its slot picks the node), undefined when it has none. */
  send(key: string | undefined, args: string[]): Promise<unknown>;
  /** Loads a script into the script cache of the server, or of every master of a cluster (SCRIPT LOAD). */
  loadScript(source: string): Promise<void>;
  /** Runs `run` once per node (the server, or every master of a cluster), with a way to send that node commands. */
  onEveryNode<T>(run: (send: (args: string[]) => Promise<unknown>) => Promise<T>): Promise<T[]>;
}

/** The connection of a client of one server, or of a node-redis cluster client. */
export function connectionOf(client: RedisCommandClient | RedisClusterCommandClient): RedisConnection {
  if (!isClusterClient(client)) {
    return {
      cluster: false,
      send: (_key, args) => client.sendCommand(args),
      loadScript: async (source) => void (await client.sendCommand(['SCRIPT', 'LOAD', source])),
      onEveryNode: async (run) => [await run((args) => client.sendCommand(args))],
    };
  }
  return {
    cluster: true,
    send: (key, args) => client.sendCommand(key, false, args),
    async loadScript(source) {
      // Masters added later (failover, resharding) and flushed caches get the script through the EVAL fallback.
      await Promise.all(client.masters.map(async (master) => (await client.nodeClient(master as never)).sendCommand(['SCRIPT', 'LOAD', source])));
    },
    onEveryNode: (run) =>
      Promise.all(client.masters.map(async (master) => {
        const node = await client.nodeClient(master as never);
        return run((args) => node.sendCommand(args));
      })),
  };
}

/** A Lua script and its SHA1. */
export class LuaScript {
  readonly sha1: string;
  constructor(readonly source: string) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  /**
   * EVALSHA; on NOSCRIPT (first use, restart, SCRIPT FLUSH, a new master) EVAL, which also caches the script. Both
   * go to the node of the first key's slot: on a cluster every key of `keys` must lie in that slot.
   */
  async run(connection: RedisConnection, keys: string[], args: string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await connection.send(keys[0], ['EVALSHA', this.sha1, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return connection.send(keys[0], ['EVAL', this.source, ...tail]);
    }
  }
}
