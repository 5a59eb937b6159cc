// Renders one failed scenario for the console: requirement IDs, where it is, the failing step, its error, the transcript.

/** A text attachment of the scenario (the World's transcript, logs). */
export interface TextAttachment {
  mediaType: string;
  text: string;
}

/** Everything printed about one failed scenario. */
export interface ScenarioFailure {
  requirementIds: string[];
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
  const ids = failure.requirementIds.length > 0 ? failure.requirementIds.join(' ') : '(no requirement tag)';
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
