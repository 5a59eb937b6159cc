// The kit's history runner must catch deliberately broken refunds, batches and gateways (second half of the history mutants; the first in history-mutants.test.ts).
import { describeHistoryMutants, GATEWAY, GATEWAY_ARGS, REFUNDS } from './history-mutant-runs.ts';

describeHistoryMutants([
  {
    title: 'CR-11.3: a refund whose id is not kept is applied again when its retry follows a lost reply',
    mutant: 'refund-twice', seed: 36141, ids: 'CR-11.3', says: 'a refund is applied at most once per refund id', declarations: REFUNDS,
  },
  {
    title: 'CR-6.7: a batch whose deductions are each checked against the balance before the batch overdraws it',
    mutant: 'batch-before-balance', seed: 36151, ids: 'CR-6.7', says: 'no serial order of these',
  },
  {
    title: "CR-6.2: a batched store that crosses the outcomes of different clients' deductions",
    mutant: 'crossed-batch', seed: 36161, ids: 'CR-6.2', says: 'they fit once exchanged',
  },
  {
    title: 'CR-15.3: a gateway that keeps the price of a request its upstream gave no answer to',
    mutant: 'gateway-no-refund', seed: 36171, ids: 'CR-15.3', says: 'gives the deducted price back exactly once', declarations: GATEWAY, mutantArgs: GATEWAY_ARGS,
  },
]);
