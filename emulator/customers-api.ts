// /v1/customers: create (attaching a payment method), retrieve, and search with Stripe's indexing lag.
import { invalidRequest } from './errors.ts';
import { foundOr404, retrieveRoute } from './retrieve-route.ts';
import { expandObject } from './expand.ts';
import { customerMatcher } from './customer-search.ts';
import { newId, randomBase62, unixNow } from './ids.ts';
import { integer, list, metadata, object, parseWith, string } from './param-schema.ts';
import { pageLimit } from './list.ts';
import { findPaymentMethod } from './payment-methods-api.ts';
import type { ApiRoute, EmulatorState } from './context.ts';
import type { Customer } from './objects.ts';

const createSchema = {
  payment_method: string(),
  metadata,
  email: string(512),
  name: string(256),
  phone: string(20),
  description: string(),
  invoice_settings: object({ default_payment_method: string() }),
  expand: list(string()),
};
const searchSchema = { query: string(), limit: integer, page: string(), expand: list(string()) };

/** A customer by id, or Stripe's 404 naming `param`. */
export function findCustomer(state: EmulatorState, id: string, param = 'id'): Customer {
  return foundOr404(state.store.customers.get(id), 'customer', id, param);
}

/** Attaches `paymentMethodId` to `customerId`; the shared test ids (`pm_card_visa`) stay unattached. */
function attachPaymentMethod(state: EmulatorState, paymentMethodId: string, customerId: string): void {
  const method = findPaymentMethod(state, paymentMethodId, 'payment_method');
  if (state.store.isTestPaymentMethod(method.id)) return;
  if (method.customer !== null && method.customer !== customerId) {
    throw invalidRequest('The payment method you provided has already been attached to a customer.', { param: 'payment_method' });
  }
  method.customer = customerId;
}

const page = (offset: number): string => `page_${offset}`;
function pageOffset(token: string | undefined): number {
  if (token === undefined) return 0;
  const offset = /^page_(\d+)$/.exec(token)?.[1];
  if (offset === undefined) throw invalidRequest(`Invalid page: ${token}`, { param: 'page' });
  return Number(offset);
}

export const customerRoutes: ApiRoute[] = [
  {
    method: 'POST',
    pattern: '/v1/customers',
    handle(req, state) {
      const p = parseWith(req.params, createSchema);
      if (p.payment_method !== undefined) findPaymentMethod(state, p.payment_method, 'payment_method');
      const defaultMethod = p.invoice_settings?.default_payment_method ?? null;
      if (defaultMethod !== null && defaultMethod !== p.payment_method) {
        throw invalidRequest(
          `The customer does not have a payment method with the ID ${defaultMethod}. The payment method must be attached to the customer.`,
          { param: 'invoice_settings[default_payment_method]', code: 'resource_missing' },
        );
      }
      const customer: Customer = {
        id: newId('cus'),
        object: 'customer',
        address: null,
        balance: 0,
        created: unixNow(),
        currency: null,
        default_source: null,
        delinquent: false,
        description: p.description ?? null,
        email: p.email ?? null,
        invoice_prefix: randomBase62(8).toUpperCase(),
        invoice_settings: { custom_fields: null, default_payment_method: defaultMethod, footer: null, rendering_options: null },
        livemode: false,
        metadata: p.metadata ?? {},
        name: p.name ?? null,
        phone: p.phone ?? null,
        preferred_locales: [],
        shipping: null,
        tax_exempt: 'none',
      };
      if (p.payment_method !== undefined) attachPaymentMethod(state, p.payment_method, customer.id);
      state.store.customers.set(customer.id, customer);
      state.store.customerCreatedAtMs.set(customer.id, Date.now());
      return expandObject(customer, p.expand, (id) => state.store.find(id));
    },
  },
  {
    method: 'GET',
    pattern: '/v1/customers/search',
    handle(req, state) {
      const p = parseWith(req.params, searchSchema, ['query']);
      const limit = pageLimit(p.limit);
      const offset = pageOffset(p.page);
      const matcher = customerMatcher(p.query);
      const visibleBefore = Date.now() - state.searchLagMs;
      const hits = [...state.store.customers.values()]
        .filter((c) => (state.store.customerCreatedAtMs.get(c.id) ?? 0) <= visibleBefore && matcher(c))
        .reverse();
      const hasMore = offset + limit < hits.length;
      const result = {
        object: 'search_result' as const,
        data: hits.slice(offset, offset + limit),
        has_more: hasMore,
        next_page: hasMore ? page(offset + limit) : null,
        url: '/v1/customers/search',
      };
      return expandObject(result, p.expand, (id) => state.store.find(id));
    },
  },
  retrieveRoute('/v1/customers/:id', (state, id) => findCustomer(state, id)),
];
