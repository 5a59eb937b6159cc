// The path a router matches in a request target, as received: shared by the node:http router and the metrics endpoint.

/**
 * The path the router matches: the request target up to the query, as received (no decoding, no case folding, no
 * slash merging: spec CR-4.9); the path of an http(s) absolute-form target; undefined for any other form.
 */
export function routerPath(target: string): string | undefined {
  const beforeQuery = target.split('?', 1)[0] ?? '';
  if (beforeQuery.startsWith('/')) return beforeQuery;
  const absolute = /^https?:\/\/[^/]+(\/.*)?$/i.exec(beforeQuery);
  return absolute ? (absolute[1] ?? '/') : undefined;
}
