// `GET /v1/<objects>/:id` routes: one stored object by id, expanded as `expand[]` asks, or Stripe's 404.
import { resourceMissing } from './errors.ts';
import { expandObject } from './expand.ts';
import { list, parseWith, string } from './param-schema.ts';
import type { ApiRoute, EmulatorState } from './context.ts';

/** `object`, or Stripe's 404 for the missing `label` (`customer`, `PaymentMethod`…) named by `id` in `param`. */
export function foundOr404<T>(object: T | undefined, label: string, id: string, param = 'id'): T {
  if (object === undefined) throw resourceMissing(label, id, param);
  return object;
}

/**
 * The route `GET pattern` (a pattern ending in `/:id`): the object `find` gives for the id (it throws Stripe's 404),
 * expanded as `expand[]` asks. `ignored` names further string parameters Stripe accepts there (e.g. `client_secret`).
 */
export function retrieveRoute(pattern: string, find: (state: EmulatorState, id: string) => object, ignored: readonly string[] = []): ApiRoute {
  const schema = { ...Object.fromEntries(ignored.map((name) => [name, string()])), expand: list(string()) };
  return {
    method: 'GET',
    pattern,
    handle(req, state) {
      const { expand } = parseWith(req.params, schema);
      return expandObject(find(state, req.pathParams.id ?? ''), expand, (id) => state.store.find(id));
    },
  };
}
