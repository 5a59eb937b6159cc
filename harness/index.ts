// Public entry of the credit402 conformance kit: run the suite (servers or clients) from code, read the profile, compute the coverage matrix.
export { runConformance, type RunEnvironment } from './runner/run.ts';
export { parseRunnerArgs, UsageError, type RunOptions, type TargetChoice } from './runner/cli-options.ts';
export { runClientConformance, type ClientRunEnvironment } from './runner/client-run.ts';
export { parseClientArgs, type ClientRunOptions } from './runner/client-options.ts';
export { PROFILE_PATH, readProfile, profileComment, type ConformanceProfile } from './runner/profile.ts';
export { runCoverage } from './coverage.ts';
export { SPEC_PATH, readRequirements } from './report/spec-requirements.ts';
