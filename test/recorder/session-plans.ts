// The coding sessions the recorder drives the real clients through: each a few user
// requests, each request a run of steps — write or edit a file, read one, run a command (tests, git,
// a server that listens on a port and a probe of it). The same plan is played by Claude Code (its
// Write/Edit/Read/Bash tools) and by Codex (apply_patch and exec_command), so the two clients'
// transcripts of one session can be compared.

export type PlanStep =
  | { readonly kind: 'write'; readonly path: string; readonly content: string }
  | { readonly kind: 'edit'; readonly path: string; readonly old: string; readonly new: string }
  | { readonly kind: 'read'; readonly path: string }
  | { readonly kind: 'run'; readonly command: string };

export interface PlanTurn {
  readonly request: string;
  readonly steps: readonly PlanStep[];
  readonly final: string;
}

export interface SessionPlan {
  readonly name: string;
  /** Files the repo holds (committed) before the session starts: a project the agent reads into. */
  readonly seed?: Readonly<Record<string, string>>;
  readonly turns: readonly PlanTurn[];
}

const write = (path: string, content: string): PlanStep => ({ kind: 'write', path, content });
const edit = (path: string, old: string, replacement: string): PlanStep => ({ kind: 'edit', path, old, new: replacement });
const read = (path: string): PlanStep => ({ kind: 'read', path });
const run = (command: string): PlanStep => ({ kind: 'run', command });

/** A port few machines use: the session's server listens on it and a probe asks it. */
export const SERVER_PORT = 43817;
/** Starts the server in the background, probes it, stops it: the command ends, the port was real. */
const SERVE_AND_PROBE = `PORT=${SERVER_PORT} node src/server.js & server=$!; node scripts/ping.js ${SERVER_PORT}; status=$?; kill $server; exit $status`;

const SERVER_V1 = `import http from 'node:http';

export function handler(request, response) {
  if (request.url === '/health') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ok: true }));
    return;
  }
  response.writeHead(404);
  response.end();
}

if (process.env.PORT) http.createServer(handler).listen(Number(process.env.PORT), '127.0.0.1');
`;

const SERVER_TEST = `import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { handler } from '../src/server.js';

async function get(path) {
  const server = http.createServer(handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const response = await fetch(\`http://127.0.0.1:\${server.address().port}\${path}\`);
  server.close();
  return response;
}

test('health answers ok', async () => {
  assert.equal((await get('/health')).status, 200);
});
`;

const PING = `// Asks the server's /health until it answers (at most 10 s): the exit status says whether it did.
const port = Number(process.argv[2]);
const deadline = Date.now() + 10_000;
for (;;) {
  try {
    const response = await fetch(\`http://127.0.0.1:\${port}/health\`);
    console.log(\`port \${port}: \${response.status}\`);
    process.exit(response.ok ? 0 : 1);
  } catch {
    if (Date.now() > deadline) {
      console.error(\`port \${port}: no answer\`);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
`;

const COUNT_V1 = `export function countWords(text) {
  return text.split(' ').length;
}
`;

const COUNT_TEST = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countWords } from '../src/count.js';

test('counts words', () => assert.equal(countWords('a b  c'), 3));
test('an empty text has no words', () => assert.equal(countWords(''), 0));
`;

const WC_V1 = `#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { countWords } from '../src/count.js';

const file = process.argv[2];
console.log(countWords(readFileSync(file, 'utf8')));
`;

/** Sessions that start in an empty repo. */
const NEW_PROJECT_PLANS: readonly SessionPlan[] = [
  {
    name: 'http-server',
    turns: [
      {
        request:
          'Create a small HTTP server in src/server.js that answers /health on the port in PORT, with a test, and check it really listens. Never add dependencies.',
        steps: [
          write('package.json', '{\n  "name": "health-server",\n  "version": "1.2.0",\n  "type": "module",\n  "private": true\n}\n'),
          write('src/server.js', SERVER_V1),
          write('test/server.test.js', SERVER_TEST),
          run('node --test test/server.test.js'),
          write('scripts/ping.js', PING),
          run(SERVE_AND_PROBE),
          run('git add -A && git commit -qm "health server"'),
        ],
        final: `The server answers /health; the test passes and it listened on ${SERVER_PORT}.`,
      },
      {
        request: 'Add a /version endpoint that returns the version from package.json.',
        steps: [
          read('src/server.js'),
          edit(
            'src/server.js',
            '  response.writeHead(404);\n',
            "  if (request.url === '/version') {\n    response.writeHead(200, { 'content-type': 'application/json' });\n    response.end(JSON.stringify({ version: '1.2.0' }));\n    return;\n  }\n  response.writeHead(404);\n",
          ),
          read('test/server.test.js'),
          edit(
            'test/server.test.js',
            "test('health answers ok'",
            "test('version answers 1.2.0', async () => {\n  assert.deepEqual(await (await get('/version')).json(), { version: '1.2.0' });\n});\n\ntest('health answers ok'",
          ),
          run('node --test test/server.test.js'),
          run(SERVE_AND_PROBE),
          run('git diff --stat'),
        ],
        final: '/version answers 1.2.0; the tests pass.',
      },
      {
        request: 'Log each request to stderr, and write a README that says how to run it.',
        steps: [
          read('src/server.js'),
          edit(
            'src/server.js',
            'export function handler(request, response) {\n',
            'export function handler(request, response) {\n  console.error(`${request.method} ${request.url}`);\n',
          ),
          write(
            'README.md',
            `# health-server\n\n\`PORT=${SERVER_PORT} node src/server.js\`, then \`node scripts/ping.js ${SERVER_PORT}\`.\n`,
          ),
          run('node --test'),
          run(SERVE_AND_PROBE),
          run('git add -A && git commit -qm "version endpoint, request log, README"'),
          run('git log --oneline -3'),
        ],
        final: 'Requests are logged to stderr; the README says how to run it.',
      },
    ],
  },
  {
    name: 'word-count-cli',
    turns: [
      {
        request: 'Write a CLI bin/wc.js that counts the words in a file, with tests. Keep it plain Node, no TypeScript.',
        steps: [
          write('src/count.js', COUNT_V1),
          write('bin/wc.js', WC_V1),
          write('test/count.test.js', COUNT_TEST),
          run('node --test test/count.test.js'),
          read('src/count.js'),
          edit('src/count.js', "  return text.split(' ').length;\n", '  return text.split(/\\s+/).filter(Boolean).length;\n'),
          run('node --test test/count.test.js'),
          write('fixtures/sample.txt', 'the quick brown fox\njumps over\nthe lazy dog\n'),
          run('node bin/wc.js fixtures/sample.txt'),
        ],
        final: 'bin/wc.js counts 9 words in fixtures/sample.txt; the tests pass after fixing the split.',
      },
      {
        request: 'Add a --lines flag that counts lines instead.',
        steps: [
          read('src/count.js'),
          edit(
            'src/count.js',
            'export function countWords',
            "export function countLines(text) {\n  return text.split('\\n').filter(Boolean).length;\n}\n\nexport function countWords",
          ),
          read('bin/wc.js'),
          edit(
            'bin/wc.js',
            "import { countWords } from '../src/count.js';\n\nconst file = process.argv[2];\nconsole.log(countWords(readFileSync(file, 'utf8')));\n",
            "import { countLines, countWords } from '../src/count.js';\n\nconst lines = process.argv.includes('--lines');\nconst file = process.argv.filter((arg) => !arg.startsWith('--'))[2];\nconst text = readFileSync(file, 'utf8');\nconsole.log(lines ? countLines(text) : countWords(text));\n",
          ),
          read('test/count.test.js'),
          edit(
            'test/count.test.js',
            "import { countWords } from '../src/count.js';\n",
            "import { countLines, countWords } from '../src/count.js';\n\ntest('counts lines', () => assert.equal(countLines('a\\nb\\n'), 2));\n",
          ),
          run('node --test test/count.test.js'),
          run('node bin/wc.js --lines fixtures/sample.txt'),
        ],
        final: '--lines counts 3 lines in fixtures/sample.txt.',
      },
      {
        request: 'Rename the CLI to bin/count.js, check it still works, and commit.',
        steps: [
          run('git add -A && git mv bin/wc.js bin/count.js'),
          run('node bin/count.js --lines fixtures/sample.txt'),
          run('node bin/count.js fixtures/sample.txt'),
          run('node --test test/count.test.js'),
          run('git commit -qm "word count CLI with --lines"'),
          run('git log --oneline -3'),
        ],
        final: 'Renamed to bin/count.js and committed.',
      },
    ],
  },
];

const CONFIG_V1 = `import { readFileSync } from 'node:fs';

const DEFAULTS = { name: 'app', debug: false };

export function loadConfig(env = process.env) {
  const file = env.CONFIG_FILE;
  return file ? { ...DEFAULTS, ...JSON.parse(readFileSync(file, 'utf8')) } : { ...DEFAULTS };
}
`;

const CONFIG_TEST = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';

test('defaults without a file', () => assert.deepEqual(loadConfig({}), { name: 'app', debug: false }));
test('CONFIG_PATH names the file', () => assert.equal(loadConfig({ CONFIG_PATH: 'config/test.json' }).name, 'test'));
`;

const APP_V1 = `import { loadConfig } from './config.js';

const config = loadConfig();
console.log(\`\${config.name} starting (debug: \${config.debug})\`);
`;

const PROBE = `// Fetches a URL until it answers (at most 10 s) and prints the body: the exit status says whether it did.
const url = process.argv[2];
const deadline = Date.now() + 10_000;
for (;;) {
  try {
    const response = await fetch(url);
    console.log(await response.text());
    process.exit(response.ok ? 0 : 1);
  } catch {
    if (Date.now() > deadline) {
      console.error(\`\${url}: no answer\`);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
`;

/** The port the dashboard reads the config from, in the third session. */
export const CONFIG_PORT = 43901;
const SERVE_CONFIG = `PORT=${CONFIG_PORT} node src/app.js & app=$!; node scripts/probe.js http://127.0.0.1:${CONFIG_PORT}/config; status=$?; kill $app; exit $status`;

/** A session in a project that has files already: the agent reads some it never changes. */
const EXISTING_PROJECT: SessionPlan = {
  name: 'existing-project',
  seed: {
    'package.json': '{\n  "name": "config-app",\n  "type": "module",\n  "private": true\n}\n',
    'src/config.js': CONFIG_V1,
    'src/app.js': APP_V1,
    'test/config.test.js': CONFIG_TEST,
    'config/test.json': '{ "name": "test" }\n',
    'docs/CONFIG.md':
      '# Configuration\n\nSet CONFIG_PATH to a JSON file. A `.env` file in the working folder may set it too (see .env.example).\n',
    '.env.example': 'CONFIG_PATH=config/dev.json\n',
  },
  turns: [
    {
      request: 'The app ignores CONFIG_PATH. Find out why and fix it; keep the public API of src/config.js unchanged.',
      steps: [
        read('docs/CONFIG.md'),
        read('src/config.js'),
        run('grep -rn "CONFIG_" src docs test'),
        read('test/config.test.js'),
        run('node --test test/config.test.js'),
        edit('src/config.js', '  const file = env.CONFIG_FILE;\n', '  const file = env.CONFIG_PATH;\n'),
        run('node --test test/config.test.js'),
      ],
      final: 'src/config.js read CONFIG_FILE instead of CONFIG_PATH; fixed, and the tests pass.',
    },
    {
      request: 'Also read a .env file from the working folder, as docs/CONFIG.md describes.',
      steps: [
        read('docs/CONFIG.md'),
        read('.env.example'),
        read('src/config.js'),
        edit(
          'src/config.js',
          'export function loadConfig(env = process.env) {\n',
          "function dotenv() {\n  try {\n    return Object.fromEntries(readFileSync('.env', 'utf8').split('\\n').filter(Boolean).map((line) => line.split('=')));\n  } catch {\n    return {};\n  }\n}\n\nexport function loadConfig(env = { ...dotenv(), ...process.env }) {\n",
        ),
        write('config/dev.json', '{ "name": "dev", "debug": true }\n'),
        run('node --test test/config.test.js'),
        run('CONFIG_PATH=config/dev.json node src/app.js'),
        run('cp .env.example .env && node src/app.js; rm .env'),
      ],
      final: 'A .env file in the working folder is read; dev starts with debug on.',
    },
    {
      request: `Serve the config as JSON on port ${CONFIG_PORT} for the dashboard, document it, and commit.`,
      steps: [
        read('src/app.js'),
        edit(
          'src/app.js',
          "import { loadConfig } from './config.js';\n",
          "import http from 'node:http';\nimport { loadConfig } from './config.js';\n",
        ),
        write('scripts/probe.js', PROBE),
        read('src/app.js'),
        edit(
          'src/app.js',
          'console.log(`${config.name} starting (debug: ${config.debug})`);\n',
          "console.log(`${config.name} starting (debug: ${config.debug})`);\nif (process.env.PORT) http.createServer((_, response) => response.end(JSON.stringify(config))).listen(Number(process.env.PORT), '127.0.0.1');\n",
        ),
        run(SERVE_CONFIG),
        read('docs/CONFIG.md'),
        edit(
          'docs/CONFIG.md',
          '(see .env.example).\n',
          `(see .env.example).\n\nWith PORT set (e.g. ${CONFIG_PORT}), the app serves its config at /config.\n`,
        ),
        run('node --test'),
        run(SERVE_CONFIG),
        run('git add -A && git commit -qm "config: CONFIG_PATH, .env, served on a port"'),
        run('git status --short'),
      ],
      final: `The config is served on ${CONFIG_PORT} at /config; docs/CONFIG.md says so; committed.`,
    },
  ],
};

export const PLANS: readonly SessionPlan[] = [...NEW_PROJECT_PLANS, EXISTING_PROJECT];

/** Steps of a plan, all turns. */
export function stepCount(plan: SessionPlan): number {
  return plan.turns.reduce((total, turn) => total + turn.steps.length, 0);
}
