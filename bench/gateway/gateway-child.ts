// Bench child process: runs `credit402 gateway` as its command does (loadGatewayConfig + startGateway) from the JSON config file in argv[2].
import { loadGatewayConfig } from '../../reference/gateway/gateway-config.ts';
import { startGateway } from '../../reference/gateway/start-gateway.ts';
import { serveParent } from '../child-ipc.ts';

// As `credit402 gateway --config F`, with an empty environment so nothing outside the file changes the gateway.
const config = loadGatewayConfig({ configPath: process.argv[2] ?? '', env: {} });
const gateway = await startGateway(config);
serveParent({ url: gateway.url }, () => gateway.close());
