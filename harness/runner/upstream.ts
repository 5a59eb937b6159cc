// Starts the kit's controlled upstream for a run that declares the `gateway` capability, and stops it with the run.
import { ControlledUpstream, setRunUpstream } from '../world/controlled-upstream.ts';
import { loadProfile } from '../world/parameters.ts';
import type { Teardown } from './teardown.ts';

/**
 * Starts the upstream serving the handlers of the profile at `profilePath` on a free port of 127.0.0.1, makes it the
 * run's (the scenarios of this process control it), and registers its stop on `teardown`.
 */
export async function startRunUpstream(profilePath: string, teardown: Teardown): Promise<ControlledUpstream> {
  const upstream = await ControlledUpstream.start(loadProfile(profilePath));
  setRunUpstream(upstream);
  teardown.add('the controlled upstream', async () => {
    setRunUpstream(undefined);
    await upstream.close();
  });
  return upstream;
}
