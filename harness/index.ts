// Public entry of the credit402 conformance kit: run the suite from code, read the profile, compute the coverage matrix.
export { runConformance, type RunEnvironment } from './runner/run.ts';
export { parseRunnerArgs, UsageError, type RunOptions, type TargetChoice } from './runner/cli-options.ts';
export { PROFILE_PATH, readProfile, profileComment, type ConformanceProfile } from './runner/profile.ts';
export { runCoverage } from './coverage.ts';
export { SPEC_PATH, readRequirements } from './report/spec-requirements.ts';
