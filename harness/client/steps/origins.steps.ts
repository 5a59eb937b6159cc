// Client checks that a payment stays with its origin (CR-16.9): no clientId at another server, nothing of a payment across a redirect.
import assert from 'node:assert/strict';
import { Then } from '../../steps/define.ts';
import { clientIdOf, describeRequest, describeRequests } from '../call-queries.ts';
import type { OriginName } from '../ledger.ts';
import type { RecordedRequest } from '../scripted-server.ts';
import { decodePayment } from '../wire.ts';
import { PAYMENT_METHOD, type ClientWorld } from '../world.ts';

/** What of a payment a request carries: a `payment` header, and any of `secrets` in its target, headers (base64 JSON ones decoded) or body. */
function paymentMaterial(request: RecordedRequest, secrets: readonly string[]): string[] {
  const values = Object.values(request.headers);
  const decoded = values.map(decodePayment).flatMap((read) => (read.ok ? [JSON.stringify(read.payload)] : []));
  const text = [request.target, request.body, ...values, ...decoded].join('\n');
  return [...(request.paymentRaw === undefined ? [] : ['a payment header']), ...secrets.filter((secret) => text.includes(secret))];
}

Then(/^no request to server (A|B) carried the clientId server (A|B) gave$/, 'CR-16.9', function (this: ClientWorld, to: OriginName, from: OriginName) {
  const clientId = this.givenClientId(from);
  const leaked = this.server.requests.filter((request) => request.origin === to && clientIdOf(request) === clientId);
  assert.equal(leaked.length, 0, `server ${from}'s clientId reached server ${to}:\n${describeRequests(leaked)}`);
});

Then(/^nothing of the payment to server (A|B) reached server (A|B)$/, 'CR-16.9', function (this: ClientWorld, from: OriginName, to: OriginName) {
  const clientId = this.server.charges.find((charge) => charge.origin === from)?.clientId;
  const secrets = [PAYMENT_METHOD, ...(clientId === undefined ? [] : [clientId])];
  const reached = this.server.requests
    .filter((request) => request.origin === to)
    .flatMap((request) => {
      const found = paymentMaterial(request, secrets);
      return found.length === 0 ? [] : [`${describeRequest(request)}: ${found.join(', ')}`];
    });
  assert.equal(reached.length, 0, `the payment to server ${from} (the payment header, its clientId, the payment method) reached server ${to}:\n${reached.join('\n')}`);
});
