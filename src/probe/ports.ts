// Listening TCP ports (v4 and v6) of processes running from the project (D2, X2).
// Unreadable processes are skipped; a probe that cannot run says why and never throws.
import type { Known, PortFact } from './facts.js';
import { listeningPortsFromLsof, type RunLsof } from './ports-lsof.js';
import { listeningPortsFromProc } from './ports-linux.js';

export interface CaptureListeningPortsOptions {
  readonly platform?: NodeJS.Platform;
  /** Where procfs is mounted (Linux). */
  readonly proc?: string;
  readonly runLsof?: RunLsof;
}

export async function captureListeningPorts(root: string, options: CaptureListeningPortsOptions = {}): Promise<Known<readonly PortFact[]>> {
  const platform = options.platform ?? process.platform;
  try {
    if (platform === 'linux') return await listeningPortsFromProc(root, options.proc);
    if (platform === 'darwin') return await listeningPortsFromLsof(root, options.runLsof);
    return { known: false, why: `listening ports are not probed on ${platform}` };
  } catch (error) {
    return { known: false, why: `port probe failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}
