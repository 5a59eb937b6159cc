// Declarative request-parameter schemas: unknown/missing parameter errors and Stripe's type coercions.
import { invalidValue, missingParam, unknownParam } from './errors.ts';
import type { ParamValue, Params } from './params.ts';

/** Parses one decoded parameter; `name` is its wire name (e.g. `card[number]`) for error messages. */
interface Field<T> {
  readonly parse: (value: ParamValue, name: string) => T;
}
type Schema = Record<string, Field<unknown>>;
type Out<F> = F extends Field<infer T> ? T : never;
/** Parsed values of a schema: the `R` keys are present, the others optional. */
export type Parsed<S extends Schema, R extends keyof S = never> = { [K in keyof S as K extends R ? never : K]?: Out<S[K]> } & {
  [K in R]: Out<S[K]>;
};

const show = (value: ParamValue): string => (typeof value === 'string' ? value : JSON.stringify(value));
const child = (parent: string, key: string): string => (parent === '' ? key : `${parent}[${key}]`);

export const string = (maxLength = 5000): Field<string> => ({
  parse(value, name) {
    if (typeof value !== 'string') throw invalidValue(name, `Invalid string: ${show(value)}`);
    if (value.length > maxLength) throw invalidValue(name, `Invalid string: must be at most ${maxLength} characters`, 'string_length_exceeded');
    return value;
  },
});

export const integer: Field<number> = {
  parse(value, name) {
    if (typeof value !== 'string' || !/^-?\d{1,15}$/.test(value)) throw invalidValue(name, `Invalid integer: ${show(value)}`);
    return Number(value);
  },
};

export const boolean: Field<boolean> = {
  parse(value, name) {
    if (value === 'true') return true;
    if (value === 'false') return false;
    throw invalidValue(name, `Invalid boolean: ${show(value)}`);
  },
};

export const oneOf = <T extends string>(...allowed: T[]): Field<T> => ({
  parse(value, name) {
    if (typeof value === 'string' && (allowed as string[]).includes(value)) return value as T;
    const choices = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')}, or ${allowed.at(-1)}` : String(allowed[0]);
    throw invalidValue(name, `Invalid ${name}: must be one of ${choices}`);
  },
});

/** A list, written `x[]=a` or `x[0]=a`. */
export const list = <T>(item: Field<T>): Field<T[]> => ({
  parse(value, name) {
    const items = Array.isArray(value)
      ? value
      : typeof value === 'object' && Object.keys(value).every((k) => /^\d+$/.test(k))
        ? Object.entries(value).sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v)
        : undefined;
    if (items === undefined) throw invalidValue(name, 'Invalid array');
    return items.map((v, i) => item.parse(v, `${name}[${i}]`));
  },
});

/** A map from its list form too: `metadata[0]=x` decodes as a list but is the key "0". */
const asMap = (value: ParamValue): Params | undefined =>
  typeof value !== 'object' ? undefined : Array.isArray(value) ? Object.fromEntries(value.map((v, i) => [String(i), v])) : value;

export const metadata: Field<Record<string, string>> = {
  parse(value, name) {
    const map = asMap(value);
    if (map === undefined) throw invalidValue(name, 'Invalid object');
    const entries = Object.entries(map);
    if (entries.length > 50) throw invalidValue(name, 'Invalid metadata: metadata can have up to 50 keys');
    for (const [key, v] of entries) {
      if (key.length > 40) throw invalidValue(child(name, key), `Metadata keys can have up to 40 characters, "${key}" has ${key.length}`);
      if (typeof v !== 'string') throw invalidValue(child(name, key), 'Metadata values must be strings');
      if (v.length > 500) throw invalidValue(child(name, key), 'Metadata values can have up to 500 characters');
    }
    return Object.fromEntries(entries.filter(([, v]) => v !== '')) as Record<string, string>;
  },
};

/** Checks `params` against `schema`: unknown names first, then required ones, then each value (recursively). */
export function parseWith<S extends Schema, R extends keyof S & string = never>(
  params: Params,
  schema: S,
  required: readonly R[] = [],
  prefix = '',
): Parsed<S, R> {
  for (const key of Object.keys(params)) if (!Object.hasOwn(schema, key)) throw unknownParam(child(prefix, key));
  for (const key of required) if (params[key] === undefined || params[key] === '') throw missingParam(child(prefix, key));
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema)) {
    const value = params[key];
    if (value !== undefined && value !== '') out[key] = field.parse(value, child(prefix, key));
  }
  return out as Parsed<S, R>;
}

/** A nested hash such as `automatic_payment_methods[enabled]`. */
export const object = <S extends Schema, R extends keyof S & string = never>(schema: S, required: readonly R[] = []): Field<Parsed<S, R>> => ({
  parse(value, name) {
    const map = asMap(value);
    if (map === undefined) throw invalidValue(name, 'Invalid object');
    return parseWith(map, schema, required, name);
  },
});
