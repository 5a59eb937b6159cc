// The conformance profile: where it lives, reading it, and the text `credit402-conformance profile` shows.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Absolute path of harness/conformance-profile.json. */
export const PROFILE_PATH = fileURLToPath(new URL('../conformance-profile.json', import.meta.url));

/** The fields of the profile the runner itself uses. */
export interface ConformanceProfile {
  /** The emulator's fixed address every target is pointed at, e.g. http://127.0.0.1:12111. */
  stripeApi: string;
  [field: string]: unknown;
}

/** Reads and minimally checks a profile file. */
export function readProfile(path: string = PROFILE_PATH): ConformanceProfile {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  if (typeof profile !== 'object' || profile === null || typeof (profile as { stripeApi?: unknown }).stripeApi !== 'string') {
    throw new Error(`${path}: a conformance profile must be a JSON object with a "stripeApi" URL`);
  }
  return profile as ConformanceProfile;
}

/** Host and port of the profile's fixed emulator address. */
export function emulatorAddress(profile: ConformanceProfile): { host: string; port: number } {
  const url = new URL(profile.stripeApi);
  return { host: url.hostname, port: Number(url.port || 80) };
}

/** The comment printed (to stderr) before the profile JSON by `credit402-conformance profile`. */
export function profileComment(path: string = PROFILE_PATH): string {
  return [
    `# credit402 conformance profile (${path}); every field is explained in PROFILE.md (harness/ in the repository, the credit402-conformance package when installed).`,
    '# A target under test must:',
    '#  - gate exactly "routes" with their prices, serve "freeRoutes" ungated, and use the keys, serverSecret,',
    '#    serviceName and customerMetadataKey given here;',
    '#  - answer every route with status 200 and a JSON body {"route": "<METHOD> <path>"} when its handler runs, and for a',
    '#    pattern route (":id" segments, a final "*": spec CR-4.11) its parameters too: {"route": …, "params": {"id": "42"}};',
    '#    except the "failingHandlers": "answer500" answers 500 {"route": …}, "throw" throws (your framework answers 5xx);',
    '#  - count each handler run by the request\'s conformance-request-id header, and answer the free route',
    '#    GET "handledPath"?ids=<id>,… with 200 {"<id>": <runs>, …} (0 for unknown ids; keep e.g. the last 10000 ids);',
    '#  - send every Stripe API call to "stripeApi" (the emulator), or to STRIPE_API_BASE when the runner sets it;',
    '#  - with --target-cmd: read the profile from CREDIT402_PROFILE and listen on 127.0.0.1:$PORT;',
    '#  - for the @robustness scenarios (spec section 14): accept Stripe webhooks at "webhookPath" signed with',
    '#    "stripeWebhookSecret", and declare it with --declare robustness=true (otherwise they are not run).',
    '#  - optionally, for the @store-faults and @records scenarios: offer the control routes of PROFILE.md (Capabilities:',
    '#    store faults by clientId, a client\'s records) only when started for conformance, and declare them with',
    '#    --declare capabilities=storeFaults,records (otherwise they are not run).',
    '#  - a gateway (spec section 15), for the @gateway scenarios: forward to CREDIT402_UPSTREAM_URL, the kit\'s own',
    '#    upstream, and declare --declare capabilities=gateway (otherwise they are not run).',
  ].join('\n');
}
