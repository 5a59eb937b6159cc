// Steps of many clients spending at once (CR-6.2, CR-6.3): each gets its own outcome and keeps its own balance, so that a
// target whose store handles concurrent deductions together (a batch, a pipeline) never crosses two clients' outcomes.
import { expectOwnOutcomes, fundCrowd, spendInTurn, spendTogether } from '../world/crowd.ts';
import { requestLine } from '../world/request-line.ts';
import type { ConformanceWorld } from '../world/world.ts';
import { Given, Then, When } from './define.ts';

/** The crowd's own outcomes: served from its own balance (CR-6.2); the check of the challenged clients names CR-6.3 itself. */
const OWN_OUTCOMES = 'CR-6.2';

Given(
  '{int} clients that each paid once for {string} with a top-up of its own, and {int} new cards that never paid',
  // A first payment that is not served breaks the set-up (CR-7.13).
  'CR-7.13',
  async function (this: ConformanceWorld, funded: number, line: string, unpaid: number) {
    await fundCrowd(this, funded, unpaid, line);
  },
);

When('every one of them spends with its clientId on {string}, all at once', 'CR-4.6', async function (this: ConformanceWorld, line: string) {
  await spendTogether(this, line);
});

When('every one of them spends with its clientId on {string} again, one after another', 'CR-4.6', async function (this: ConformanceWorld, line: string) {
  await spendInTurn(this, line);
});

Then(
  'each client whose balance pays for {string} is served with its own clientId and its own balance minus the price, and each other one gets the insufficient-credits challenge',
  OWN_OUTCOMES,
  function (this: ConformanceWorld, line: string) {
    expectOwnOutcomes(this, requestLine(line).key);
  },
);
