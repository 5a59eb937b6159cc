// Test helper: unique Luhn-valid card numbers and payment methods created the way Stripe.js does.

/** Appends the Luhn check digit to a digit string. */
export function withLuhnDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

let counter = 0;

/** A Visa test number never used before in this process (so its fingerprint, and client, are new). */
export function uniqueCardNumber(): string {
  counter += 1;
  const body = `424299${String(Date.now() % 1e6).padStart(6, '0')}${String(counter).padStart(3, '0')}`;
  return withLuhnDigit(body);
}

/** Creates a card payment method at the Stripe API base with a publishable key; resolves to its id. */
export async function createCardPaymentMethod(apiUrl: string, number = uniqueCardNumber()): Promise<string> {
  const form = new URLSearchParams({
    type: 'card',
    'card[number]': number,
    'card[exp_month]': '12',
    'card[exp_year]': String(new Date().getFullYear() + 3),
    'card[cvc]': '123',
  });
  const response = await fetch(`${apiUrl}/v1/payment_methods`, {
    method: 'POST',
    headers: { authorization: 'Bearer pk_test_credit402tests', 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const body = (await response.json()) as { id?: string; error?: { message: string } };
  if (!response.ok || !body.id) throw new Error(`payment method not created: ${body.error?.message ?? response.status}`);
  return body.id;
}
