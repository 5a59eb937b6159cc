// Bench child process: runs the Stripe emulator on a free loopback port.
import { startEmulator } from 'credit402-stripe-emulator';
import { serveParent } from './child-ipc.ts';

const emulator = await startEmulator({ port: 0 });
serveParent({ url: emulator.url, controlUrl: emulator.controlUrl, port: emulator.port }, () => emulator.close());
