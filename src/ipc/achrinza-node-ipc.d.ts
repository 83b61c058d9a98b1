// The part of @achrinza/node-ipc 10.1.11 that ai-zen uses (the package ships no types).
// Only rawBuffer mode is used: see frame-decoder.ts for why.
declare module '@achrinza/node-ipc' {
  import type net from 'node:net';

  interface NodeIpcConfig {
    appspace: string;
    socketRoot: string;
    id: string;
    encoding: BufferEncoding;
    rawBuffer: boolean;
    sync: boolean;
    unlink: boolean;
    delimiter: string;
    silent: boolean;
    logger: (...args: unknown[]) => void;
    maxConnections: number;
    retry: number;
    maxRetries: number | boolean;
    stopRetrying: boolean;
    readableAll: boolean;
    writableAll: boolean;
  }

  interface PubSub {
    on(type: string, handler: (...args: any[]) => void): this;
    off(type: string, handler: ((...args: any[]) => void) | '*'): this;
  }

  interface NodeIpcServer extends PubSub {
    /** The net.Server, once started. */
    server: net.Server | false;
    sockets: net.Socket[];
    start(): void;
    stop(): void;
    /** In rawBuffer mode writes `data` as is. */
    emit(socket: net.Socket, data: string | Buffer): void;
  }

  interface NodeIpcClient extends PubSub {
    socket: net.Socket | false;
    /** In rawBuffer mode writes `data` as is. */
    emit(data: string | Buffer): void;
  }

  export class IPCModule {
    config: NodeIpcConfig;
    server: NodeIpcServer | false;
    of: Record<string, NodeIpcClient>;
    serve(path: string, callback?: () => void): void;
    connectTo(id: string, path: string, callback?: () => void): void;
    disconnect(id: string): void;
  }

  const singleton: IPCModule;
  export default singleton;
}
