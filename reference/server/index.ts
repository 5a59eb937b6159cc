// Public entry of the reference server: start it from code with the same configuration as `credit402 serve`.
export { startReferenceServer, type RunningServer, type EmbeddedEmulator } from './start-server.ts';
export { loadServerConfig, type ServerConfig, type StoreConfig } from '../compose/engine-config.ts';
