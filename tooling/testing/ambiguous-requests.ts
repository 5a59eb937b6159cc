// Test helper: requests whose target is ambiguous (CR-4.10), which the gate and every adapter answer 400 before any store or processor call.

/**
 * Ambiguous requests as `[method, target]`, on the gated `GET /api/weather` and `POST /api/translate` and on free
 * paths: a backslash, a fragment, another scheme, a dot segment, a malformed percent-encoding.
 */
export const AMBIGUOUS_REQUESTS: Array<[method: string, target: string]> = [
  ['GET', '/api\\weather'],
  ['GET', '/api\\weather#x'],
  ['GET', '/api\\weather?city=Oslo#'],
  ['GET', 'http://x/api\\weather'],
  ['POST', '/api\\translate#'],
  ['HEAD', '/api\\weather#'],
  ['GET', '/api/weather#'],
  ['GET', 'http://x/api/weather#x'],
  ['GET', 'ftp://x/api/weather'],
  ['GET', 'file://x/api/weather'],
  ['POST', 'ws://x/api/translate'],
  ['GET', '/api/x/../weather'],
  ['GET', '/free\\x'],
  ['GET', '/api/weather%zz'],
  ['GET', '/api/%FF'],
];
