// Self-test target (`--target-cmd`): takes every latitude the wire level grants (see freedom-target.ts, spec Appendix C).
import { startFreedom } from './freedom-target.ts';
import { runSelfTestTarget } from './run-self-test-target.ts';

await runSelfTestTarget('freedom', startFreedom);
