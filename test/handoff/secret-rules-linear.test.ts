// The secret rules run over whole transcripts (megabytes) in the daemon: a rule that backtracks
// on some input would stall a handoff. Each vendor rule compiles as shipped, holds no quantified
// group that is itself quantified, and the whole scanner takes time in proportion to the text on
// inputs made to provoke backtracking (near-misses of every rule, repeated).
import { describe, expect, it } from 'vitest';
import { scanOwnRules } from '../../src/handoff/secret-rules.js';
import { joinLiterals } from '../../src/handoff/secret-scan.js';
import { VENDOR_RULES } from '../../src/handoff/secret-vendor-rules.js';

/** Near-misses: each starts a rule and then fails it late, over and over. */
const HOSTILE = [
  `${'A'.repeat(5000)} `,
  `-----BEGIN PRIVATE KEY----- ${'ab '.repeat(2000)}`,
  `-----BEGIN PRIVATE KEY-----\n${`${'Q'.repeat(64)}\n`.repeat(200)}`,
  `LS0tLS1CRUdJTi${'A'.repeat(3000)} `,
  `x-${'a-'.repeat(2000)}key`,
  'password='.repeat(500),
  '"a" + '.repeat(1000),
  'machine a login b '.repeat(300),
  'h:5432:d:u:'.repeat(300),
  `?token=${'a'.repeat(3000)}`,
  `eyJ${'a'.repeat(2000)}.eyJ${'b'.repeat(2000)}`,
  `sqlplus ${'a'.repeat(3000)}`,
  `wallet ${'0x'.repeat(1000)}`,
  `https://a.webhook.office.com/webhookb2/${'a@'.repeat(2000)}`,
  `<password${'a'.repeat(3000)}`,
];

function timeScan(text: string): number {
  const started = performance.now();
  scanOwnRules(text);
  joinLiterals(text);
  return performance.now() - started;
}

describe('secret rules run in linear time', () => {
  it('every vendor rule compiles with the flags the scanner gives it, and none nests a quantifier in a quantified group', () => {
    for (const [rule, source] of VENDOR_RULES) {
      expect(() => new RegExp(source, 'dg'), rule).not.toThrow();
      // `(…+)+`, `(…*)*`, `(…{n,})+`: the shape that backtracks exponentially.
      expect(source, rule).not.toMatch(/\((?:[^()]*[+*]|[^()]*\{\d+,\d*\})\)[+*{]/);
    }
    expect(VENDOR_RULES.length).toBeGreaterThan(100);
  });

  it('four times the hostile text costs at most about four times the time', () => {
    const unit = HOSTILE.join('\n');
    timeScan(unit); // warm the regex engine
    const small = timeScan(unit.repeat(5));
    const large = timeScan(unit.repeat(20));
    expect(large).toBeLessThan(small * 8 + 250);
    expect(large).toBeLessThan(10_000);
  }, 60_000);
});
