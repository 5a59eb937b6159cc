// Scenario hooks: journal position at start, failure transcript, faults cleared, generous step timeout.
import { After, Before, setDefaultTimeout, Status } from '@cucumber/cucumber';
import { formatTranscript } from './transcript.ts';
import type { ConformanceWorld } from './world.ts';

setDefaultTimeout(60_000);

Before(async function (this: ConformanceWorld, { pickle }) {
  await this.start(pickle.name, pickle.tags.map((tag) => tag.name));
});

After(async function (this: ConformanceWorld, { result }) {
  if (result?.status === Status.FAILED && this.processor) {
    let journal;
    try {
      journal = await this.processor.scenarioEntries();
    } catch (error) {
      journal = `journal unavailable: ${error instanceof Error ? error.message : String(error)}`;
    }
    const text = formatTranscript({
      scenario: this.scenarioName,
      requirementIds: this.tags.filter((tag) => tag.startsWith('@CR-')).map((tag) => tag.slice(1)),
      notes: this.notes,
      exchanges: this.target.exchanges,
      journal,
    });
    this.attach(text, 'text/plain');
  }
  await this.processor?.finish();
});
