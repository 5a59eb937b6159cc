// Self-test target (`--target-cmd`): follows the stripe402 source, deciding its open points unlike credit402 (see source-following-target.ts).
import { runSelfTestTarget } from './run-self-test-target.ts';
import { startSourceFollowing } from './source-following-target.ts';

await runSelfTestTarget('source-following', startSourceFollowing);
