// When steps: requests to the target, with no payment, a payment, a spend, a raw header or a payload. A request that
// cannot be sent names CR-4.6 (each request ends in one outcome); a transport error shows in the steps that judge the answer.
import type { DataTable } from '@cucumber/cucumber';
import type { Encoding } from '../world/base64-json.ts';
import { MALFORMATIONS } from '../world/malformed.ts';
import { named } from '../world/named.ts';
import type { CardRole, ConformanceWorld } from '../world/world.ts';
import { When } from './define.ts';

const REQUEST = 'CR-4.6';

/** What a pay step's last parameter sets: the top-up, the header's encoding or the header's name. */
interface PayOption {
  topUpAmount: number;
  encoding: Encoding;
  headerName: string;
}

/** The body of a step that pays for a request line with a card, its last parameter setting `option` of the payment. */
function payingWith<Option extends keyof PayOption>(option: Option) {
  return async function (this: ConformanceWorld, line: string, role: CardRole, value: PayOption[Option]) {
    await this.pay(line, role, { [option]: value });
  };
}

When('I request {string} without a payment header', REQUEST, async function (this: ConformanceWorld, line: string) {
  await this.send(line);
});

When('I request {string} in absolute form without a payment header', REQUEST, async function (this: ConformanceWorld, line: string) {
  await this.send(line, { absolute: true });
});

When('I pay for {string} with {card}', REQUEST, async function (this: ConformanceWorld, line: string, role: CardRole) {
  await this.pay(line, role);
});

When('I pay for {string} with {card} and a top-up of {int} units', REQUEST, payingWith('topUpAmount'));

When('I pay for {string} with {card}, encoding the header {encoding}', REQUEST, payingWith('encoding'));

When('I pay for {string} with {card}, sending the header name {string}', REQUEST, payingWith('headerName'));

When('I spend with the clientId on {string}', REQUEST, async function (this: ConformanceWorld, line: string) {
  await this.spend(line);
});

When('I send the payment payload {string} to {string}', REQUEST, async function (this: ConformanceWorld, payload: string, line: string) {
  await this.sendPayload(line, payload);
});

When(
  'I send the payment payload {string} to {string} again while it is answered 503, for at most {int} s',
  REQUEST,
  async function (this: ConformanceWorld, payload: string, line: string, seconds: number) {
    const until = Date.now() + seconds * 1_000;
    do {
      await this.sendPayload(line, payload);
      if (this.last.answer?.status !== 503) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    } while (Date.now() < until);
  },
);

When('I send the payment header {string} to {string}', REQUEST, async function (this: ConformanceWorld, value: string, line: string) {
  await this.send(line, { payment: value });
});

When("I send the card's payment header with {string} to {string}", REQUEST, async function (this: ConformanceWorld, name: string, line: string) {
  const malform = named(MALFORMATIONS, name, 'malformation');
  await this.send(line, { payment: malform(this.paymentJson('the card')) });
});

When('I request {string} with each of these payment payloads:', REQUEST, async function (this: ConformanceWorld, line: string, table: DataTable) {
  this.batch = [];
  for (const { payload = '' } of table.hashes()) {
    this.batch.push(await (payload === '(none)' ? this.send(line) : this.sendPayload(line, payload)));
  }
});
