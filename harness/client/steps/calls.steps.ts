// Client steps that make calls through the driver: one call or several at once, a paid call as set-up, a restart.
import assert from 'node:assert/strict';
import type { DataTable } from '@cucumber/cucumber';
import { Given, When } from '../../steps/define.ts';
import { firstOf } from '../../world/check.ts';
import type { CallbackAnswer, CallSpec } from '../driver-replies.ts';
import { driven } from '../hooks.ts';
import type { OriginName } from '../ledger.ts';
import { clientSession } from '../session.ts';
import { PAYMENT_METHOD, type ClientWorld } from '../world.ts';

/** Every client requirement: an action step names the scenario's first (it only fails on a bug of the kit). */
const SCENARIO = firstOf(Array.from({ length: 17 }, (_, index) => `CR-16.${index + 1}`), 'CR-16.2');

function callbackOf(text: string): CallbackAnswer {
  if (text === 'declining') return { decline: true };
  if (text === 'approving without a top-up') return { paymentMethodId: PAYMENT_METHOD };
  const units = /^approving a top-up of (\d+) units$/.exec(text)?.[1];
  assert.ok(units !== undefined, `unknown callback answer: ${text}`);
  return { paymentMethodId: PAYMENT_METHOD, topUpAmount: Number(units) };
}

/** The request headers of a step's table (name | value), names in lowercase. */
function headersOf(table: DataTable): Record<string, string> {
  const rows = table.raw();
  assert.ok(rows.every((row) => row.length === 2), 'a headers table has two columns: name | value');
  return Object.fromEntries(rows.map(([name = '', value = '']) => [name.toLowerCase(), value]));
}

function spec(world: ClientWorld, method: string, target: string, origin: OriginName, body?: string): CallSpec {
  return { url: world.url(origin, target), method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body ?? null };
}

When(
  /^the client calls (GET|POST) (\S+) on server (A|B)(?: with the body '(.*)')?, the callback (.+)$/,
  SCENARIO,
  function (this: ClientWorld, method: string, target: string, origin: OriginName, body: string | undefined, callback: string) {
    return driven(this, () => this.call([spec(this, method, target, origin, body)], callbackOf(callback)));
  },
);

When(
  /^the client calls (GET|POST) (\S+) on server (A|B) with these headers, the callback (.+)$/,
  SCENARIO,
  function (this: ClientWorld, method: string, target: string, origin: OriginName, callback: string, table: DataTable) {
    const call = { ...spec(this, method, target, origin), headers: headersOf(table) };
    return driven(this, () => this.call([call], callbackOf(callback)));
  },
);

When(
  /^the client makes (\d+) calls to GET (\S+) on server (A|B) at once, the callback (.+)$/,
  SCENARIO,
  function (this: ClientWorld, count: string, target: string, origin: OriginName, callback: string) {
    const specs = Array.from({ length: Number(count) }, () => spec(this, 'GET', target, origin));
    return driven(this, () => this.call(specs, callbackOf(callback)));
  },
);

When('the client is restarted', SCENARIO, function (this: ClientWorld) {
  return driven(this, () => clientSession().driver.restart());
});

// A set-up payment that is not served breaks CR-16.2 (the paid request returns the handler's answer).
Given(/^the client paid for GET (\S+) on server (A|B)$/, 'CR-16.2', async function (this: ClientWorld, target: string, origin: OriginName) {
  const skipped = await driven(this, () => this.call([spec(this, 'GET', target, origin)], { paymentMethodId: PAYMENT_METHOD, topUpAmount: 50_000 }));
  if (skipped) return skipped;
  const [result] = this.last.reply.results;
  assert.equal(result?.status, 200, `the set-up payment at server ${origin} was not served: ${JSON.stringify(result)}`);
  assert.ok(this.server.charges.some((charge) => charge.origin === origin), `the set-up call to server ${origin} paid nothing`);
  return undefined;
});
