// The profile route a request key names, by spec CR-4.2, CR-4.8 and CR-4.11–CR-4.13 (exact keys, `:name` segments, a final `*`).

/** The kind of each segment of a key's path: literal text, a named segment or the final wildcard. */
type Segment = { kind: 0; text: string } | { kind: 1 } | { kind: 2 };

/** A key's path as segments, or undefined for an exact path (no segment starts with `:`, none is a final `*`). */
function segmentsOf(path: string): Segment[] | undefined {
  const parts = path.slice(1).split('/');
  const segments = parts.map((part, index): Segment => {
    if (part === '*' && index === parts.length - 1) return { kind: 2 };
    return part.startsWith(':') ? { kind: 1 } : { kind: 0, text: part };
  });
  return segments.some((segment) => segment.kind !== 0) ? segments : undefined;
}

/** CR-4.12: literal segments equal, a named one non-empty, the wildcard the rest after its `/`. */
function matches(segments: Segment[], path: string): boolean {
  const parts = path.slice(1).split('/');
  const wildcard = segments[segments.length - 1]?.kind === 2;
  if (wildcard ? parts.length < segments.length : parts.length !== segments.length) return false;
  return segments.every((segment, index) => (segment.kind === 0 ? parts[index] === segment.text : segment.kind === 2 || parts[index] !== ''));
}

/** CR-4.13: left to right, literal before named before wildcard; at equal kinds the longer first. */
function moreSpecific(a: Segment[], b: Segment[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const difference = (a[index] as Segment).kind - (b[index] as Segment).kind;
    if (difference !== 0) return difference;
  }
  return b.length - a.length;
}

const split = (key: string): [string, string] => [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];

/**
 * The key of `keys` that the request key `METHOD path` names: the exact key, HEAD following GET (CR-4.8), else the most
 * specific pattern of the method (for HEAD: of HEAD and GET, HEAD first at the same shape); undefined when none.
 */
export function profileKeyOf(keys: readonly string[], requestKey: string): string | undefined {
  const [method, path] = split(requestKey);
  if (keys.includes(requestKey)) return requestKey;
  if (method === 'HEAD' && keys.includes(`GET ${path}`)) return `GET ${path}`;
  const methods = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
  const candidates = keys
    .map((key) => ({ key, method: split(key)[0], segments: segmentsOf(split(key)[1]) }))
    .filter((route): route is { key: string; method: string; segments: Segment[] } => route.segments !== undefined && methods.includes(route.method))
    .filter((route) => matches(route.segments, path))
    .sort((a, b) => moreSpecific(a.segments, b.segments) || methods.indexOf(a.method) - methods.indexOf(b.method));
  return candidates[0]?.key;
}

/** Whether a profile key is a pattern (CR-4.11). */
export function isPatternKey(key: string): boolean {
  return segmentsOf(split(key)[1]) !== undefined;
}
