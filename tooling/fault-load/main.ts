// `npm run fault-load -- [--seconds 20] [--store redis,postgres|all] [--seed N]`: paid requests, first payments and refunds of failed handlers under a faulty store link, then the money checked.
import { parseArgs } from 'node:util';
import { parseStoreList, seedOf } from '../testing/store-list.ts';
import { tallyStderr, type LogTally } from './server-log-tally.ts';
import { FAULT_LOAD_STORES, runFaultLoad, type FaultLoadReport } from './run-fault-load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    workers: { type: 'string', default: '24' },
    store: { type: 'string', default: 'all' },
    seed: { type: 'string' },
    help: { type: 'boolean' },
  },
});
const USAGE = `usage: npm run fault-load -- [--seconds 20] [--workers 24] [--store ${FAULT_LOAD_STORES.join('|')}|all, or a comma list] [--seed N]`;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const seconds = Number(values.seconds);
const workers = Number(values.workers);
const stores = parseStoreList(values.store, FAULT_LOAD_STORES);
if (!(seconds > 0) || !Number.isSafeInteger(workers) || workers < 1 || stores === undefined) {
  console.error(USAGE);
  process.exit(2);
}
const seed = seedOf(values.seed);

function summary(r: FaultLoadReport, log: LogTally): string {
  const answered = Object.entries(r.answered).map(([answer, n]) => `${n}× ${answer}`).join(', ');
  const f = r.faults;
  const v = r.verdict;
  return [
    `store ${r.store} (${r.framework}): ${r.operations} paid requests (${r.firstPayments} first payments or top-ups), ${r.attempts} attempts: ${r.cut} cut, ${r.unavailable} answered 503 and retried with their requestId`,
    `  link faults: ${f.heldRequests} held requests, ${f.heldReplies} held replies, ${f.cut} cut connections, ${f.lostReplies} lost replies, ${f.stalls} stalls`,
    `  final answers: ${answered}`,
    `  money: ${v.deductionsWithoutService} deductions without service, ${v.servicesWithoutDeduction} services without deduction, ${v.chargedTwice} requests charged twice; ${v.succeededPaymentIntents} PaymentIntents succeeded`,
    `  server log: ${log.lines} lines (${[...log.byCode].map(([code, n]) => `${n}× ${code}`).join(', ') || 'none'})`,
    `  violations: ${v.violations.length}${v.violations.length ? `\n    ${v.violations.slice(0, 20).join('\n    ')}` : ''}`,
    `  wall time: ${(r.wallMs / 1000).toFixed(1)} s`,
  ].join('\n');
}

console.log(`credit402 fault load: seed ${seed}, ${seconds} s of faults per store, ${workers} clients at once`);
let passed = 0;
let failed = 0;
for (const store of stores) {
  const log = tallyStderr();
  const report = await runFaultLoad(store, { seconds, workers, seed }, (line) => console.log(line)).finally(() => log.stop());
  console.log(summary(report, log.tally));
  // Three checks per store: deductions all served, services all deducted, every other money rule (charges, credits, answers).
  const checks = [report.verdict.deductionsWithoutService === 0, report.verdict.servicesWithoutDeduction === 0, report.verdict.violations.length === 0];
  passed += checks.filter(Boolean).length;
  failed += checks.filter((ok) => !ok).length;
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
