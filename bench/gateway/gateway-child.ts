// Bench child process: runs `credit402 gateway` as its command does (loadGatewayConfig + startGateway) from the JSON config file in argv[2]; argv[3], when given, is the reference/ folder of another checkout whose gateway runs instead (--gateway-baseline).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as GatewayConfigModule from '../../reference/gateway/gateway-config.ts';
import type * as StartGatewayModule from '../../reference/gateway/start-gateway.ts';
import { serveParent } from '../child-ipc.ts';

const referenceDir = process.argv[3] === undefined ? new URL('../../reference/', import.meta.url) : pathToFileURL(`${resolve(process.argv[3])}/`);
const { loadGatewayConfig } = (await import(new URL('gateway/gateway-config.ts', referenceDir).href)) as typeof GatewayConfigModule;
const { startGateway } = (await import(new URL('gateway/start-gateway.ts', referenceDir).href)) as typeof StartGatewayModule;

// As `credit402 gateway --config F`, with an empty environment so nothing outside the file changes the gateway.
const config = loadGatewayConfig({ configPath: process.argv[2] ?? '', env: {} });
const gateway = await startGateway(config);
serveParent({ url: gateway.url }, () => gateway.close());
