// The command line of a command that listens (`serve`, `gateway`): the flags they share and the command's own, parsed.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { LISTENER_FLAGS, SOURCE_FLAGS } from './command-options.ts';

/** The flags a listening command parses: the shared ones and its `Own`. */
type ListenerOptions<Own> = typeof SOURCE_FLAGS & typeof LISTENER_FLAGS & Own;

/** Parses `args` with {@link SOURCE_FLAGS}, {@link LISTENER_FLAGS} and the command's `own` flags; throws on a flag none of them has. */
export function parseListenerArgs<const Own extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  own: Own,
): ReturnType<typeof parseArgs<{ args: string[]; options: ListenerOptions<Own> }>>['values'] {
  return parseArgs({ args, options: { ...SOURCE_FLAGS, ...LISTENER_FLAGS, ...own } }).values;
}
