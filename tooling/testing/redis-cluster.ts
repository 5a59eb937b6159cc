// Test helper: a Redis Cluster for a test run (REDIS_CLUSTER_NODES, else three masters started from PATH on free loopback ports) and a per-run key prefix removed after.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, createCluster } from 'redis';
import { freePort } from 'credit402-stripe-emulator/free-port';
import { onPath } from './redis.ts';

/** The Redis Cluster a run uses. */
export interface RunRedisCluster {
  /** `host:port` of every master (or of the nodes REDIS_CLUSTER_NODES names). */
  nodes: string[];
  /** The nodes as node-redis `rootNodes`. */
  rootNodes: Array<{ url: string }>;
  /** Every key the run writes starts with this (no braces: the store's hash tags follow it). */
  keyPrefix: string;
  /** Where it came from, for a start-up line. */
  source: string;
  /** Removes the run's keys, then stops the nodes started for the run and removes their directory. */
  release(): Promise<void>;
}

const MASTERS = 3;
/** A node's cluster bus listens on its port + 10000, which must be a valid, free port as well. */
const BUS_OFFSET = 10_000;

/** `host:port` entries of a comma-separated list (REDIS_CLUSTER_NODES, CREDIT402_REDIS_CLUSTER); `redis://` URLs are accepted. */
export function parseClusterNodes(list: string): string[] {
  return list.split(',').map((entry) => entry.trim().replace(/^rediss?:\/\//, '').replace(/\/$/, '')).filter(Boolean);
}

/** The nodes as node-redis root nodes. */
export function rootNodesOf(nodes: readonly string[]): Array<{ url: string }> {
  return nodes.map((node) => ({ url: `redis://${node}` }));
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free port whose bus port (+10000) is free too. */
async function freeNodePort(taken: ReadonlySet<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = await freePort();
    if (port + BUS_OFFSET <= 65_535 && !taken.has(port) && !taken.has(port + BUS_OFFSET) && (await portIsFree(port + BUS_OFFSET))) return port;
  }
  throw new Error('no free port pair (port, port + 10000) for a cluster node');
}

/** Runs a command to its end; rejects with its output when it fails. */
function runToEnd(binary: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${binary} ${args.join(' ')} exited with ${code}:\n${output.slice(-2000)}`));
    });
  });
}

/** Resolves when every node reports `cluster_state:ok`; rejects after `timeoutMs`. */
async function waitForClusterOk(nodes: readonly string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    const states = await Promise.all(nodes.map(async (node) => {
      const client = createClient({ url: `redis://${node}`, socket: { connectTimeout: 1000, reconnectStrategy: false } });
      client.on('error', () => {});
      try {
        await client.connect();
        const info = String(await client.sendCommand(['CLUSTER', 'INFO']));
        return /cluster_state:ok/.test(info) ? 'ok' : `${node} not ok yet`;
      } catch (error) {
        return `${node}: ${(error as Error).message}`;
      } finally {
        client.destroy();
      }
    }));
    last = states.filter((state) => state !== 'ok').join('; ');
    if (last === '') return;
    await sleep(100);
  }
  throw new Error(`the cluster did not reach cluster_state:ok in ${timeoutMs} ms: ${last}`);
}

/** A started node: its process, the tail of its output and how to stop it. */
interface StartedNode {
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

function startNode(binary: string, port: number, dir: string): StartedNode {
  const child = spawn(binary, [
    '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
    '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--cluster-node-timeout', '5000',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-2000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    port,
    child,
    output: () => output,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resolves when every started node answers PING. */
async function waitForPing(nodes: readonly StartedNode[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const node of nodes) {
    for (;;) {
      if (node.child.exitCode !== null) throw new Error(`redis-server on port ${node.port} exited with ${node.child.exitCode}`);
      const client = createClient({ url: `redis://127.0.0.1:${node.port}`, socket: { connectTimeout: 1000, reconnectStrategy: false } });
      client.on('error', () => {});
      try {
        await client.connect();
        await client.ping();
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`redis-server on port ${node.port} does not answer: ${(error as Error).message}`);
        await sleep(50);
      } finally {
        client.destroy();
      }
    }
  }
}

/** Starts three masters on free loopback ports in a temporary directory and joins them into one cluster. */
async function startCluster(binary: string, cli: string): Promise<{ nodes: string[]; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'credit402-redis-cluster-'));
  const started: StartedNode[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const taken = new Set<number>();
    for (let i = 0; i < MASTERS; i++) {
      const port = await freeNodePort(taken);
      taken.add(port).add(port + BUS_OFFSET);
      started.push(startNode(binary, port, dir));
    }
    const nodes = started.map((node) => `127.0.0.1:${node.port}`);
    await waitForPing(started, 10_000);
    await runToEnd(cli, ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], 30_000);
    await waitForClusterOk(nodes, 20_000);
    return { nodes, stop };
  } catch (error) {
    const outputs = started.map((node) => `--- 127.0.0.1:${node.port}:\n${node.output()}`).join('\n');
    await stop();
    throw new Error(`could not start a Redis Cluster: ${(error as Error).message}\n${outputs}`, { cause: error });
  }
}

/** Deletes every key starting with `prefix` on every master of the cluster at `rootNodes`; returns how many were removed. */
export async function deleteClusterKeys(rootNodes: Array<{ url: string }>, prefix: string): Promise<number> {
  const cluster = createCluster({ rootNodes, defaults: { socket: { reconnectStrategy: false } } });
  cluster.on('error', () => {});
  await cluster.connect();
  try {
    let removed = 0;
    for (const master of cluster.masters) {
      const node = await cluster.nodeClient(master);
      for await (const keys of node.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
        // One UNLINK per key: a batch may span slots, which a cluster node refuses.
        for (const key of keys) removed += await node.unlink(key);
      }
    }
    return removed;
  } finally {
    cluster.destroy();
  }
}

/**
 * Provides a Redis Cluster for a run with a fresh key prefix: the cluster REDIS_CLUSTER_NODES names (`host:port,…`),
 * else three masters started from a redis-server and redis-cli on PATH. `release()` removes the run's keys and stops
 * what was started.
 */
export async function provisionRedisCluster(env: NodeJS.ProcessEnv = process.env): Promise<RunRedisCluster> {
  const keyPrefix = `credit402-test:${randomBytes(6).toString('hex')}:`;
  if (env.REDIS_CLUSTER_NODES) {
    const nodes = parseClusterNodes(env.REDIS_CLUSTER_NODES);
    await waitForClusterOk(nodes, 5000);
    const rootNodes = rootNodesOf(nodes);
    return { nodes, rootNodes, keyPrefix, source: 'REDIS_CLUSTER_NODES', release: async () => void (await deleteClusterKeys(rootNodes, keyPrefix)) };
  }
  const binary = onPath('redis-server', env.PATH ?? '');
  const cli = onPath('redis-cli', env.PATH ?? '');
  if (!binary || !cli) {
    throw new Error(
      'the Redis Cluster tests need a cluster, and none is available:\n' +
        '  1. set REDIS_CLUSTER_NODES (e.g. 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002) to a running cluster, or\n' +
        '  2. put redis-server and redis-cli on PATH (e.g. apt-get install redis-server): three masters are started for the run.',
    );
  }
  const cluster = await startCluster(binary, cli);
  return {
    nodes: cluster.nodes,
    rootNodes: rootNodesOf(cluster.nodes),
    keyPrefix,
    source: `three masters of ${binary}, started for this run`,
    release: () => cluster.stop(),
  };
}
