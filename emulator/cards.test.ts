// Unit tests of Luhn, brand detection, fingerprints and test-card outcomes.
import { describe, expect, it } from 'vitest';
import { cardBrand, cardOutcome, fingerprinter, luhnValid } from './cards.ts';

describe('cards', () => {
  it('checks the Luhn digit', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('378282246310005')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
  });

  it.each([
    ['4242424242424242', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['378282246310005', 'amex'],
    ['6011111111111117', 'discover'],
    ['3566002020360505', 'jcb'],
    ['36227206271667', 'diners'],
    ['6200000000000005', 'unionpay'],
    ['9999999999999995', 'unknown'],
  ])('names the brand of %s as %s', (number, brand) => {
    expect(cardBrand(number)).toBe(brand);
  });

  it('fingerprints stably per salt', () => {
    const a = fingerprinter('salt-a');
    expect(a('4242424242424242')).toBe(a('4242424242424242'));
    expect(a('4242424242424242')).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(a('4242424242424242')).not.toBe(a('5555555555554444'));
    expect(fingerprinter('salt-b')('4242424242424242')).not.toBe(a('4242424242424242'));
  });

  it('knows the documented outcomes', () => {
    expect(cardOutcome('4242424242424242')).toEqual({ kind: 'succeed' });
    expect(cardOutcome('4000002500003155')).toEqual({ kind: 'authenticate' });
    expect(cardOutcome('4000000000009995')).toMatchObject({ code: 'card_declined', declineCode: 'insufficient_funds' });
  });
});
