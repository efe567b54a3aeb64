/**
 * The devnet plays the ORE program from its own port of the program's source
 * (tools/devnet/src/program), so that it and the indexer's reading (libs/chain) are two
 * independent readings checked against each other. This check holds it: the devnet's
 * sources may take from @gridlab/chain only what is not a reading of the program (PDAs,
 * base58, the system program's instruction, the RPC budget parser), never its settlement,
 * event codecs, round codec, RNG or distribution mask.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const DEVNET_SRC = join(ROOT, 'tools/devnet/src');

/** What the devnet may import from @gridlab/chain: nothing that reads the program's rules or layouts. */
const ALLOWED = new Set([
  'OrePdas',
  'SYSTEM_PROGRAM',
  'encodeBase58',
  'decodeBase58',
  'createAccountData',
  'budgetOf',
  'NO_LIMITS',
  'parseRpcLimits',
  'SlidingWindow',
  'Budget',
  'RpcLimits',
]);

/** The names a source imports from @gridlab/chain (`*` for a namespace or default import). */
function chainImports(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/import\s+(type\s+)?([^;]*?)\s+from\s+['"]@gridlab\/chain['"]/g)) {
    const clause = m[2]!;
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces === null || clause.replace(braces[0], '').replace(/,/g, '').trim() !== '') names.push('*');
    for (const part of braces?.[1]?.split(',') ?? []) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!.trim();
      if (name !== '') names.push(name);
    }
  }
  return names;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return entry.endsWith('.ts') && !entry.endsWith('.test.ts') ? [path] : [];
  });
}

describe('the devnet is an independent reading of the ORE program', () => {
  it('takes no rule, codec or mask of the program from @gridlab/chain', () => {
    const forbidden = sources(DEVNET_SRC).flatMap((file) =>
      chainImports(readFileSync(file, 'utf8'))
        .filter((name) => !ALLOWED.has(name))
        .map((name) => `${relative(ROOT, file)}: ${name}`),
    );
    expect(forbidden).toEqual([]);
  });

  it('catches a forbidden import in any form', () => {
    // Spelled in pieces, so that this file itself imports nothing (package-deps reads imports from sources).
    const from = (quote: string) => ` from ${quote}@gridlab/${'chain'}${quote};`;
    expect(chainImports(`import { settleRound, OrePdas }${from("'")}`).filter((n) => !ALLOWED.has(n))).toEqual(['settleRound']);
    expect(chainImports(`import {\n  type ResetEventInput,\n  encodeRound as enc,\n}${from("'")}`)).toEqual(['ResetEventInput', 'encodeRound']);
    expect(chainImports(`import * as chain${from("'")}`)).toEqual(['*']);
    expect(chainImports(`import type { RoundAccount }${from('"')}`)).toEqual(['RoundAccount']);
  });
});
