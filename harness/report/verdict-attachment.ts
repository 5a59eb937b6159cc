// Attachments a scenario leaves when the kit cannot judge it (not run, inconclusive) or could not check something (a notice).

/** Media type of the attachment. */
export const VERDICT_MEDIA_TYPE = 'application/vnd.credit402.verdict+json';

/** Why a scenario gives no pass/fail verdict. */
export interface VerdictNote {
  verdict: 'not-run' | 'inconclusive';
  reason: string;
}

/** The attachment body of a note. */
export function verdictBody(note: VerdictNote): string {
  return JSON.stringify(note);
}

/** Reads a note back; undefined for anything else. */
export function parseVerdict(body: string): VerdictNote | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { verdict, reason } = value as Record<string, unknown>;
  if ((verdict !== 'not-run' && verdict !== 'inconclusive') || typeof reason !== 'string') return undefined;
  return { verdict, reason };
}

/** Media type of the requirement IDs whose checks were made in a scenario (passed or failed). */
export const CHECKS_MEDIA_TYPE = 'application/vnd.credit402.checks+json';

/** The attachment body of the IDs a scenario checked. */
export function checksBody(ids: Iterable<string>): string {
  return JSON.stringify({ checked: [...ids].sort() });
}

/** Reads the checked IDs back; undefined for anything else. */
export function parseChecks(body: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(body);
    const checked = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).checked : undefined;
    return Array.isArray(checked) && checked.every((id) => typeof id === 'string') ? checked : undefined;
  } catch {
    return undefined;
  }
}

/** Media type of a notice: something the kit could not check in a scenario that it still judged (e.g. handler runs). */
export const NOTICE_MEDIA_TYPE = 'application/vnd.credit402.notice+json';

/** The attachment body of a notice. */
export function noticeBody(text: string): string {
  return JSON.stringify({ notice: text });
}

/** Reads a notice back; undefined for anything else. */
export function parseNotice(body: string): string | undefined {
  try {
    const value: unknown = JSON.parse(body);
    const notice = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).notice : undefined;
    return typeof notice === 'string' ? notice : undefined;
  } catch {
    return undefined;
  }
}
