// What a target declares about itself: service-defined values, the robustness profile, optional capabilities.

/**
 * Optional capabilities: `storeFaults` and `records`, offered through conformance-only control routes; `gateway`, a
 * gateway (spec §15) that runs in front of the kit's controlled upstream (`CREDIT402_UPSTREAM_URL`); `spending-limit`,
 * a client (spec §16, the client mode) that offers its caller a limit on what it pays (CR-16.11).
 */
const CAPABILITIES = ['storeFaults', 'records', 'gateway', 'spending-limit'] as const;

/** The capabilities a client's driver may declare (the client mode); the others are servers'. */
export const CLIENT_CAPABILITIES: readonly Capability[] = ['spending-limit'];

/** One optional capability. */
export type Capability = (typeof CAPABILITIES)[number];

/** The scenario tag that says a scenario needs a capability. */
const CAPABILITY_TAGS: Readonly<Record<string, Capability>> = {
  '@store-faults': 'storeFaults',
  '@records': 'records',
  '@gateway': 'gateway',
  '@spending-limit': 'spending-limit',
};

/** The capabilities a scenario's tags require. */
export function requiredCapabilities(tags: readonly string[]): Capability[] {
  return tags.map((tag) => CAPABILITY_TAGS[tag]).filter((capability): capability is Capability => capability !== undefined);
}

/** A target's declarations (`--declare key=value`, or a JSON file with the same keys). */
export interface Declarations {
  /** What the implementation is called in the reports (the column of `compare`); it changes nothing the kit judges. */
  name?: string;
  /** The service name in its PaymentIntent descriptions (seed: service-defined; profile default `credit402`). */
  serviceName?: string;
  /** The customer metadata key that holds the clientId (seed: service-defined; profile default `credit402_client_id`). */
  customerMetadataKey?: string;
  /** Whether it implements the robustness profile (spec §14). */
  robustness?: boolean;
  capabilities?: Capability[];
  /**
   * Whether it gives a failed handler's price back (the reference's `refundOnHandlerError`), which conformance runs keep
   * off (CR-13.27): `history` then expects each such price back once, unless its request id's repeat came first (CR-6.9).
   */
  refundOnHandlerError?: boolean;
}

const KEYS = ['name', 'serviceName', 'customerMetadataKey', 'robustness', 'capabilities', 'refundOnHandlerError'] as const;

/** A mistake in the declarations; the message names the key. */
export class DeclarationError extends Error {
  override name = 'DeclarationError';
}

function text(key: string, value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(value)) {
    throw new DeclarationError(`${key} must be 1 to 64 characters of A-Z a-z 0-9 _ . -; got ${JSON.stringify(value)}`);
  }
  return value;
}

function flag(key: string, value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new DeclarationError(`${key} must be true or false; got ${JSON.stringify(value)}`);
}

function capabilities(value: unknown): Capability[] {
  const list = typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;
  if (!Array.isArray(list)) throw new DeclarationError(`capabilities must be a list of ${CAPABILITIES.join(', ')}`);
  return list.map((item: unknown) => {
    if (!(CAPABILITIES as readonly unknown[]).includes(item)) {
      throw new DeclarationError(`unknown capability ${JSON.stringify(item)}; known: ${CAPABILITIES.join(', ')}`);
    }
    return item as Capability;
  });
}

/** Validates declarations from a JSON object (values of `--declare` are strings and are accepted too). */
export function parseDeclarations(value: unknown): Declarations {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DeclarationError('declarations must be a JSON object');
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !(KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) throw new DeclarationError(`unknown declaration ${unknown.join(', ')}; known: ${KEYS.join(', ')}`);
  return {
    ...(record.name !== undefined ? { name: text('name', record.name) } : {}),
    ...(record.serviceName !== undefined ? { serviceName: text('serviceName', record.serviceName) } : {}),
    ...(record.customerMetadataKey !== undefined ? { customerMetadataKey: text('customerMetadataKey', record.customerMetadataKey) } : {}),
    ...(record.robustness !== undefined ? { robustness: flag('robustness', record.robustness) } : {}),
    ...(record.capabilities !== undefined ? { capabilities: capabilities(record.capabilities) } : {}),
    ...(record.refundOnHandlerError !== undefined ? { refundOnHandlerError: flag('refundOnHandlerError', record.refundOnHandlerError) } : {}),
  };
}

/** Parses `key=value` items of `--declare`. */
export function parseDeclareItems(items: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf('=');
    if (at < 1) throw new DeclarationError(`--declare takes key=value; got ${JSON.stringify(item)}`);
    record[item.slice(0, at)] = item.slice(at + 1);
  }
  return record;
}
