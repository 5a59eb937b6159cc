// Tests of Redis Cluster provisioning: node lists, and a missing cluster explained (starting one is exercised by redis-cluster-store.test.ts).
import { describe, expect, it } from 'vitest';
import { parseClusterNodes, provisionRedisCluster, rootNodesOf } from './redis-cluster.ts';

describe('provisionRedisCluster', () => {
  it('reads host:port lists, with or without redis://', () => {
    expect(parseClusterNodes(' 127.0.0.1:7000,redis://127.0.0.1:7001/ ,, ')).toEqual(['127.0.0.1:7000', '127.0.0.1:7001']);
    expect(rootNodesOf(['127.0.0.1:7000'])).toEqual([{ url: 'redis://127.0.0.1:7000' }]);
  });

  it('names the two ways to provide a cluster when there is none', async () => {
    await expect(provisionRedisCluster({ PATH: '/nonexistent' })).rejects.toThrow(/set REDIS_CLUSTER_NODES[\s\S]*redis-server and redis-cli on PATH/);
  });
});
