// The contract of a store descriptor: how the server and the CLI configure, check and open one kind of store.
import type { Store } from './store.ts';

/** A flag of `credit402 serve` that acts as one of a store's environment variables. */
export interface StoreFlag {
  /** The flag without its dashes, e.g. `redis-log-retention-seconds`; it takes a value. */
  name: string;
  /** The variable it sets, e.g. `CREDIT402_REDIS_LOG_RETENTION_SECONDS`. */
  variable: string;
  /** One line for the usage text: what the value means. */
  usage: string;
}

/** A field that only the stores declaring it take: set on another kind, the configuration is refused. */
export interface ExclusiveField {
  key: string;
  /** The variable that sets it, named in the refusal. */
  variable?: string;
}

/**
 * One kind of store, as the server's configuration and command line see it. Adding a store to `credit402 serve` and
 * `credit402 gateway` is one new descriptor in `descriptors.ts`.
 */
export interface StoreDescriptor<C extends { kind: string }> {
  /** The kind, as `store.kind` and CREDIT402_STORE name it. */
  readonly kind: C['kind'];
  /** The kind and what configures it, for `--store`'s usage text (one line). */
  readonly usage: string;
  /** Fields only this store takes (with the other stores declaring them too). */
  readonly exclusiveFields?: readonly ExclusiveField[];
  /** Flags of `credit402 serve` that set this store's variables. */
  readonly flags?: readonly StoreFlag[];
  /** The store CREDIT402_STORE=`kind` configures from its variables; `current` is the store configured so far (files). */
  fromEnv(env: NodeJS.ProcessEnv, current: unknown): C;
  /**
   * Fields the environment sets on the configured store whatever CREDIT402_STORE says (a store configured by a file
   * keeps them), unchecked: {@link exclusiveFields} refuses them on another kind.
   */
  envOverlay?(env: NodeJS.ProcessEnv): Record<string, unknown>;
  /** Checks a configured store of this kind; throws Credit402ConfigError `ERR_SERVER_CONFIG`. */
  check(store: Record<string, unknown>): void;
  /** Creates (and connects) the store, loading its driver only now: a descriptor imports no driver statically. */
  open(config: C): Promise<Store>;
}

/** The configuration type a descriptor opens. */
export type ConfigOf<D> = D extends StoreDescriptor<infer C> ? C : never;
