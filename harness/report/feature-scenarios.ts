// Reads the scenarios of Gherkin feature files with @cucumber/gherkin: name, location and inherited tags.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { generateMessages } from '@cucumber/gherkin';
import { IdGenerator, SourceMediaType } from '@cucumber/messages';

/** One runnable scenario (one per example row of an outline). */
export interface FeatureScenario {
  uri: string;
  line: number;
  feature: string;
  name: string;
  /** Tags including those inherited from the feature, rule and examples, with their `@`. */
  tags: string[];
}

/** Parses one feature file's text; throws on a Gherkin syntax error. */
export function parseFeatureScenarios(text: string, uri: string): FeatureScenario[] {
  const envelopes = generateMessages(text, uri, SourceMediaType.TEXT_X_CUCUMBER_GHERKIN_PLAIN, {
    includeGherkinDocument: true,
    includePickles: true,
    includeSource: false,
    newId: IdGenerator.incrementing(),
  });
  let feature = '';
  const scenarios: FeatureScenario[] = [];
  for (const envelope of envelopes) {
    if (envelope.parseError) throw new Error(`${uri}: ${envelope.parseError.message}`);
    if (envelope.gherkinDocument) feature = envelope.gherkinDocument.feature?.name ?? '';
    const pickle = envelope.pickle;
    if (pickle) {
      scenarios.push({ uri, line: pickle.location?.line ?? 0, feature, name: pickle.name, tags: pickle.tags.map((tag) => tag.name) });
    }
  }
  return scenarios;
}

/** Every `.feature` file under `dir` (recursively), parsed; URIs are relative to `root`. */
export function readFeatureScenarios(dir: string, root: string): FeatureScenario[] {
  let files: string[];
  try {
    files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.feature')).sort();
  } catch {
    return [];
  }
  return files.flatMap((file) => {
    const path = join(dir, file);
    return parseFeatureScenarios(readFileSync(path, 'utf8'), relative(root, path));
  });
}
