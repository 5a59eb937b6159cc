// The world parameters the runner passes to cucumber-js, and the conformance profile they point to.
import { readFileSync } from 'node:fs';
import { parseDeclarations, type Declarations } from './declarations.ts';
import { isLevel, type Level } from './levels.ts';

/** What the runner must pass as cucumber `worldParameters`. */
export interface WorldParameters {
  /** Base URL of the target under test, e.g. `http://127.0.0.1:4021`. */
  targetUrl: string;
  /** Base URL of the Stripe emulator the target talks to, e.g. `http://127.0.0.1:12111`. */
  emulatorUrl: string;
  /** Path of the conformance profile JSON the target was started with. */
  profilePath: string;
  /** Optional (number or decimal string): per-request timeout towards the target in ms (default 15000). */
  requestTimeoutMs?: number;
  /** Optional: seed of the `@fuzz` scenario (default 402). */
  fuzzSeed?: number;
  /** Optional: number of generated header values in the `@fuzz` scenario (default 1000). */
  fuzzRuns?: number;
  /** Optional: the highest level judged (default strict). */
  level?: Level;
  /** Optional: the target's declarations, as an object or its JSON text. */
  declarations?: Declarations;
}

/** One gated route of the profile, as configured (defaults not applied). */
interface ProfileRoute {
  amount: number;
  currency?: string;
  minTopUp?: number;
  maxTopUp?: number;
  description?: string;
}

/** The conformance profile (`harness/conformance-profile.json`). */
export interface Profile {
  routes: Record<string, ProfileRoute>;
  freeRoutes: string[];
  stripeSecretKey: string;
  stripePublishableKey: string;
  serverSecret: string;
  serviceName?: string;
  customerMetadataKey?: string;
  /** Robustness profile (§14): the webhook endpoint's signing secret and path. */
  stripeWebhookSecret?: string;
  webhookPath?: string;
  /** The free route that answers how often each request's handler ran (default `/_conformance/handled`). */
  handledPath?: string;
  /**
   * Routes (keys of `routes`) whose handler fails (CR-4.7, CR-13.27): `answer500` answers status 500 with its route's
   * body, `throw` throws, so that the target's framework answers.
   */
  failingHandlers?: Record<string, HandlerFailure>;
  /** The longest a target may hold a gated request whose store call does not answer, in ms (CR-8.12; default 3000). */
  maxStoreWaitMs?: number;
}

/** How a profile handler fails (`failingHandlers`). */
export type HandlerFailure = 'answer500' | 'throw';

/** The default of the profile's `maxStoreWaitMs`. */
export const DEFAULT_MAX_STORE_WAIT_MS = 3_000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks the runner's world parameters; throws a message naming what is missing. */
export function checkParameters(value: unknown): WorldParameters {
  if (!isObject(value)) throw new Error('worldParameters must be an object { targetUrl, emulatorUrl, profilePath }');
  for (const name of ['targetUrl', 'emulatorUrl', 'profilePath'] as const) {
    if (typeof value[name] !== 'string' || value[name] === '') throw new Error(`worldParameters.${name} must be a non-empty string`);
  }
  const parameters = { ...value } as Record<string, unknown>;
  for (const name of ['requestTimeoutMs', 'fuzzSeed', 'fuzzRuns'] as const) {
    if (value[name] === undefined) continue;
    const number = typeof value[name] === 'string' ? Number(value[name]) : value[name];
    if (!Number.isSafeInteger(number)) throw new Error(`worldParameters.${name} must be an integer, got ${String(value[name])}`);
    parameters[name] = number;
  }
  if (value.level !== undefined && !isLevel(value.level)) throw new Error(`worldParameters.level must be wire, strict or robust, got ${String(value.level)}`);
  if (value.declarations !== undefined) {
    parameters.declarations = parseDeclarations(typeof value.declarations === 'string' ? JSON.parse(value.declarations) : value.declarations);
  }
  return parameters as unknown as WorldParameters;
}

const cache = new Map<string, Profile>();

/** Reads (once per process) the profile at `path`. */
export function loadProfile(path: string): Profile {
  const cached = cache.get(path);
  if (cached) return cached;
  const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isObject(value) || !isObject(value.routes)) throw new Error(`${path} is not a conformance profile (no routes)`);
  for (const name of ['stripeSecretKey', 'stripePublishableKey', 'serverSecret'] as const) {
    if (typeof value[name] !== 'string') throw new Error(`${path}: ${name} must be a string`);
  }
  const profile = { freeRoutes: [], ...value } as unknown as Profile;
  cache.set(path, profile);
  return profile;
}
