// The FactsProvider every executor and the daemon use: git and ports captured side by side.
import type { Env } from '../paths.js';
import type { Facts, FactsProvider, GitFacts, Known, PortFact } from './facts.js';
import { captureGitFacts } from './git-facts.js';
import { captureListeningPorts } from './ports.js';

export interface FactsProviderOptions {
  readonly root: string;
  readonly now?: () => Date;
  readonly env?: Env;
  /** Probes, replaceable so a caller can cache or stub one side. */
  readonly captureGit?: (root: string) => Promise<Known<GitFacts>>;
  readonly capturePorts?: (root: string) => Promise<Known<readonly PortFact[]>>;
}

export function createFactsProvider(options: FactsProviderOptions): FactsProvider {
  const now = options.now ?? (() => new Date());
  const captureGit = options.captureGit ?? ((root: string) => captureGitFacts(root, { env: options.env }));
  const capturePorts = options.capturePorts ?? ((root: string) => captureListeningPorts(root));
  return {
    async capture(): Promise<Facts> {
      const capturedAt = now().toISOString();
      const [git, ports] = await Promise.all([settle(() => captureGit(options.root)), settle(() => capturePorts(options.root))]);
      return { capturedAt, root: options.root, git, ports };
    },
  };
}

/** A probe never fails the handoff: even an injected one that throws becomes "unknown (why)". */
async function settle<T>(probe: () => Promise<Known<T>>): Promise<Known<T>> {
  try {
    return await probe();
  } catch (error) {
    return { known: false, why: error instanceof Error ? error.message : String(error) };
  }
}
