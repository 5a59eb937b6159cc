// Stripe's search query language, the subset for customers: metadata['k']:'v', email:'x', name:'x', joined by AND or OR.
import { invalidRequest } from './errors.ts';
import type { Customer } from './objects.ts';

interface Clause {
  field: 'metadata' | 'email' | 'name' | 'phone' | 'description';
  key?: string;
  value: string;
}

const QUOTED = String.raw`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"`;
const CLAUSE = new RegExp(String.raw`\s*(?:metadata\[(${QUOTED})\]|(email|name|phone|description))\s*:\s*(${QUOTED})\s*`, 'y');
const JOINER = /(AND|OR)(?=\s)/y;

const unquote = (s: string): string => s.slice(1, -1).replace(/\\(.)/g, '$1');

const unsupported = (query: string) =>
  invalidRequest(
    `Unsupported search query: ${query}. The emulator supports metadata['key']:'value', email:'x', name:'x', phone:'x' and description:'x' clauses joined by AND or OR.`,
    { param: 'query' },
  );

/** Parses a query into its clauses and joiner; throws 400 (param `query`) for anything outside the subset. */
function parseCustomerQuery(query: string): { clauses: Clause[]; joiner: 'AND' | 'OR' } {
  const clauses: Clause[] = [];
  const joiners = new Set<string>();
  let position = 0;
  for (;;) {
    CLAUSE.lastIndex = position;
    const match = CLAUSE.exec(query);
    if (!match) throw unsupported(query);
    const [, key, field, value = ''] = match;
    clauses.push(key !== undefined ? { field: 'metadata', key: unquote(key), value: unquote(value) } : { field: field as Clause['field'], value: unquote(value) });
    position = CLAUSE.lastIndex;
    if (position === query.length) break;
    JOINER.lastIndex = position;
    const joiner = JOINER.exec(query);
    if (!joiner) throw unsupported(query);
    joiners.add(joiner[1] ?? '');
    position = JOINER.lastIndex;
  }
  if (joiners.size > 1) throw invalidRequest('A search query cannot mix AND and OR.', { param: 'query' });
  return { clauses, joiner: joiners.has('OR') ? 'OR' : 'AND' };
}

function matches(customer: Customer, clause: Clause): boolean {
  if (clause.field === 'metadata') return customer.metadata[clause.key ?? ''] === clause.value;
  const actual = customer[clause.field];
  return clause.field === 'email' ? actual?.toLowerCase() === clause.value.toLowerCase() : actual === clause.value;
}

/** A predicate for customers matching `query`. */
export function customerMatcher(query: string): (customer: Customer) => boolean {
  const { clauses, joiner } = parseCustomerQuery(query);
  return joiner === 'AND' ? (c) => clauses.every((cl) => matches(c, cl)) : (c) => clauses.some((cl) => matches(c, cl));
}
