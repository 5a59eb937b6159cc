// Command-line options of `credit402-conformance client`: parsing, checking and the usage text.
import type { ScriptedServerPorts } from '../client/scripted-server.ts';
import { CLIENT_CAPABILITIES, DeclarationError, parseDeclarations, parseDeclareItems, type Declarations } from '../world/declarations.ts';
import type { Level } from '../world/levels.ts';
import { integer, KIT, levelOption, type ParsedValues, parseKitArgs, tagsOption, UsageError } from './cli-options.ts';

export const CLIENT_USAGE = `usage: ${KIT} client --client-cmd "CMD" [options]

Judges an HTTP client of credit402 (spec section 16): runs the client suite (features/client/*.feature)
against the kit's own scripted 402 server, making every call through the client's driver. No Stripe
emulator is needed.

client (required)
  --client-cmd "CMD"    start the client's driver through the shell, in the current directory, with
                        CREDIT402_CLIENT_STATE (an empty directory for the client's persisted state,
                        removed after the run) in its environment; it speaks JSON lines on stdin and
                        stdout (harness/docs/client-driver.md) and its stderr goes to client.log

levels and declarations
  --level L             judge up to level L: wire, strict (default) or robust (default when the
                        driver declares robustness=true)
  --declare KEY=VALUE   what the driver's client offers (repeatable): capabilities=spending-limit
                        (a limit on what it pays, CR-16.11), robustness=true (it keeps its clientIds
                        across restarts, CR-16.17)

scripted server
  --server-a-port N     the port of the kit's server A (0 = any free port, the default)
  --server-b-port N     the port of server B (0 = any free port, the default); the two origins
                        listen on 127.0.0.1, on two different ports

suite
  --tags "EXPR"         cucumber tag expression, e.g. "@CR-16.8 or @CR-16.9"
  --reports DIR         where the reports go (default: reports, in the current directory)
  -h, --help            print this text and exit

Reports, in the reports directory: client-conformance.html (levels, failures with the requests the
kit's server received and the driver's replies, the client requirement matrix),
client-conformance-summary.json, client-conformance.junit.xml, client-conformance.json (cucumber's)
and the driver's stderr (client.log).
Exit code 0 when no scenario failed; 1 when a scenario failed or the driver broke its contract;
2 when the run could not start.`;

/** Options of one client run. */
export interface ClientRunOptions {
  /** The driver's shell command. */
  command: string;
  tags?: string;
  /** Directory of the report files, relative to the current directory unless absolute. */
  reportsDir: string;
  /** The highest level judged. */
  level: Level;
  /** What the driver declares: robustness and client capabilities only. */
  declarations: Declarations;
  /** The ports the scripted server's origins listen on (absent: a free port each). */
  serverPorts?: ScriptedServerPorts;
}

/** What `client` was asked to do. */
type ClientCommand = { kind: 'help' } | { kind: 'run'; options: ClientRunOptions };

/** The driver's declarations: `robustness` and the client capabilities; the server declarations are refused. */
function clientDeclarations(items: readonly string[]): Declarations {
  let declarations: Declarations;
  try {
    declarations = parseDeclarations(parseDeclareItems(items));
  } catch (error) {
    throw new UsageError(error instanceof DeclarationError ? error.message : String(error));
  }
  const serverOnly = Object.keys(declarations).filter((key) => key !== 'robustness' && key !== 'capabilities');
  if (serverOnly.length > 0) throw new UsageError(`a client declares robustness and capabilities only; ${serverOnly.join(', ')} are servers'`);
  const wrong = (declarations.capabilities ?? []).filter((capability) => !CLIENT_CAPABILITIES.includes(capability));
  if (wrong.length > 0) throw new UsageError(`capabilities of servers, not clients: ${wrong.join(', ')}; a client declares ${CLIENT_CAPABILITIES.join(', ')}`);
  return declarations;
}

/** Parses the arguments of `client`; throws a UsageError on a mistake. */
export function parseClientArgs(args: readonly string[]): ClientCommand {
  const values = parseKitArgs(args, {
    'client-cmd': { type: 'string' },
    tags: { type: 'string' },
    reports: { type: 'string' },
    level: { type: 'string' },
    declare: { type: 'string', multiple: true },
    'server-a-port': { type: 'string' },
    'server-b-port': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return { kind: 'help' };
  const command = values['client-cmd'];
  if (typeof command !== 'string') throw new UsageError('say which client to check: --client-cmd "CMD" starts its driver');
  if (command.trim() === '') throw new UsageError('--client-cmd needs a command');
  const declarations = clientDeclarations((values.declare as string[] | undefined) ?? []);
  const level = levelOption(values, declarations);
  const serverPorts = scriptedServerPorts(values);
  return {
    kind: 'run',
    options: {
      command,
      ...tagsOption(values),
      reportsDir: (values.reports as string | undefined) || 'reports',
      level,
      declarations,
      ...(Object.keys(serverPorts).length > 0 ? { serverPorts } : {}),
    },
  };
}

/** The ports of `--server-a-port` and `--server-b-port` that name one (0 and absent: a free port); two origins, two ports. */
function scriptedServerPorts(values: ParsedValues): ScriptedServerPorts {
  const a = integer('server-a-port', values['server-a-port'] as string | undefined, 0, 65535);
  const b = integer('server-b-port', values['server-b-port'] as string | undefined, 0, 65535);
  if (a !== undefined && a !== 0 && a === b) throw new UsageError(`servers A and B are two origins: give them two ports, not ${a} twice`);
  return { ...(a ? { A: a } : {}), ...(b ? { B: b } : {}) };
}
