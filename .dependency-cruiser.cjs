// The map in ARCHITECTURE.md, as rules: `npm run boundaries` (and CI) fails when an import
// crosses a boundary the map does not draw. Keep this file and the map's table in step.
//
// Layers, lowest first. A module may import its own folder and the layers below its own, never
// one above or beside it. Type-only imports count too (tsPreCompilationDeps): a type is a
// dependency for whoever reads the code.

/** Top-level folders (and single files) of src/, by layer. */
const LAYERS = [
  // 0. leaves used by everyone: errors, exit codes, paths, small helpers (src/*.ts, not events.ts)
  { name: 'base', paths: ['src/(?!events\\.ts$)[^/]+\\.ts$'] },
  // 1. infrastructure: each stands alone on the base (confined writes, OS locks, git/ports facts, the log)
  { name: 'infrastructure', paths: ['src/fs/', 'src/lock/', 'src/probe/', 'src/log/'], independent: true },
  // 2. the session: format (zod, v1), store, conversation context (owns the session id, R27)
  { name: 'session', paths: ['src/session/'] },
  // 3. what is said about sessions and how ai-zen is configured: the event catalogue, config
  { name: 'catalogue', paths: ['src/events\\.ts$', 'src/config/'], independent: true },
  // 4. the agent runtime; the IPC protocol and transport
  { name: 'runtime', paths: ['src/agent/', 'src/ipc/'], independent: true },
  // 5. handoff: skill, executors, checks, the migration pipeline
  { name: 'handoff', paths: ['src/handoff/'] },
  // 6. the daemon (watching, committing, side channels, the process)
  { name: 'daemon', paths: ['src/daemon/'] },
  // 7. the command-line edge
  { name: 'cli', paths: ['src/cli/'] },
];

/** Inside src/daemon/: its sub-folders by concern, lowest first, ruled the same way (ARCHITECTURE.md, "Inside daemon/"). */
const DAEMON_LAYERS = [
  // reading transcripts (watchers, readers, the session source) · committing handoff documents
  { name: 'watching, committing', paths: ['src/daemon/watching/', 'src/daemon/committing/'], independent: true },
  // what an overflow sets off: the monitor, the migrator, other agents' sessions
  { name: 'handoffs', paths: ['src/daemon/handoffs/'] },
  // one folder per agent · what the daemon tells the outside (IPC answers, notifications, hooks)
  { name: 'agents, channels', paths: ['src/daemon/sources/', 'src/daemon/side-channels/'], independent: true },
  // the process: start, wiring, shutdown, its log
  { name: 'process', paths: ['src/daemon/process/'] },
];

/** Inside src/cli/: what both binaries share, one folder of commands per binary, and the entry scripts (ARCHITECTURE.md, "Inside cli/"). */
const CLI_LAYERS = [
  // what both binaries use: run-cli (the CLI edge), the daemon client and launcher, opening a project
  { name: 'shared', paths: ['src/cli/shared/'] },
  // ai-zen's commands · ai-zen-daemon's commands: one file per command, neither imports the other
  { name: 'commands', paths: ['src/cli/ai-zen/', 'src/cli/daemon/'], independent: true },
  // the scripts people and agents start (bundled, rolldown.config.ts): the two binaries and the lean entries
  { name: 'entries', paths: ['src/cli/[^/]+\\.ts$'] },
];

const anchor = (path) => `^${path}`;
const either = (paths) => `(${paths.map(anchor).join('|')})`;
const KNOWN = LAYERS.flatMap((layer) => layer.paths);
const HANDOFF = LAYERS.findIndex((layer) => layer.name === 'handoff');
const BELOW_HANDOFF = LAYERS.slice(0, HANDOFF).flatMap((layer) => layer.paths);
/** A top-level folder of src/ that no layer names (a new capability, not yet placed on the map). */
const UNPLACED = `^src/(?!${KNOWN.map((path) => `${path.replace(/^src\//, '')}`).join('|')})[^/]+/`;

/** One rule per folder (or set of base files): what it may not import. */
const layerRules = LAYERS.flatMap((layer, index) => {
  const below = LAYERS.slice(0, index).flatMap((lower) => lower.paths);
  // The folders of an `independent` layer do not import one another; the others share their layer.
  return layer.paths.map((path) => ({
    name: `layer-${layer.name}`,
    comment: `${path} imports only ${layer.independent ? 'itself' : `its layer (${layer.name})`} and the layers below: ${below.join(' ') || 'none'}`,
    severity: 'error',
    from: { path: anchor(path) },
    to: {
      path: '^src/',
      pathNot: [either([...below, ...(layer.independent ? [path] : layer.paths)]), ...(index >= HANDOFF ? [UNPLACED] : [])],
    },
  }));
});

const daemonLayerRules = DAEMON_LAYERS.flatMap((layer, index) => {
  const below = DAEMON_LAYERS.slice(0, index).flatMap((lower) => lower.paths);
  return layer.paths.map((path) => ({
    name: `daemon-${layer.name.replace(/\W+/g, '-')}`,
    comment: `${path} imports only ${layer.independent ? 'itself' : 'its layer'} and the daemon's layers below: ${below.join(' ') || 'none'}`,
    severity: 'error',
    from: { path: anchor(path) },
    to: { path: '^src/daemon/', pathNot: either([...below, ...(layer.independent ? [path] : layer.paths)]) },
  }));
});

const cliLayerRules = CLI_LAYERS.flatMap((layer, index) => {
  const below = CLI_LAYERS.slice(0, index).flatMap((lower) => lower.paths);
  return layer.paths.map((path) => ({
    name: `cli-${layer.name}`,
    comment: `${path} imports only ${layer.independent ? 'itself' : 'its layer'} and the CLI's layers below: ${below.join(' ') || 'none'}`,
    severity: 'error',
    from: { path: anchor(path) },
    to: { path: '^src/cli/', pathNot: either([...below, ...(layer.independent ? [path] : layer.paths)]) },
  }));
});

module.exports = {
  forbidden: [
    ...layerRules,
    ...daemonLayerRules,
    ...cliLayerRules,
    {
      name: 'cli-entries-only',
      comment: 'the only modules loose in src/cli/ are the four scripts people and agents start; a command goes in its binary\'s folder',
      severity: 'error',
      from: { path: '^src/cli/[^/]+$', pathNot: '^src/cli/ai-zen(-daemon|-hook|-statusline)?\\.ts$' },
      to: {},
    },
    {
      name: 'daemon-in-sub-folders',
      comment: 'every module of src/daemon/ sits in one of its sub-folders (ARCHITECTURE.md, "Inside daemon/")',
      severity: 'error',
      from: { path: '^src/daemon/[^/]+$' },
      to: {},
    },
    {
      name: 'new-folder-sits-under-handoff',
      comment:
        'a top-level folder of src/ that the map does not name yet may use everything up to the agent runtime, and only handoff/, daemon/ and cli/ may use it; name it in ARCHITECTURE.md and here to place it elsewhere',
      severity: 'error',
      from: { path: '^src/([^/]+/)', pathNot: either(KNOWN) },
      to: { path: '^src/', pathNot: [either(BELOW_HANDOFF), '^src/$1'] },
    },
    {
      name: 'one-process-runner',
      comment:
        'only src/run-process.ts starts child processes (node:child_process), so deadlines, process-group kills, output caps and start failures are decided in one place (issue 13 item 4)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/run-process\\.ts$' },
      to: { path: '^(node:)?child_process$' },
    },
    {
      name: 'no-cycles',
      comment: 'no import cycles, between folders or inside one',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-dev-dependency-in-src',
      comment: 'what src/ imports must be installed with the package: a dependency, never a devDependency',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-undeclared-package',
      comment: 'every package src/ imports is named in package.json',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'unknown', 'undetermined'] },
    },
    {
      name: 'src-stands-alone',
      comment: 'src/ never imports tests, the benchmark or built output',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|dist|dist-bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|dist-bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};

// For test/architecture/map.fast.test.ts, which holds ARCHITECTURE.md's table to these layers
// (not enumerable: dependency-cruiser refuses configuration keys it does not know).
Object.defineProperty(module.exports, 'layers', { value: LAYERS, enumerable: false });
Object.defineProperty(module.exports, 'daemonLayers', { value: DAEMON_LAYERS, enumerable: false });
Object.defineProperty(module.exports, 'cliLayers', { value: CLI_LAYERS, enumerable: false });
