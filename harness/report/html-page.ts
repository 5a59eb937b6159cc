// Building blocks of the kit's HTML pages: escaping, the page shell, status badges, requirement and level verdicts.
import { FILTER_SCRIPT, STYLES } from './html-styles.ts';
import type { LevelVerdict, RequirementVerdict } from './run-summary.ts';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A requirement's verdict in one run; `not-run` when the run judged no scenario of it. */
export type RequirementStatus = 'passed' | 'failed' | 'not-reached' | 'inconclusive' | 'not-run';

/** The words shown for a status. */
export const STATUS_LABEL: Record<RequirementStatus, string> = {
  passed: 'passed',
  failed: 'failed',
  'not-reached': 'not reached',
  inconclusive: 'inconclusive',
  'not-run': 'not run',
};

/** An ID fails when a check naming it failed; else passes when a scenario judged it; else not reached, inconclusive or not run. */
export function requirementStatus(verdict: RequirementVerdict | undefined): RequirementStatus {
  if (!verdict) return 'not-run';
  if (verdict.failed > 0) return 'failed';
  if (verdict.passed > 0) return 'passed';
  if (verdict.notReached > 0) return 'not-reached';
  return verdict.inconclusive > 0 ? 'inconclusive' : 'not-run';
}

/** A coloured status label. */
export function badge(status: string, label: string = status): string {
  return `<span class="badge s-${escapeHtml(status)}">${escapeHtml(label)}</span>`;
}

/** A level's verdict as a status (claimed, not-claimed, not-declared, not-run, none) and its words. */
export function levelState(verdict: LevelVerdict): { state: string; label: string; detail?: string } {
  if (verdict.total === undefined) {
    const note = verdict.note ?? 'not run';
    return note.startsWith('not declared') ? { state: 'not-declared', label: 'not declared' } : { state: 'not-run', label: 'not run', detail: note };
  }
  if (verdict.total === 0 && !verdict.inconclusive) return { state: 'none', label: 'no scenario of this level in this run' };
  if (verdict.claimed) return { state: 'claimed', label: 'claimed' };
  const histories = verdict.historyFailed?.length ? { detail: `generated histories failed ${verdict.historyFailed.join(' ')}` } : {};
  return { state: 'not-claimed', label: 'not claimed', ...histories };
}

/** What stripe402, which the wire level and `stripe402Version` name, is (spec §0, the seed). */
export const STRIPE402 =
  'stripe402 is the deployed pay-per-request system (HTTP 402 credit middleware) that credit402 is wire-compatible with: the wire level follows its v1 source, and stripe402Version is the version of the protocol it speaks.';

/** What each level means (spec §0). */
export const LEVEL_MEANING: Record<string, string> = {
  wire: 'what the stripe402 source states',
  strict: "credit402's decisions",
  robust: 'the robustness profile (§14)',
};

/** A whole self-contained page: inline styles, and the filter script when the body has a filter form. */
export function htmlPage(title: string, body: string): string {
  const script = body.includes('id="filters"') ? `<script>${FILTER_SCRIPT}</script>\n` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLES}</style>
</head>
<body>
<main>
${body}
</main>
${script}</body>
</html>
`;
}
