// Reads the Redis server's CPU time (INFO cpu), to charge a run's Redis work per request; other clients add noise.
import { createClient } from 'redis';
import { redisUrlFromEnv } from 'credit402-tooling/testing/redis';

/** An open connection that reads Redis's used CPU (user + system) in microseconds. */
export interface RedisCpuProbe {
  read(): Promise<number>;
  close(): void;
}

function field(info: string, name: string): number {
  const match = new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info);
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

/** Connects to the bench's Redis. */
export async function openRedisCpuProbe(): Promise<RedisCpuProbe> {
  const client = createClient({ url: redisUrlFromEnv() });
  client.on('error', () => {});
  await client.connect();
  return {
    async read() {
      const info = await client.info('cpu');
      return Math.round((field(info, 'used_cpu_user') + field(info, 'used_cpu_sys')) * 1e6);
    },
    close: () => client.destroy(),
  };
}
