// /v1/events: retrieve an event by id and list events (newest first), as webhook handlers do to re-check one.
import { resourceMissing } from './errors.ts';
import { integer, list, parseWith, string } from './param-schema.ts';
import { paginate } from './list.ts';
import type { ApiRoute } from './context.ts';

export const eventRoutes: ApiRoute[] = [
  {
    method: 'GET',
    pattern: '/v1/events/:id',
    handle(req, state) {
      parseWith(req.params, { expand: list(string()) });
      const event = state.webhooks.get(req.pathParams.id ?? '');
      if (!event) throw resourceMissing('event', req.pathParams.id ?? '');
      return event;
    },
  },
  {
    method: 'GET',
    pattern: '/v1/events',
    handle(req, state) {
      const p = parseWith(req.params, { type: string(), limit: integer, starting_after: string(), ending_before: string(), expand: list(string()) });
      const events = state.webhooks
        .list()
        .map((record) => record.event)
        .filter((event) => p.type === undefined || event.type === p.type)
        .reverse();
      return paginate(events, p, '/v1/events', 'event');
    },
  },
];
