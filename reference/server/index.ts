// Public entry of the reference server: start it from code with the same configuration as `credit402 serve`, and add store kinds to it.
export { startReferenceServer, type RunningServer, type EmbeddedEmulator, type ServerInjections } from './start-server.ts';
export { loadServerConfig, type ServerConfig, type StoreConfig, type Framework } from '../compose/engine-config.ts';
export { registerStoreDescriptor, type RegisteredStores } from '../stores/descriptors.ts';
export type { StoreDescriptor, StoreFlag, ExclusiveField } from '../stores/descriptor.ts';
