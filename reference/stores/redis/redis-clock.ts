// The Redis server's clock (TIME, the lowest over a cluster's nodes) as a ServerClock, so that a deduction's deadline can be checked by the script itself.
import type { RedisConnection } from './redis-lua.ts';
import { ServerClock } from '../server-clock.ts';

/** The server time of a TIME reply, in ms. */
function timeOf(reply: unknown): number {
  const [seconds, micros] = Array.isArray(reply) ? reply.map((part) => Number(String(part))) : [];
  if (!Number.isSafeInteger(seconds) || !Number.isSafeInteger(micros)) throw new TypeError(`unexpected Redis reply for TIME: ${String(reply)}`);
  return (seconds as number) * 1000 + (micros as number) / 1000;
}

/**
 * One lower bound of (server time − performance.now()) per node; the lowest over the nodes of a cluster, so that a
 * deadline is early rather than late on every node.
 */
async function measure(connection: RedisConnection): Promise<number> {
  const bounds = await connection.onEveryNode(async (send) => {
    const reply = await send(['TIME']);
    return timeOf(reply) - performance.now();
  });
  return Math.min(...bounds);
}

/** The clock of the Redis server (or cluster) behind `connection`; scripts compare deadlines with TIME. */
export function redisClock(connection: RedisConnection): ServerClock {
  return new ServerClock(() => measure(connection));
}
