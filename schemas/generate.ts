// `npm run schemas`: regenerates schemas/*.schema.json from the JSDoc of reference/protocol/types.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchemas, SCHEMAS_DIR } from './build.ts';

for (const [file, text] of Object.entries(buildSchemas())) {
  writeFileSync(join(SCHEMAS_DIR, file), text);
  console.log(`wrote schemas/${file}`);
}
