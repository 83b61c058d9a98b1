// `ai-zen-daemon doctor [--json]`: what keeps ai-zen from protecting this user's
// repos, each with its fix — stale hooks, dead sockets, untrusted repos, config errors, a wrong
// Node, the hook shim, the login service. Exit 0 when nothing needs fixing, 1 otherwise (with one
// line on stderr, as every failing command).
import type { Command } from 'commander';
import { AiZenError } from '../../errors.js';
import { hookShimPath } from '../../paths.js';
import { daemonRoot } from '../shared/daemon-client.js';
import { checkConfig, checkNode, checkService, checkShim, checkSockets, checkTrustOf } from './doctor-checks.js';
import type { Finding } from './doctor-finding.js';
import { checkHooks } from './doctor-hooks.js';
import { writeOut, type CliSetup } from '../shared/run-cli.js';

export async function runDoctor(setup: CliSetup): Promise<Finding[]> {
  const { env, cwd } = setup.io;
  // Outside any repo (or in a bare one) the user-wide checks still run.
  const root = await daemonRoot(cwd, env).catch(() => null);
  const config = await checkConfig(root, env);
  const hooks = await checkHooks(root, env);
  const service = await checkService(env);
  // A missing shim matters only to what runs it: hooks, the service, an agent's start in an enabled repo.
  const needed = hooks.namesShim || service.length > 0 || config.enabled.global || config.enabled.repos.length > 0;
  const trustRoots = [...new Set([...(root ? [root] : []), ...config.enabled.repos])];
  return [
    ...(await checkNode(env)),
    ...(await checkShim(env, needed, hookShimPath(env))),
    ...hooks.findings,
    ...(await checkSockets(env, trustRoots)),
    ...(await checkTrustOf(trustRoots, env)),
    ...config.findings,
    ...service,
  ];
}

const LABEL: Record<Finding['status'], string> = { ok: 'ok     ', note: 'note   ', problem: 'PROBLEM' };

export function renderFindings(findings: readonly Finding[]): string {
  const lines = findings.flatMap((finding) => [
    `${LABEL[finding.status]}  ${finding.check.padEnd(8)} ${finding.message}`,
    ...(finding.fix ? [`${' '.repeat(18)}fix: ${finding.fix}`] : []),
  ]);
  const problems = findings.filter((finding) => finding.status === 'problem').length;
  lines.push(problems === 0 ? 'healthy: nothing to fix' : `${problems} to fix (each with its fix above)`);
  return `${lines.join('\n')}\n`;
}

export function registerDoctorCommand(program: Command, setup: CliSetup): void {
  program
    .command('doctor')
    .description(
      'find what keeps ai-zen from working here (stale hooks, dead sockets, untrusted repos, config errors, Node, the service), each with its fix',
    )
    .option('--json', 'one JSON object, for scripts')
    .action(async (options: { json?: boolean }) => {
      const findings = await runDoctor(setup);
      const problems = findings.filter((finding) => finding.status === 'problem').length;
      await writeOut(
        setup.io.stdout,
        options.json ? `${JSON.stringify({ healthy: problems === 0, findings }, null, 2)}\n` : renderFindings(findings),
      );
      if (problems > 0) throw new AiZenError('config', `doctor: ${problems} thing${problems === 1 ? '' : 's'} to fix`);
    });
}
