// Stripe list objects and cursor pagination (`limit`, `starting_after`, `ending_before`), newest first.
import { invalidRequest, resourceMissing } from './errors.ts';

/** Stripe's `{ object: 'list', data, has_more, url }`. */
interface ListObject<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

interface PageParams {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

/** Checks `limit` (1–100, default 10) as Stripe does. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return 10;
  if (limit < 1) throw invalidRequest('This value must be greater than or equal to 1.', { param: 'limit' });
  if (limit > 100) throw invalidRequest('This value must be less than or equal to 100.', { param: 'limit' });
  return limit;
}

/** One page of `items` (already newest first); `label` names the object in a bad-cursor 404. */
export function paginate<T extends { id: string }>(items: T[], page: PageParams, url: string, label: string): ListObject<T> {
  const limit = pageLimit(page.limit);
  const indexOf = (id: string, param: string): number => {
    const index = items.findIndex((item) => item.id === id);
    if (index < 0) throw resourceMissing(label, id, param);
    return index;
  };
  if (page.starting_after !== undefined && page.ending_before !== undefined) {
    throw invalidRequest('You may only specify one of these parameters: ending_before, starting_after.');
  }
  if (page.ending_before !== undefined) {
    const end = indexOf(page.ending_before, 'ending_before');
    const start = Math.max(0, end - limit);
    return { object: 'list', data: items.slice(start, end), has_more: start > 0, url };
  }
  const start = page.starting_after !== undefined ? indexOf(page.starting_after, 'starting_after') + 1 : 0;
  return { object: 'list', data: items.slice(start, start + limit), has_more: start + limit < items.length, url };
}
