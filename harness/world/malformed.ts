// Malformed `payment` values built around a real payment of the card, so that a lenient decoder would charge it (CR-3.5).
import { encode } from './base64-json.ts';

/** A header value, or several header lines. */
export type HeaderValue = string | string[];

const middle = (value: string, insert: string): string => {
  const at = Math.floor(value.length / 2);
  return `${value.slice(0, at)}${insert}${value.slice(at)}`;
};

/** Pads a JSON text with trailing whitespace (still one JSON text) until its byte length ≡ `remainder` (mod 3). */
function padTo(json: string, remainder: number): string {
  let text = json;
  while (Buffer.byteLength(text) % 3 !== remainder) text += ' ';
  return text;
}

/** The malformations, by the name used in the features, applied to the card's payload JSON text. */
export const MALFORMATIONS: Readonly<Record<string, (json: string) => HeaderValue>> = {
  'an empty value': () => '',
  'a space inside': (json) => middle(encode(json), ' '),
  'a tab inside': (json) => middle(encode(json), '\t'),
  'a comma-joined copy': (json) => `${encode(json)},${encode(json)}`,
  'a second header line': (json) => [encode(json), encode(json)],
  'a character outside the alphabets': (json) => middle(encode(json), '*'),
  'an = inside the body': (json) => middle(encode(padTo(json, 0)), '='),
  'a body length of 4n+1': (json) => `${encode(padTo(json, 0))}A`,
  'one = too many': (json) => `${encode(padTo(json, 2))}=`,
  'three =': (json) => encode(padTo(json, 1)).replace(/=+$/, '==='),
  'bytes that are not UTF-8': (json) =>
    encode(Buffer.concat([Buffer.from(`${json.slice(0, -1)},"note":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])),
  'a second JSON text after it': (json) => encode(`${json}{}`),
  'a truncated JSON text': (json) => encode(json.slice(0, -1)),
};
