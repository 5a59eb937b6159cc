// A framework's route path (Fastify, Express 4 and 5) in the route-key syntax of the spec, so records and metrics name a route alike on every framework.
import { parseRoutePattern } from '../gate/index.ts';

const NAMED = /^:([A-Za-z_][A-Za-z0-9_]*)(\(.*\))?$/;
const FINAL_WILDCARD = /^(\*|\*[A-Za-z_$][\w$]*|\{\*[A-Za-z_$][\w$]*\})$/;

/**
 * `path` in the route-key syntax (CR-4.11) when it has that shape: a named segment with a regular expression
 * (`:id(^.+$)`, Fastify and Express 4) is `:id`, and a final `*`, `*rest` or `{*rest}` (Express 5) is `*`. A path
 * with other syntax (optional segments, a regular expression holding `/`, `::`) is returned as it is.
 */
export function keyPathOf(path: string): string {
  const segments = path.split('/');
  const last = segments.length - 1;
  const converted = segments.map((segment, index) => {
    const named = NAMED.exec(segment);
    if (named !== null) return `:${named[1]}`;
    return index === last && FINAL_WILDCARD.test(segment) ? '*' : segment;
  }).join('/');
  if (converted === path) return path;
  try {
    return parseRoutePattern(`GET ${converted}`, converted) === undefined ? path : converted;
  } catch {
    return path;
  }
}
