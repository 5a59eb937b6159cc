// The Redis floor's store: the `redis` package and one EVALSHA (GET, check, DECRBY) per paid request.
import { createClient } from 'redis';
import type { FloorBalances } from './balances.ts';

const DEDUCT = `local balance = redis.call('GET', KEYS[1])
if not balance or tonumber(balance) < tonumber(ARGV[1]) then return -1 end
return redis.call('DECRBY', KEYS[1], ARGV[1])`;

/** Balances as Redis strings `<keyPrefix>balance:<clientId>`, on one connection. */
export async function redisBalances(url: string, keyPrefix: string): Promise<FloorBalances> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  const sha = await client.scriptLoad(DEDUCT);
  const key = (clientId: string): string => `${keyPrefix}balance:${clientId}`;
  return {
    async deduct(clientId, amount) {
      const balance = Number(await client.evalSha(sha, { keys: [key(clientId)], arguments: [String(amount)] }));
      return balance < 0 ? null : balance;
    },
    fund: async (clientId, balance) => void (await client.set(key(clientId), String(balance))),
    close: async () => void client.destroy(),
  };
}
