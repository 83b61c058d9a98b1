// A real child process that listens on TCP and says so on stdout, for the port probe tests.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ListeningServer {
  readonly pid: number;
  /** Port of the IPv4 listener. */
  readonly port: number;
  /** Port of the IPv6 listener, null when the machine has no IPv6 loopback. */
  readonly port6: number | null;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const PROGRAM = `
const http = require('node:http');
const v4 = http.createServer().listen(0, '127.0.0.1', () => {
  const v6 = http.createServer();
  v6.on('error', () => console.log(JSON.stringify({ port: v4.address().port, port6: null })));
  v6.listen(0, '::1', () => console.log(JSON.stringify({ port: v4.address().port, port6: v6.address().port })));
});
`;

/** Starts the server with `cwd` as its working directory; resolves once it has printed its ports. */
export async function startListeningServer(cwd: string): Promise<ListeningServer> {
  const child = spawn(process.execPath, ['-e', PROGRAM], { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  const ports = await new Promise<{ port: number; port6: number | null }>((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolve(JSON.parse(buffered.slice(0, newline)) as { port: number; port6: number | null });
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server exited early with code ${code}`)));
  });
  const stop = (): Promise<void> => stopChild(child);
  return { pid: child.pid ?? -1, ...ports, stop, [Symbol.asyncDispose]: stop };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}
