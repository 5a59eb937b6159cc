// Puts the kit's not-run and inconclusive reasons into cucumber's JUnit XML: `<skipped message="not run: …"/>`.
import type { ScenarioRecord } from './run-summary.ts';

/** A `<testcase>` of the file: where it is and its attributes. */
interface TestCase {
  start: number;
  end: number;
  classname: string;
  name: string;
}

/** Tokens outside CDATA: CDATA sections are skipped whole, so a transcript cannot fake a tag. Attribute values never hold `"`. */
const TOKEN = /<!\[CDATA\[[\s\S]*?\]\]>|<(\/?)(testsuite|testcase|skipped|failure)((?:\s+[\w:.-]+="[^"]*")*)\s*(\/?)>/g;

const OPEN_TESTCASE = /^<testcase(?:\s+[\w:.-]+="[^"]*")*\s*(\/?)>/;
const OPEN_TESTSUITE = /<testsuite(?:\s+[\w:.-]+="[^"]*")*\s*>/;

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#x') || entity.startsWith('#X')) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    return ENTITIES[entity] ?? whole;
  });
}

/** Escapes a value for a double-quoted XML attribute (newlines and tabs too, so they survive attribute normalisation). */
function xmlAttribute(value: string): string {
  return value.replace(/[&<>"\n\r\t]/g, (char) => `&#${char.charCodeAt(0)};`);
}

function attribute(attributes: string, name: string): string {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(attributes);
  return match ? decode(match[1] ?? '') : '';
}

function testCases(xml: string): TestCase[] {
  const found: TestCase[] = [];
  let open: Omit<TestCase, 'end'> | undefined;
  for (const match of xml.matchAll(TOKEN)) {
    const [whole, closing, tag, attributes = '', selfClosing] = match;
    if (tag !== 'testcase') continue;
    if (!closing) {
      open = { start: match.index, classname: attribute(attributes, 'classname'), name: attribute(attributes, 'name') };
      if (selfClosing) {
        found.push({ ...open, end: match.index + whole.length });
        open = undefined;
      }
    } else if (open) {
      found.push({ ...open, end: match.index + whole.length });
      open = undefined;
    }
  }
  return found;
}

/** Whether cucumber's test case name (rule, scenario, examples and `#1.2: pickle` joined by ` - `) is this scenario's. */
function sameName(testCaseName: string, pickleName: string): boolean {
  return testCaseName === pickleName || testCaseName.endsWith(`: ${pickleName}`) || testCaseName.endsWith(` - ${pickleName}`)
    || testCaseName.startsWith(`${pickleName} - `) || testCaseName.includes(` - ${pickleName} - `);
}

const lineOf = (scenario: ScenarioRecord): number => Number(/:(\d+)$/.exec(scenario.location)?.[1] ?? 0);

/** Pairs each scenario with its test case: same feature, same name; scenarios of one name in file order (as cucumber orders them). */
function pair(cases: readonly TestCase[], scenarios: readonly ScenarioRecord[]): Map<TestCase, ScenarioRecord> {
  const ordered = [...scenarios].sort((a, b) => a.featureUri.localeCompare(b.featureUri) || lineOf(a) - lineOf(b));
  const paired = new Map<TestCase, ScenarioRecord>();
  for (const scenario of ordered) {
    const feature = (candidate: TestCase): boolean => !paired.has(candidate) && (candidate.classname === scenario.feature || candidate.classname === scenario.featureUri);
    const match = cases.find((candidate) => feature(candidate) && candidate.name === scenario.name)
      ?? cases.find((candidate) => feature(candidate) && sameName(candidate.name, scenario.name));
    if (match) paired.set(match, scenario);
  }
  return paired;
}

/** The test case with its skipped element carrying the reason; an inconclusive case's failure becomes a skip. */
function withReason(text: string, message: string): string {
  const skipped = `message="${xmlAttribute(message)}"`;
  let replaced = false;
  const rewritten = text.replace(TOKEN, (whole, closing: string | undefined, tag: string | undefined, _attributes, selfClosing: string | undefined) => {
    if (tag === 'skipped' && !closing) {
      replaced = true;
      return `<skipped ${skipped}${selfClosing ? '/' : ''}>`;
    }
    if (tag === 'failure') {
      replaced = true;
      return closing ? '</skipped>' : `<skipped ${skipped}${selfClosing ? '/' : ''}>`;
    }
    return whole;
  });
  if (replaced) return rewritten;
  const open = OPEN_TESTCASE.exec(text);
  if (!open) return text;
  const [tag, selfClosing] = open;
  if (selfClosing) return `${tag.replace(/\s*\/>$/, '>')}\n    <skipped ${skipped}/>\n  </testcase>`;
  return `${tag}\n    <skipped ${skipped}/>${text.slice(tag.length)}`;
}

/** The testsuite's skipped and failures counts, recounted from its test cases. */
function recount(xml: string): string {
  const cases = testCases(xml).map((testCase) => xml.slice(testCase.start, testCase.end));
  const skipped = cases.filter((text) => /<skipped\b/.test(text.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, ''))).length;
  const failures = cases.filter((text) => /<failure\b/.test(text.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, ''))).length;
  return xml.replace(OPEN_TESTSUITE, (tag) => tag.replace(/\sskipped="\d*"/, ` skipped="${skipped}"`).replace(/\sfailures="\d*"/, ` failures="${failures}"`));
}

/**
 * Returns cucumber's JUnit XML with each not-run and inconclusive scenario's reason in its `<skipped message="…">`
 * (`not run: robust level: …`, `inconclusive: the injected fault never fired …`); test cases are matched to the
 * summary's scenarios by feature and name. An inconclusive scenario's `<failure>` becomes a `<skipped>`, since the kit
 * does not count it as failed; the suite's skipped and failures counts follow.
 */
export function addSkipReasons(xml: string, scenarios: readonly ScenarioRecord[]): string {
  const cases = testCases(xml);
  const paired = pair(cases, scenarios);
  let result = '';
  let at = 0;
  let changed = false;
  for (const testCase of cases) {
    const scenario = paired.get(testCase);
    if (!scenario || (scenario.outcome !== 'not-run' && scenario.outcome !== 'inconclusive')) continue;
    const message = `${scenario.outcome === 'not-run' ? 'not run' : 'inconclusive'}: ${scenario.reason ?? 'no reason given'}`;
    result += xml.slice(at, testCase.start) + withReason(xml.slice(testCase.start, testCase.end), message);
    at = testCase.end;
    changed = true;
  }
  return changed ? recount(result + xml.slice(at)) : xml;
}
