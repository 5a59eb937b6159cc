// Builds the three header JSON Schemas from the JSDoc-annotated wire types (typescript-json-schema, TypeScript 5).
import { fileURLToPath } from 'node:url';
import TJS from 'typescript-json-schema';

const TYPES_FILE = fileURLToPath(new URL('../reference/protocol/types.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SCHEMAS_DIR = fileURLToPath(new URL('./', import.meta.url));
export const SCHEMA_BASE_URL = 'https://credit402.dev/schemas/';

/** Generated file name → root type in reference/protocol/types.ts. */
export const SCHEMA_FILES = {
  'payment.schema.json': 'PaymentPayload',
  'payment-required.schema.json': 'PaymentRequiredResponse',
  'payment-response.schema.json': 'PaymentResponse',
} as const;
export type SchemaFile = keyof typeof SCHEMA_FILES;

/**
 * Compiler options for the TypeScript copy typescript-json-schema bundles (TypeScript 7 has no compiler API).
 * Bundler resolution keeps definition names plain (`PaymentRequirement`): NodeNext would embed the absolute path.
 */
const COMPILER_OPTIONS = {
  strict: true,
  target: 'ES2022',
  module: 'ESNext',
  moduleResolution: 'Bundler',
  allowImportingTsExtensions: true,
  noEmit: true,
  skipLibCheck: true,
  types: [],
};

/** JSON Schema keywords the JSDoc may carry beyond typescript-json-schema's built-in ones. */
const EXTRA_KEYWORDS = ['if', 'then', 'else', 'dependencies', 'const', 'not'];

/** Recursively sorts object keys (arrays keep their order), so the output is byte-stable. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, inner]) => [key, sortKeys(inner)]));
}

/** Generates the schema files' exact text, keyed by file name; throws on a type error in types.ts. */
export function buildSchemas(): Record<SchemaFile, string> {
  const program = TJS.getProgramFromFiles([TYPES_FILE], COMPILER_OPTIONS, ROOT);
  const generator = TJS.buildGenerator(program, {
    required: true,
    strictNullChecks: true,
    validationKeywords: EXTRA_KEYWORDS,
  });
  if (generator === null) throw new Error(`typescript-json-schema could not compile ${TYPES_FILE}`);
  const out = {} as Record<SchemaFile, string>;
  for (const [file, typeName] of Object.entries(SCHEMA_FILES) as Array<[SchemaFile, string]>) {
    const schema = generator.getSchemaForSymbol(typeName);
    const withId = { ...schema, $id: `${SCHEMA_BASE_URL}${file}` };
    out[file] = `${JSON.stringify(sortKeys(withId), null, 2)}\n`;
  }
  return out;
}
