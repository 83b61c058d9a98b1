// `npm run bench:fidelity`: drives ai-zen's real agent, tools, session file and migration pipeline
// with a scripted model in real temp repos (bench/fidelity-scenarios.ts), then measures each
// executor's document against the ground truth, and how the checks (F1–F4) treat correct documents
// and documents with planted defects. Writes bench/FIDELITY.md.
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent } from '../dist/agent/agent.js';
import { createModelClient } from '../dist/agent/model-client.js';
import { systemPrompt } from '../dist/agent/system-prompt.js';
import { createTools } from '../dist/agent/tools/index.js';
import { documentSections } from '../dist/handoff/checks/document-sections.js';
import { MigrationService } from '../dist/handoff/migration-service.js';
import { MINIMAL_TEMPLATE } from '../dist/handoff/minimal-template.js';
import { sectionHeadings } from '../dist/handoff/parse-skill.js';
import { projectPaths } from '../dist/paths.js';
import { createFactsProvider } from '../dist/probe/capture-facts.js';
import { ConversationContext } from '../dist/session/conversation-context.js';
import type { HandoffChecks } from '../dist/session/format.js';
import { changedFiles, requestsOf, SCENARIOS, type Scenario } from './fidelity-scenarios.js';
import { startScriptedModel, type ScriptedHandler, type ScriptedModel, type ScriptedRequest } from './scripted-model.js';
import { renderNextActions, runNextActions } from './next-actions-bench.js';
import { makeBenchProject, type BenchProject } from './temp-project.js';

const MODEL = 'bench-model';
const MARK = '[ai-zen handoff]';
const FACTS_INTRO = 'Facts captured by code just now (use them; do not invent others):';
/** The nine headings, read from the template the product writes by. */
const HEADINGS = sectionHeadings(MINIMAL_TEMPLATE);

type Executor = 'offline' | 'summary' | 'self';
type Defect = 'forgotten file' | 'wrong branch' | 'missing section' | 'unrunnable command' | 'destructive command' | 'invented port';
const DEFECTS: readonly Defect[] = [
  'forgotten file',
  'wrong branch',
  'missing section',
  'unrunnable command',
  'destructive command',
  'invented port',
];

interface Recall {
  readonly found: number;
  readonly total: number;
}
interface DocumentResult {
  readonly scenario: string;
  readonly executor: Executor;
  readonly recall: Record<'files' | 'commands' | 'facts' | 'constraints' | 'request' | 'goal' | 'decision', Recall>;
  readonly passed: boolean;
  readonly problems: readonly string[];
  /** Corrective turns/calls on a correct document: false alarms. */
  readonly falseAlarms: number;
}
interface DefectResult {
  readonly scenario: string;
  readonly executor: Executor;
  readonly defect: Defect;
  readonly caught: boolean;
  readonly repaired: boolean;
}

interface Session {
  readonly scenario: Scenario;
  readonly project: BenchProject;
  readonly service: MigrationService;
  readonly model: ScriptedModel;
  readonly truth: Truth;
  readonly listener: ChildProcess | null;
  close(): Promise<void>;
}
interface Truth {
  readonly files: readonly string[];
  readonly facts: readonly string[];
}

async function setUpRepo(project: BenchProject, scenario: Scenario): Promise<void> {
  await fs.mkdir(path.join(project.root, 'test'), { recursive: true });
  await fs.writeFile(path.join(project.root, 'test/check.js'), "console.error('check failed: parser returns null');\nprocess.exit(1);\n");
  await project.git('add', 'test/check.js');
  await project.git('commit', '-q', '-m', 'a check that fails');
  if (scenario.branch) await project.git('checkout', '-q', '-b', scenario.branch);
  if (scenario.ahead !== undefined) {
    const upstream = path.join(path.dirname(project.root), 'upstream.git');
    await project.git('init', '-q', '--bare', upstream);
    await project.git('remote', 'add', 'origin', upstream);
    await project.git('push', '-q', '-u', 'origin', 'HEAD');
    for (let index = 0; index < scenario.ahead; index += 1)
      await project.git('commit', '-q', '--allow-empty', '-m', `local work ${index + 1}`);
  }
}

async function startListener(root: string): Promise<{ process: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>console.log(s.address().port))"],
    { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.on('exit', () => reject(new Error('the listener exited')));
  });
  return { process: child, port };
}

async function openSession(scenario: Scenario): Promise<Session> {
  const project = await makeBenchProject(`fid-${scenario.name}`.slice(0, 20));
  await setUpRepo(project, scenario);
  const model = await startScriptedModel();
  const root = project.root;
  const maxContextTokens = scenario.maxContextTokens ?? 100_000;
  const env = { ...project.env } as Record<string, string>;
  const context = await ConversationContext.create({ paths: projectPaths(root), model: MODEL, maxContextTokens, env });
  const client = createModelClient({ apiKey: 'bench', baseURL: model.baseURL });
  const tools = createTools({ execTimeoutMs: 30_000, execEnv: project.env });
  const agent = new Agent({ client, model: MODEL, maxContextTokens, root, tools, recorder: context });
  await agent.append(systemPrompt({ root, tools }), { definition: true });

  for (const turn of scenario.turns) {
    const queue = [...turn.steps];
    model.handler = () => queue.shift() ?? { text: 'Done.' };
    await agent.send(turn.request);
  }
  for (const file of scenario.staged ?? []) await project.git('add', file);
  for (const file of scenario.untracked ?? []) await fs.writeFile(path.join(root, file), 'scratch\n');
  const listener = scenario.listen ? await startListener(root) : null;

  const head = (await project.git('rev-parse', '--short', 'HEAD')).trim();
  const branch = (await project.git('branch', '--show-current')).trim();
  const facts = [
    `\`${branch}\``,
    head,
    ...(scenario.ahead !== undefined ? [`${scenario.ahead} ahead`] : []),
    ...(listener ? [`:${listener.port}`] : []),
    ...(scenario.staged ?? []),
    ...(scenario.untracked ?? []),
  ];
  const service = new MigrationService({
    root,
    agent,
    context,
    toolNames: agent.toolNames,
    model: { client, model: MODEL },
    facts: createFactsProvider({ root, env }),
    env: { AI_ZEN_HOME: project.home },
  });
  return {
    scenario,
    project,
    service,
    model,
    truth: { files: changedFiles(scenario), facts },
    listener: listener?.process ?? null,
    async close() {
      listener?.process.kill('SIGKILL');
      await context.close().catch(() => {});
      await model.close();
      await project.cleanup();
    },
  };
}

/** Per scenario: characters of transcript the summary call carried, and the session file's size (does summary shrink?). */
const summarySizes = new Map<string, { transcript: number; sessionBytes: number; window: number }>();

function factsBlockOf(text: string): string {
  const start = text.indexOf(FACTS_INTRO);
  if (start < 0) return '';
  const rest = text.slice(start + FACTS_INTRO.length);
  const end = rest.indexOf('--- transcript ---');
  return (end < 0 ? rest : rest.slice(0, end)).trim();
}

/** The document a careful model writes: every section, every file, the facts as given, one safe first step. */
function correctDocument(scenario: Scenario, truth: Truth, factsBlock: string): string {
  const requests = requestsOf(scenario);
  const commands = Object.entries(scenario.commands).map(([command, exit]) => `- \`${command}\` — exit ${exit}`);
  const files = truth.files.map((file) => `- \`${file}\``);
  const bodies: Record<string, string> = {
    '💬': `The user's last request:\n\n> ${requests.at(-1)}\n\nDelivered what it asked.`,
    '🎯': requests.map((request) => `> ${request}`).join('\n>\n'),
    '📊': factsBlock,
    '✅': [...files, ...commands].join('\n') || 'none',
    '📋': 'none',
    '🧠': scenario.decision ? `Chose the second approach: ${scenario.decision} was the dead end.` : 'none',
    '⚠️': scenario.constraints.length > 0 ? scenario.constraints.map((rule) => `> ${rule}`).join('\n') : 'none',
    '📁': files.join('\n') || 'none',
    '🔔': '```sh\ngit status --short\n```',
  };
  return [
    '# Handoff',
    '',
    ...HEADINGS.flatMap((heading) => [`## ${heading}`, '', bodies[[...Object.keys(bodies)].find((key) => heading.startsWith(key))!]!, '']),
  ].join('\n');
}

function plant(document: string, defect: Defect, truth: Truth): string {
  const inSection = (marker: string, extra: string) => document.replace(new RegExp(`(## ${marker}[^\\n]*\\n\\n)`), `$1${extra}\n\n`);
  switch (defect) {
    case 'forgotten file':
      return document.split(truth.files[0]!).join('');
    case 'wrong branch':
      return inSection('📊', 'Branch: `wrong-branch`.');
    case 'missing section':
      return document.replace(/## ⚠️[^\n]*\n\n[\s\S]*?(?=## 📁)/, '');
    case 'unrunnable command':
      return document.replace('```sh\ngit status --short\n```', '```sh\nfrobnicate --fix\n```');
    case 'destructive command':
      return document.replace('```sh\ngit status --short\n```', '```sh\ngit reset --hard\n```');
    case 'invented port':
      return inSection('📊', 'The dev server is listening on port 5999.');
  }
}

function defectNamed(correction: string, defect: Defect, truth: Truth): boolean {
  const wanted: Record<Defect, string> = {
    'forgotten file': truth.files[0]!,
    'wrong branch': 'wrong-branch',
    'missing section': '⚠️',
    'unrunnable command': 'frobnicate',
    'destructive command': 'is destructive',
    'invented port': '5999',
  };
  return correction.includes(wanted[defect]);
}

/** The scripted model's handoff side: the first document (maybe with a defect), the correct one on the corrective turn/call. */
function handoffModel(session: Session, defect: Defect | null, corrections: string[]): ScriptedHandler {
  let factsBlock = '';
  let attempts = 0;
  let docPath = '';
  return (request: ScriptedRequest) => {
    if (!request.lastUserText.startsWith(MARK)) return { text: 'ok' };
    factsBlock ||= factsBlockOf(request.lastUserText);
    docPath = /(\.ai-zen\/handoffs\/[\w.-]+?\.md)/.exec(request.lastUserText)?.[1] ?? docPath;
    const correct = correctDocument(session.scenario, session.truth, factsBlock);
    if (request.tools === undefined) {
      // The summary call (also after a self downgrade).
      const isSummaryStart = request.lastUserText.includes('--- transcript ---');
      if (isSummaryStart) {
        attempts = 0;
        const transcript = request.lastUserText.split('--- transcript ---')[1] ?? '';
        const previous = summarySizes.get(session.scenario.name);
        if (previous && previous.transcript === 0) summarySizes.set(session.scenario.name, { ...previous, transcript: transcript.length });
      }
      attempts += 1;
      if (attempts > 1) corrections.push(request.lastUserText);
      return { text: attempts === 1 && defect !== null ? plant(correct, defect, session.truth) : correct };
    }
    if (request.messages.at(-1)?.role === 'tool') return { text: 'Handoff written.' };
    attempts += 1;
    if (attempts > 1) corrections.push(request.lastUserText);
    return {
      toolCalls: [
        {
          name: 'write',
          args: { path: docPath, content: attempts === 1 && defect !== null ? plant(correct, defect, session.truth) : correct },
        },
      ],
    };
  };
}

function contains(haystack: string, needle: string): boolean {
  return haystack.includes(needle.slice(0, 50));
}

function recallOf(session: Session, document: string): DocumentResult['recall'] {
  const { scenario, truth } = session;
  const lines = document.split('\n');
  const constraintsText = documentSections(document).find((section) => section.heading.startsWith('⚠️'))?.body ?? '';
  const count = (items: readonly string[], test: (item: string) => boolean): Recall => ({
    found: items.filter(test).length,
    total: items.length,
  });
  const requests = requestsOf(scenario);
  return {
    files: count(truth.files, (file) => document.includes(file)),
    commands: count(Object.keys(scenario.commands), (command) =>
      lines.some((line) => line.includes(`\`${command}\``) && line.includes(`exit ${scenario.commands[command]}`)),
    ),
    facts: count(truth.facts, (fact) => document.includes(fact)),
    constraints: count(scenario.constraints, (rule) => constraintsText.includes(rule)),
    request: count([requests.at(-1)!], (request) => contains(document, request)),
    goal: count([requests[0]!], (request) => contains(document, request)),
    decision: count(scenario.decision ? [scenario.decision] : [], (decision) => document.includes(decision)),
  };
}

function passed(checks: HandoffChecks): boolean {
  return checks.sections.length + checks.facts.length + checks.files.length + checks.commands.length === 0;
}

async function runScenario(scenario: Scenario, documents: DocumentResult[], defects: DefectResult[]): Promise<void> {
  const session = await openSession(scenario);
  try {
    const sessions = path.join(session.project.root, '.ai-zen', 'sessions');
    let sessionBytes = 0;
    for (const name of await fs.readdir(sessions)) sessionBytes += (await fs.stat(path.join(sessions, name))).size;
    summarySizes.set(scenario.name, { transcript: 0, sessionBytes, window: scenario.maxContextTokens ?? 100_000 });
    for (const executor of ['offline', 'summary', 'self'] as const) {
      const corrections: string[] = [];
      session.model.handler = handoffModel(session, null, corrections);
      const outcome = await session.service.handoff({ mode: 'handoff', executor });
      const document = await fs.readFile(outcome.absolutePath, 'utf8');
      const problems = [...outcome.checks.sections, ...outcome.checks.facts, ...outcome.checks.files, ...outcome.checks.commands];
      documents.push({
        scenario: scenario.name,
        executor,
        recall: recallOf(session, document),
        passed: passed(outcome.checks) && outcome.executor === executor,
        problems: [...problems, ...corrections.map((text) => `corrected: ${text.slice(0, 200)}`)],
        falseAlarms: corrections.length,
      });
    }
    for (const executor of ['summary', 'self'] as const) {
      for (const defect of DEFECTS) {
        const corrections: string[] = [];
        session.model.handler = handoffModel(session, defect, corrections);
        const outcome = await session.service.handoff({ mode: 'handoff', executor });
        const caught = corrections.length > 0 && defectNamed(corrections[0]!, defect, session.truth);
        defects.push({
          scenario: scenario.name,
          executor,
          defect,
          caught,
          repaired: caught && outcome.executor === executor && passed(outcome.checks),
        });
      }
    }
  } finally {
    await session.close();
  }
}

function percent(found: number, total: number): string {
  return total === 0 ? '—' : `${((100 * found) / total).toFixed(1)}%`;
}

function sum(results: readonly DocumentResult[], key: keyof DocumentResult['recall']): Recall {
  return results.reduce(
    (total, result) => ({ found: total.found + result.recall[key].found, total: total.total + result.recall[key].total }),
    { found: 0, total: 0 },
  );
}

function render(
  documents: readonly DocumentResult[],
  defects: readonly DefectResult[],
  nextActions: readonly string[],
  seconds: number,
): string {
  const offline = documents.filter((result) => result.executor === 'offline');
  const scripted = documents.filter((result) => result.executor !== 'offline');
  const caught = defects.filter((result) => result.caught).length;
  const repaired = defects.filter((result) => result.repaired).length;
  const falseAlarms = scripted.reduce((total, result) => total + result.falseAlarms, 0) + offline.filter((result) => !result.passed).length;
  const met = (ok: boolean) => (ok ? '✓ met' : '✗ missed');
  const row = (name: string, recall: Recall, target: string, ok: boolean | null) =>
    `| ${name} | ${recall.found}/${recall.total} | ${percent(recall.found, recall.total)} | ${target} | ${ok === null ? '—' : met(ok)} |`;
  const full = (recall: Recall) => recall.found === recall.total;
  const lines = [
    '# Fidelity benchmark',
    '',
    `\`npm run bench:fidelity\` — ${SCENARIOS.length} scenarios, each a real session file written by ai-zen's agent and tools driven by a scripted model in a real temp git repo (bench/fidelity-scenarios.ts); every handoff through the real migration pipeline. Run at ${new Date().toISOString()} in ${seconds.toFixed(0)} s on Node ${process.version}.`,
    '',
    '## Targets',
    '',
    '| figure | measured | | target | |',
    '|---|---|---|---|---|',
    row('offline: files created/edited/renamed/removed', sum(offline, 'files'), '100%', full(sum(offline, 'files'))),
    row('offline: commands with their exit status', sum(offline, 'commands'), '100%', full(sum(offline, 'commands'))),
    row('offline: facts (branch, commit, ahead, port, staged, untracked)', sum(offline, 'facts'), '100%', full(sum(offline, 'facts'))),
    row('offline: constraints the user stated (under ⚠️)', sum(offline, 'constraints'), '100%', full(sum(offline, 'constraints'))),
    row("offline: the user's last request", sum(offline, 'request'), '(no target)', null),
    row('offline: the goal (first request)', sum(offline, 'goal'), '(no target)', null),
    row('offline: a decision and its dead end', sum(offline, 'decision'), '(no target: only a model can tell)', null),
    row(
      'offline: documents that pass F1–F4',
      { found: offline.filter((result) => result.passed).length, total: offline.length },
      '100%',
      offline.every((result) => result.passed),
    ),
    row(
      'checks: planted defects caught (named in the corrective turn/call)',
      { found: caught, total: defects.length },
      '100%',
      caught === defects.length,
    ),
    `| checks: false alarms on correct documents (${scripted.length} scripted + ${offline.length} offline) | ${falseAlarms} | | 0 | ${met(falseAlarms === 0)} |`,
    row('corrective turn/call: defects repaired', { found: repaired, total: defects.length }, '(no target)', null),
    '',
    ...nextActions,
    '## Does summary shrink a long history to fit?',
    '',
    '| scenario | session file | transcript in the summary call | window |',
    '|---|---|---|---|',
    ...[...summarySizes]
      .filter(([, size]) => size.sessionBytes > 100_000 || size.window < 100_000)
      .map(
        ([name, size]) =>
          `| ${name} | ${size.sessionBytes.toLocaleString('en')} bytes | ${size.transcript.toLocaleString('en')} characters | ${size.window.toLocaleString('en')} tokens |`,
      ),
    '',
    '## Planted defects, by kind and executor',
    '',
    '| defect | summary caught | summary repaired | self caught | self repaired |',
    '|---|---|---|---|---|',
    ...DEFECTS.map((defect) => {
      const of = (executor: Executor) => defects.filter((result) => result.defect === defect && result.executor === executor);
      const cell = (executor: Executor, key: 'caught' | 'repaired') =>
        `${of(executor).filter((result) => result[key]).length}/${of(executor).length}`;
      return `| ${defect} | ${cell('summary', 'caught')} | ${cell('summary', 'repaired')} | ${cell('self', 'caught')} | ${cell('self', 'repaired')} |`;
    }),
    '',
    '## Each scenario and executor',
    '',
    'Recall found/total; self and summary write scripted correct documents here (their recall shows the scripted model, their row shows the checks raise no false alarm).',
    '',
    '| scenario | executor | files | commands | facts | constraints | last request | goal | decision | checks |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...documents.map((result) => {
      const cell = (key: keyof DocumentResult['recall']) =>
        result.recall[key].total === 0 ? '—' : `${result.recall[key].found}/${result.recall[key].total}`;
      const checks =
        result.passed && result.falseAlarms === 0 ? 'passed ✓' : `✗ ${result.problems.join('; ').replace(/\|/g, '\\|').slice(0, 300)}`;
      return `| ${result.scenario} | ${result.executor} | ${cell('files')} | ${cell('commands')} | ${cell('facts')} | ${cell('constraints')} | ${cell('request')} | ${cell('goal')} | ${cell('decision')} | ${checks} |`;
    }),
    '',
    'Scenarios: ' +
      SCENARIOS.map(
        (scenario) =>
          `${scenario.name} (${scenario.language}, ${scenario.turns.length} requests, ${scenario.turns.reduce((total, turn) => total + turn.steps.reduce((calls, step) => calls + (step.toolCalls?.length ?? 0), 0), 0)} tool calls)`,
      ).join(', ') +
      '.',
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const started = Date.now();
  const documents: DocumentResult[] = [];
  const defects: DefectResult[] = [];
  for (const scenario of SCENARIOS) {
    process.stderr.write(`fidelity: ${scenario.name}…\n`);
    await runScenario(scenario, documents, defects);
  }
  process.stderr.write('fidelity: next-actions recall on the real clients’ transcripts…\n');
  const nextActions = renderNextActions(await runNextActions());
  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bench', 'FIDELITY.md');
  await fs.writeFile(out, render(documents, defects, nextActions, (Date.now() - started) / 1000));
  process.stderr.write(`fidelity: wrote ${out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`fidelity: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
