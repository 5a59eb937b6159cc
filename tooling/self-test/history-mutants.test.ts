// The kit's history runner must catch deliberately broken stores and refunds (first half of the history mutants; the rest in history-mutants-batches.test.ts).
import { describeHistoryMutants, REFUNDS } from './history-mutant-runs.ts';

describeHistoryMutants([
  {
    title: "CR-6.9: a store that does not scope request ids per client serves another client's request with a kept id free",
    mutant: 'request-id-unscoped', seed: 36101, ids: 'CR-6.9', says: 'which this client never used: request ids are kept per client',
  },
  {
    title: 'CR-6.7: a deduction that reads the balance and writes it back later loses a price to concurrent spends',
    mutant: 'non-atomic-deduction', seed: 36111, ids: 'CR-6.7', says: 'no serial order of these',
  },
  {
    title: "CR-6.9: a refund retried after its request id's repeat was served gives the price back all the same",
    mutant: 'refund-after-repeat', seed: 36121, ids: 'CR-6.9', says: "came back after its request id's repeat was served", declarations: REFUNDS,
  },
  {
    title: 'CR-4.7: a paid POST whose body does not parse is answered 400 after its price was deducted',
    mutant: 'body-after-deduction', seed: 36131, ids: 'CR-4.7', says: 'were taken for a request refused before its handler',
  },
]);
