/**
 * `robots-audit eval --profile <name>` against the real libraries (issue 19, "Done when"): the
 * same JSON Lines a script would send, built from the oracle cases (corpus and generated
 * files, as raw bytes in robots_b64), answered by runEval and by the library; every answer
 * must agree, deciding line included where the library has one.
 */
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runEval } from '../../../src/cli/commands/eval.command.js';
import type { ParserProfileName } from '../../../src/robots/profiles/index.js';
import { corpusCaseFiles, generatedCaseFiles, type ProfileCaseFile } from '../../helpers/profile-cases.js';
import { robotsParserLibraryAnswers, runPythonOracle } from '../../helpers/parser-oracle.js';

async function evalAnswers(profile: ParserProfileName, files: readonly ProfileCaseFile[]): Promise<string[]> {
  const input = files
    .flatMap((f) => {
      const b64 = Buffer.from(f.body).toString('base64');
      return f.cases.map(([url, ua]) => JSON.stringify({ robots_b64: b64, ua, url }));
    })
    .join('\n');
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  await runEval(Readable.from([Buffer.from(`${input}\n`)]), out, { profile });
  out.end();
  const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l.length > 0);
  return lines.map((l) => {
    const r = JSON.parse(l) as { allowed?: boolean; line?: number | null; error?: string };
    if (r.error !== undefined) return 'error';
    return profile === 'node-robots-parser' ? `${r.allowed} ${r.line ?? '-'}` : String(r.allowed);
  });
}

const files = () => [...corpusCaseFiles(4, 23), ...generatedCaseFiles(1_000, 6, 2323)];

describe('eval --profile answers as the library does', () => {
  // The two newer versions are Debian sid's packages, unpacked by test/oracle/debian-oracles.sh.
  it.each(['python-urllib', 'python-urllib-rfc9309', 'scrapy-protego', 'scrapy-protego-0.7'] as const)('%s', async (profile) => {
    const f = files();
    const library = runPythonOracle(profile, f).flat().map((a) => (a === 'error' ? 'error' : String(a)));
    const ours = await evalAnswers(profile, f);
    expect(ours.length).toBe(library.length);
    const differ = library.flatMap((a, i) => (a === ours[i] ? [] : [{ i, library: a, eval: ours[i] }]));
    expect(differ.slice(0, 10)).toEqual([]);
    expect(library.length).toBeGreaterThanOrEqual(18_000);
  });

  it('node-robots-parser', async () => {
    const f = files();
    const library = f.flatMap((file) => robotsParserLibraryAnswers(file));
    const ours = await evalAnswers('node-robots-parser', f);
    const differ = library.flatMap((a, i) => (a === ours[i] ? [] : [{ i, library: a, eval: ours[i] }]));
    expect(differ.slice(0, 10)).toEqual([]);
    expect(library.length).toBeGreaterThanOrEqual(18_000);
  });

  it('keeps google, the default, as the engine answers', async () => {
    const f = generatedCaseFiles(50, 4, 77);
    const input = f.flatMap((file) => file.cases.map(([url, ua]) => JSON.stringify({ robots_b64: Buffer.from(file.body).toString('base64'), ua, url }))).join('\n');
    const run = async (options: { profile?: ParserProfileName }) => {
      const out = new PassThrough();
      const chunks: Buffer[] = [];
      out.on('data', (c: Buffer) => chunks.push(c));
      await runEval(Readable.from([Buffer.from(`${input}\n`)]), out, options);
      out.end();
      return Buffer.concat(chunks).toString('utf8');
    };
    expect(await run({ profile: 'google' })).toBe(await run({}));
  });
});
