// The floors the bench runs beside the reference servers, and which configuration each one is the yardstick of.
import type { BenchConfig } from '../options.ts';

/** One floor: bare framework + one store operation per paid request. */
export interface FloorDef {
  /** `floor-<framework>-<store>`. */
  name: string;
  framework: 'fastify' | 'express';
  store: BenchConfig['store'];
}

/** Bare Fastify on every store, and bare Express on memory (Express's own cost). */
export const FLOORS: readonly FloorDef[] = [
  { name: 'floor-fastify-memory', framework: 'fastify', store: 'memory' },
  { name: 'floor-express-memory', framework: 'express', store: 'memory' },
  { name: 'floor-fastify-sqlite', framework: 'fastify', store: 'sqlite' },
  { name: 'floor-fastify-redis', framework: 'fastify', store: 'redis' },
  { name: 'floor-fastify-postgres', framework: 'fastify', store: 'postgres' },
];

/** The floor `config` is compared with (same framework and store), if the bench has one. */
export function floorOf(config: BenchConfig): FloorDef | undefined {
  return FLOORS.find((floor) => floor.framework === config.framework && floor.store === config.store);
}
