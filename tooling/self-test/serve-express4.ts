// `credit402 serve` on Express 4 (the `express4` npm alias of the repository): checks the Express adapter on both majors.
import express4 from 'express4';
import { serveCommand } from 'credit402/internal/cli/serve-command';

const [command, ...args] = process.argv.slice(2);
if (command !== 'serve') {
  console.error('usage: serve-express4.ts serve [credit402 serve options; --framework is express]');
  process.exit(2);
}
const code = await serveCommand(['--framework', 'express', ...args.filter((arg, i, all) => arg !== '--framework' && all[i - 1] !== '--framework')], {
  express: express4,
});
if (code !== undefined) process.exit(code);
