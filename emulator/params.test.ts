// Unit tests of form decoding and parameter schemas.
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { parseParams } from './params.ts';
import { boolean, integer, list, metadata, object, parseWith, string } from './param-schema.ts';

const errorOf = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
  }
  throw new Error('expected an ApiError');
};

describe('parseParams', () => {
  it('decodes nested brackets, both list notations and encoded brackets', () => {
    expect(parseParams('a=1&metadata[k]=v%20w&automatic_payment_methods%5Benabled%5D=true&expand[]=x&expand[]=y&types[0]=card&types[1]=sepa')).toEqual({
      a: '1',
      metadata: { k: 'v w' },
      automatic_payment_methods: { enabled: 'true' },
      expand: ['x', 'y'],
      types: ['card', 'sepa'],
    });
    expect(parseParams('q=a+b&empty=&flag')).toEqual({ q: 'a b', empty: '', flag: '' });
  });

  it('rejects conflicting and malformed names', () => {
    expect(errorOf(() => parseParams('a=1&a[b]=2')).status).toBe(400);
    expect(errorOf(() => parseParams('a[b=1')).body.message).toMatch(/Invalid parameter name/);
    expect(errorOf(() => parseParams('__proto__[x]=1')).status).toBe(400);
    expect(errorOf(() => parseParams('a=%E0%A4%A')).body.message).toMatch(/Invalid URL encoding/);
  });
});

describe('parseWith', () => {
  const schema = { amount: integer, confirm: boolean, nested: object({ on: boolean }, ['on']), tags: list(string()), metadata };

  it('coerces values and names unknown, missing and invalid parameters like Stripe', () => {
    expect(parseWith(parseParams('amount=5&confirm=true&nested[on]=false&tags[]=a&metadata[0]=zero'), schema, ['amount'])).toEqual({
      amount: 5,
      confirm: true,
      nested: { on: false },
      tags: ['a'],
      metadata: { '0': 'zero' },
    });
    expect(errorOf(() => parseWith(parseParams('bogus=1'), schema)).body).toMatchObject({ param: 'bogus', message: 'Received unknown parameter: bogus' });
    expect(errorOf(() => parseWith(parseParams('nested[x]=1'), schema)).body.param).toBe('nested[x]');
    expect(errorOf(() => parseWith(parseParams('nested[x]=1'), schema)).body.message).toBe('Received unknown parameter: nested[x]');
    expect(errorOf(() => parseWith({}, schema, ['amount'])).body).toMatchObject({ param: 'amount', message: 'Missing required param: amount.' });
    expect(errorOf(() => parseWith(parseParams('amount=1.5'), schema)).body.message).toBe('Invalid integer: 1.5');
    expect(errorOf(() => parseWith(parseParams('confirm=yes'), schema)).body.message).toBe('Invalid boolean: yes');
    expect(errorOf(() => parseWith(parseParams('nested[on]=true&tags=a'), schema)).body).toMatchObject({ param: 'tags', message: 'Invalid array' });
  });
});
