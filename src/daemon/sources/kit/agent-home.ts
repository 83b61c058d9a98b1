// Where an agent keeps its own files: the folder its own environment variable names, else a folder
// under the user's home — HOME as the agent's process sees it, else the OS's. Each agent names only
// its variable and its folder.
import path from 'node:path';
import { type Env, homeFolder } from '../../../paths.js';

/** `$variable` resolved (a leading `~` as the home when the client expands it itself: `tilde`), else `<home>/<underHome>`. */
export function agentHome(env: Env, variable: string, underHome: string, tilde = false): string {
  const named = env[variable];
  const home = homeFolder(env);
  if (!named) return path.join(home, underHome);
  return path.resolve(tilde ? named.replace(/^~(?=\/|$)/, home) : named);
}
