// T5: a handoff document is scanned for secrets and redacted in the file itself before it is
// sealed (and so before it can be committed). Real scanner (secretlint's recommended rules and
// ours), real files.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealDocument } from '../../src/handoff/seal-document.js';
import { redactFindings, scanForSecrets } from '../../src/handoff/secret-scan.js';
import { DOCUMENT_WITH_SECRETS, SECRETS } from '../support/secrets-fixture.js';
import { makeTempRepo } from '../support/temp-repo.js';

describe('T5 secrets are found and redacted', () => {
  it('T5 AWS keys, a GitHub token, a Slack token, a PEM private key and DB_PASSWORD=… are redacted; placeholders and token counts stay', async () => {
    const findings = await scanForSecrets(DOCUMENT_WITH_SECRETS);
    const { text, redactions } = redactFindings(DOCUMENT_WITH_SECRETS, findings);
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    expect(text).not.toContain('PRIVATE KEY-----\nMII');
    expect(redactions).toBe(6);
    expect(text).toContain('DB_PASSWORD=[redacted: env-assignment]');
    expect(text).toContain('export AWS_ACCESS_KEY_ID=[redacted: ');
    expect(text).toMatch(/The CI token is \[redacted: github\]/);
    expect(text).toContain('[redacted: privatekey]');
    // Not secrets: a number of tokens, a window size, placeholders.
    expect(text).toContain(
      'MAX_TOKENS=4096, maxContextTokens: 128000, OPENAI_API_KEY=… (set it yourself), GITHUB_TOKEN=${{ secrets.GH }}.',
    );
    expect(text).toContain('## 📊 current state');
  });

  it('T5 the same document quoted in Markdown (`> ` before each line, as the offline document quotes a request) loses every secret too', async () => {
    const quoted = DOCUMENT_WITH_SECRETS.split('\n')
      .map((line) => `> ${line}`)
      .join('\n');
    const { text, redactions } = redactFindings(quoted, await scanForSecrets(quoted));
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    expect(text).not.toContain('VTLw7onLRnrq0');
    expect(text).toContain('> [redacted: privatekey]\n');
    expect(redactions).toBe(6);
  });

  it('T5 T1 sealDocument redacts the file itself and returns the sha256 of what is left; a clean document is left byte for byte', async () => {
    await using repo = await makeTempRepo({ git: false });
    const relative = '.ai-zen/handoffs/20261203-010203-abcd1234.md';
    const absolute = path.join(repo.root, relative);
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    await fs.writeFile(absolute, DOCUMENT_WITH_SECRETS);
    const sealed = await sealDocument(repo.root, { relative, absolute });
    const onDisk = await fs.readFile(absolute);
    expect(sealed.redactions).toBe(6);
    expect(sealed.sha256).toBe(createHash('sha256').update(onDisk).digest('hex'));
    for (const secret of Object.values(SECRETS)) expect(onDisk.toString('utf8')).not.toContain(secret);

    const clean = '# Handoff\n\nNothing secret here; MAX_TOKENS=4096.\n';
    await fs.writeFile(absolute, clean);
    const again = await sealDocument(repo.root, { relative, absolute });
    expect(again).toEqual({ sha256: createHash('sha256').update(clean).digest('hex'), redactions: 0, rules: [] });
    expect(await fs.readFile(absolute, 'utf8')).toBe(clean);
  });
});
