// Which configured route key claims a path: the server's own endpoints (webhook, metrics) may not sit under a route.
import { matchesRoutePattern, parseRoutePattern } from '../gate/index.ts';

/**
 * The first of `keys` ("METHOD /path") whose path is `path` or, for a pattern key (CR-4.11), matches it (CR-4.12),
 * among those of `method` when given; undefined when none does. A malformed pattern is compared as written (the
 * gate refuses it with its own error when it reads the routes).
 */
export function routeClaimingPath(keys: readonly string[], path: string, method?: string): string | undefined {
  return keys.find((key) => {
    const space = key.indexOf(' ');
    if (method !== undefined && key.slice(0, space) !== method) return false;
    const keyPath = key.slice(space + 1);
    if (keyPath === path) return true;
    try {
      const segments = parseRoutePattern(key, keyPath);
      return segments !== undefined && matchesRoutePattern(segments, path);
    } catch {
      return false;
    }
  });
}
