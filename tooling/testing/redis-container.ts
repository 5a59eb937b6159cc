// Test helper: Redis in a Docker container through testcontainers, loaded only when needed (it is not a dependency).

/** A started Redis container. */
interface RedisContainer {
  url: string;
  stop(): Promise<void>;
}

/** The part of the testcontainers API used here. */
interface Testcontainers {
  GenericContainer: new (image: string) => {
    withExposedPorts(...ports: number[]): {
      start(): Promise<{ getHost(): string; getMappedPort(port: number): number; stop(): Promise<unknown> }>;
    };
  };
}

const MODULE = 'testcontainers';

/** Starts redis:7-alpine; rejects with a clear message when the package or a Docker engine is missing. */
export async function startRedisContainer(): Promise<RedisContainer> {
  let testcontainers: Testcontainers;
  try {
    testcontainers = (await import(MODULE)) as Testcontainers;
  } catch {
    throw new Error('the testcontainers package is not installed');
  }
  try {
    const container = await new testcontainers.GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
    return {
      url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
      stop: async () => {
        await container.stop();
      },
    };
  } catch (error) {
    throw new Error(`no Docker engine answered (${(error as Error).message})`);
  }
}
