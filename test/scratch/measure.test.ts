import { promises as fs } from 'node:fs';
import path from 'node:path';
import { test } from 'vitest';
import { makeDaemonRepo } from '../daemon/daemon-harness.js';
import { waitFor } from '../support/wait-for.js';

const N = Number(process.env.N ?? 10000);
const cpu = async (pid: number) => { const f = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) / 100; };

test('measure idle with foreign rollouts', async () => {
  const daemon = await makeDaemonRepo();
  const codexHome = path.join(path.dirname(daemon.root), 'codexhome');
  (daemon.env as Record<string, string>).CODEX_HOME = codexHome;
  const meta = (cwd: string, id: string) => JSON.stringify({ timestamp: '2026-12-03T05:43:02.000Z', ordinal: 0, type: 'session_meta', payload: { session_id: id, id, cwd, base_instructions: { text: 'x'.repeat(22000) } } });
  for (let n = 0; n < N; n++) {
    const day = path.join(codexHome, 'sessions', '2026', String(1 + Math.floor(n / 2800)).padStart(2, '0'), String(1 + (Math.floor(n / 100) % 28)).padStart(2, '0'));
    if (n % 100 === 0) await fs.mkdir(day, { recursive: true });
    const id = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    await fs.writeFile(path.join(day, `rollout-2026-01-01T00-00-00-${id}.jsonl`), meta(`/elsewhere/r${n}`, id) + '\n' + '{"timestamp":"t","ordinal":1,"type":"event_msg","payload":{"type":"token_count","info":null}}\n');
  }
  const t0 = Date.now();
  const pid = await daemon.start();
  await waitFor(async () => (await daemon.status()).ready, { timeoutMs: 120000 });
  const startMs = Date.now() - t0;
  await new Promise((r) => setTimeout(r, 20000));
  const c0 = await cpu(pid); const w0 = Date.now();
  await new Promise((r) => setTimeout(r, 30000));
  const c1 = await cpu(pid); const w1 = Date.now();
  const rss = (await fs.readFile(`/proc/${pid}/status`, 'utf8')).match(/VmRSS:\s+(\d+)/)![1];
  console.log(`N=${N} start+ready ${startMs} ms; idle CPU ${(((c1 - c0) / ((w1 - w0) / 1000)) * 100).toFixed(3)}% over ${(w1 - w0) / 1000}s; RSS ${Number(rss) / 1024} MiB`);
  await daemon.cleanup();
}, 300000);
