// Test helper: a request written `METHOD target`, as route keys are and as the routing tests' tables write requests.

/** `METHOD target` as its method and its target (a request target holds no space). */
export function methodAndTarget(request: string): [method: string, target: string] {
  const space = request.indexOf(' ');
  return [request.slice(0, space), request.slice(space + 1)];
}
