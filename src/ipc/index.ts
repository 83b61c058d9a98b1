export * from './protocol.js';
export { startIpcServer, type IpcHandlers, type IpcServer, type IpcServerOptions } from './server.js';
export { connectIpc, IpcRequestError, type ConnectOptions, type IpcClient } from './client.js';
export { socketPathFor, MAX_SOCKET_PATH_BYTES } from './socket-path.js';
