// Renders one failed scenario for the console: requirement IDs, where it is, the failing step, its error, the transcript.

/** A text attachment of the scenario (the World's transcript, logs). */
export interface TextAttachment {
  mediaType: string;
  text: string;
}

/** Everything printed about one failed scenario. */
export interface ScenarioFailure {
  /** The scenario's tags. */
  requirementIds: string[];
  /** The IDs its failed checks named (all its IDs when a failure named none). */
  failedIds?: string[];
  /** Its IDs the failure stopped it from judging. */
  notReachedIds?: string[];
  /** The level of an ID, shown next to it. */
  levelOf?: (id: string) => string;
  feature: string;
  scenario: string;
  /** `features/x.feature:12`. */
  location: string;
  /** `When the client pays with …`, or the hook's name. */
  step: string;
  status: string;
  message: string;
  attachments: TextAttachment[];
}

const indent = (text: string, prefix: string): string =>
  text
    .replace(/\s+$/, '')
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');

/** The block printed for a failure; `number` counts failures in the run. */
export function formatFailure(failure: ScenarioFailure, number: number): string {
  const named = (ids: readonly string[]): string => ids.map((id) => (failure.levelOf ? `${id} [${failure.levelOf(id)}]` : id)).join(' ');
  const tagged = failure.requirementIds.length > 0 ? failure.requirementIds.join(' ') : '(no requirement tag)';
  const notReached = failure.notReachedIds?.length ? `; not reached: ${failure.notReachedIds.join(' ')}` : '';
  const ids = failure.failedIds ? `failed: ${named(failure.failedIds)}${notReached}` : tagged;
  const lines = [
    `✗ ${number}) ${ids}`,
    `  ${failure.feature} › ${failure.scenario}`,
    `  ${failure.location}`,
    `  ${failure.status === 'FAILED' ? 'failed at' : `${failure.status.toLowerCase()}:`} ${failure.step}`,
    indent(failure.message || '(no message)', '    '),
  ];
  for (const attachment of failure.attachments) {
    lines.push(`  --- ${attachment.mediaType} attachment ---`, indent(attachment.text, '  | '));
  }
  return `${lines.join('\n')}\n`;
}
