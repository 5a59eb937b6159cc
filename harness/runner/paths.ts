// Absolute locations the runner needs: the repository root and tsx's loader (for Node processes it starts).
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root, with a trailing slash. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `file:` URL of tsx's loader, for `node --import <it>` and NODE_OPTIONS. */
export const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
