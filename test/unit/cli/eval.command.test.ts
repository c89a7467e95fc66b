import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runEval } from '../../../src/cli/commands/eval.command.js';
import type { EvalOptions } from '../../../src/cli/commands/eval.command.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { main } from '../../../src/cli/main.js';
import { runCli } from '../../helpers/cli.js';
import { manyAgentsOneGroup } from '../../helpers/hostile-bodies.js';

const ROBOTS = 'User-agent: *\nDisallow: /private/\nAllow: /private/ok\n\nUser-agent: FooBot\nDisallow: /\n';
const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const jsonl = (rows: unknown[]) => rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n';

async function evalLines(input: string, options: EvalOptions = {}) {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const stats = await runEval(Readable.from([Buffer.from(input)]), out, options);
  out.end();
  await new Promise((resolve) => out.on('end', resolve));
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  expect(lines.pop()).toBe('');
  return { results: lines.map((l) => JSON.parse(l) as Record<string, unknown>), stats };
}

function countingParse() {
  const counter = { parses: 0 };
  const parse = (body: Uint8Array) => {
    counter.parses += 1;
    return parseRobotsTxt(body);
  };
  return { counter, parse };
}

describe('eval: one verdict per input line, Google-exact', () => {
  it('answers robots and robots_b64 lines with the verdict and the deciding line', async () => {
    const { results } = await evalLines(
      jsonl([
        { robots: ROBOTS, ua: 'Googlebot', url: 'https://example.com/private/x' },
        { robots: ROBOTS, ua: 'Googlebot', url: 'https://example.com/private/ok' },
        { robots: ROBOTS, ua: 'Googlebot', url: 'https://example.com/public' },
        { robots_b64: b64(ROBOTS), ua: 'FooBot', url: 'https://example.com/public' },
      ]),
    );
    expect(results).toEqual([
      { allowed: false, line: 2 },
      { allowed: true, line: 3 },
      { allowed: true, line: null },
      { allowed: false, line: 6 },
    ]);
  });

  it('matches parseRobotsTxt(...).check for every line', async () => {
    const urls = ['http://a.b/', 'http://a.b/private/', 'http://a.b/private/ok/x', 'http://a.b/x?y', ''];
    const uas = ['Googlebot', 'FooBot', '*', ''];
    const rows = urls.flatMap((url) => uas.map((ua) => ({ robots: ROBOTS, ua, url })));
    const { results } = await evalLines(jsonl(rows));
    const robots = parseRobotsTxt(Buffer.from(ROBOTS));
    expect(results).toEqual(rows.map((r) => robots.check(r.url, r.ua)));
  });

  it('hands the URL over as given, without the canonicalisation of `check` (T29, C16)', async () => {
    // WHATWG would turn "/a b" into "/a%20b", which does not match the rule; Google compares raw bytes.
    const robots = 'User-agent: *\nDisallow: /a b\n';
    const { results } = await evalLines(jsonl([{ robots, ua: 'x', url: 'http://example.com/a b' }, { robots, ua: 'x', url: 'http://example.com/a%20b' }]));
    expect(results).toEqual([
      { allowed: false, line: 2 },
      { allowed: true, line: null },
    ]);
  });

  it('reads robots_b64 as raw bytes: a BOM and Latin-1 reach the parser untouched', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('User-agent: *\nDisallow: /caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
    const { results } = await evalLines(jsonl([{ robots_b64: b64(body), ua: 'Googlebot', url: 'http://example.com/caf%E9' }]));
    expect(results).toEqual([parseRobotsTxt(body).check('http://example.com/caf%E9', 'Googlebot')]);
  });

  it('encodes a `robots` string to UTF-8 before parsing', async () => {
    const robots = 'User-agent: *\nDisallow: /é\n';
    const { results } = await evalLines(jsonl([{ robots, ua: 'x', url: 'http://example.com/%C3%A9' }]));
    expect(results).toEqual([{ allowed: false, line: 2 }]);
  });
});

describe('eval: malformed lines get an error and the run goes on', () => {
  const good = { robots: ROBOTS, ua: 'Googlebot', url: 'https://example.com/private/x' };
  it.each([
    ['not JSON', '{"robots": ', /not JSON/],
    ['a JSON array', '[1,2]', /not a JSON object/],
    ['a JSON string', '"text"', /not a JSON object/],
    ['null', 'null', /not a JSON object/],
    ['missing ua', JSON.stringify({ robots: ROBOTS, url: 'http://a/' }), /missing "ua"/],
    ['ua not a string', JSON.stringify({ robots: ROBOTS, ua: 7, url: 'http://a/' }), /"ua" must be a string/],
    ['missing url', JSON.stringify({ robots: ROBOTS, ua: 'x' }), /missing "url"/],
    ['url not a string', JSON.stringify({ robots: ROBOTS, ua: 'x', url: null }), /"url" must be a string/],
    ['robots and robots_b64', JSON.stringify({ robots: ROBOTS, robots_b64: b64(ROBOTS), ua: 'x', url: 'http://a/' }), /not both/],
    ['neither robots nor robots_b64', JSON.stringify({ ua: 'x', url: 'http://a/' }), /missing "robots" or "robots_b64"/],
    ['robots not a string', JSON.stringify({ robots: 1, ua: 'x', url: 'http://a/' }), /"robots" must be a string/],
    ['robots_b64 not a string', JSON.stringify({ robots_b64: ['x'], ua: 'x', url: 'http://a/' }), /"robots_b64" must be a string/],
    ['robots_b64 with characters outside base64', JSON.stringify({ robots_b64: 'VXNlc*', ua: 'x', url: 'http://a/' }), /not base64/],
    ['robots_b64 with a bad length', JSON.stringify({ robots_b64: 'VXNlc', ua: 'x', url: 'http://a/' }), /not base64/],
    ['robots_b64 with misplaced padding', JSON.stringify({ robots_b64: 'VX=Nl', ua: 'x', url: 'http://a/' }), /not base64/],
    ['a blank line', '', /^empty line$/],
    ['a line of spaces', '   \t', /^empty line$/],
  ])('%s', async (_name, bad, why) => {
    const { results, stats } = await evalLines(jsonl([good, bad, good]));
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual({ allowed: false, line: 2 });
    expect(Object.keys(results[1]!)).toEqual(['error']);
    expect(results[1]!.error).toMatch(why);
    expect(results[2]).toEqual({ allowed: false, line: 2 });
    expect(stats).toMatchObject({ lines: 3, errors: 1 });
  });

  it('accepts unpadded base64', async () => {
    const unpadded = b64('User-agent: *\nDisallow: /\n').replace(/=+$/, '');
    const { results } = await evalLines(jsonl([{ robots_b64: unpadded, ua: 'x', url: 'http://a/b' }]));
    expect(results).toEqual([{ allowed: false, line: 2 }]);
  });

  it('answers a line longer than the limit with an error, without holding it', async () => {
    const long = JSON.stringify({ robots: `User-agent: *\nDisallow: /${'a'.repeat(5000)}\n`, ua: 'x', url: 'http://a/' });
    const { results } = await evalLines(jsonl([good, long, good]), { maxLineChars: 1000 });
    expect(results[1]!.error).toMatch(/longer than 1000/);
    expect(results[0]).toEqual(results[2]);
    expect(results[2]).toEqual({ allowed: false, line: 2 });
  });
});

describe('eval: line framing', () => {
  const row = JSON.stringify({ robots: ROBOTS, ua: 'x', url: 'http://a/private/' });
  it.each([
    ['LF', `${row}\n${row}\n`, 2],
    ['CRLF', `${row}\r\n${row}\r\n`, 2],
    ['no break after the last line', `${row}\n${row}`, 2],
    ['a blank line in the middle keeps alignment', `${row}\n\n${row}\n`, 3],
    ['a UTF-8 BOM before the first line', `\uFEFF${row}\n${row}\n`, 2],
    ['no input at all', '', 0],
  ])('%s', async (_name, input, count) => {
    const { results } = await evalLines(input);
    expect(results).toHaveLength(count);
    for (const r of results) expect(r.error ?? r.allowed).toSatisfy((v: unknown) => v === false || v === 'empty line');
  });

  it('joins a line split across many chunks, even inside a multi-byte character', async () => {
    const robots = 'User-agent: *\nDisallow: /ü\n';
    const bytes = Buffer.from(jsonl([{ robots, ua: 'x', url: 'http://a/%C3%BC' }, { robots, ua: 'x', url: 'http://a/u' }]));
    const pieces = [...bytes].map((b) => Buffer.from([b])); // one byte per chunk
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    await runEval(Readable.from(pieces), out);
    out.end();
    await new Promise((resolve) => out.on('end', resolve));
    expect(Buffer.concat(chunks).toString('utf8')).toBe('{"allowed":false,"line":2}\n{"allowed":true,"line":null}\n');
  });
});

describe('eval: parses of repeated bodies are reused (LRU)', () => {
  it('parses a body once however many lines repeat it', async () => {
    const { counter, parse } = countingParse();
    const rows = Array.from({ length: 50 }, (_, i) => ({ robots: ROBOTS, ua: 'x', url: `http://a/private/${i}` }));
    const { stats } = await evalLines(jsonl(rows), { parse });
    expect(counter.parses).toBe(1);
    expect(stats).toMatchObject({ lines: 50, parses: 1, cacheHits: 49 });
  });

  it('keeps text and base64 bodies apart, and base64 bodies by their string', async () => {
    const { counter, parse } = countingParse();
    const rows = [
      { robots: ROBOTS, ua: 'x', url: 'http://a/' },
      { robots_b64: b64(ROBOTS), ua: 'x', url: 'http://a/' },
      { robots_b64: b64(ROBOTS), ua: 'y', url: 'http://a/b' },
      { robots: ROBOTS, ua: 'y', url: 'http://a/b' },
    ];
    await evalLines(jsonl(rows), { parse });
    expect(counter.parses).toBe(2);
  });

  it('evicts the least recently used body past the entry bound', async () => {
    const { counter, parse } = countingParse();
    const a = 'User-agent: *\nDisallow: /a\n';
    const b = 'User-agent: *\nDisallow: /b\n';
    const order = [a, b, a, a, b];
    await evalLines(jsonl(order.map((robots) => ({ robots, ua: 'x', url: 'http://h/a' }))), { parse, cacheMaxEntries: 1 });
    expect(counter.parses).toBe(4); // a, b, a (evicted by b), a (hit), b (evicted by a)
  });

  it('does not keep a body larger than the byte bound', async () => {
    const { counter, parse } = countingParse();
    const rows = [1, 2, 3].map(() => ({ robots: ROBOTS, ua: 'x', url: 'http://a/' }));
    await evalLines(jsonl(rows), { parse, cacheMaxBytes: ROBOTS.length });
    expect(counter.parses).toBe(3);
  });
});

describe('eval: streaming', () => {
  it('answers 100,000 lines in order', async () => {
    const bodies = ['User-agent: *\nDisallow: /odd/\n', 'User-agent: *\nDisallow: /even/\nAllow: /even/keep\n'] as const;
    const total = 100_000;
    async function* lines() {
      // Feed in chunks of 1,000 lines, as a pipe would.
      for (let start = 0; start < total; start += 1000) {
        let chunk = '';
        for (let i = start; i < start + 1000; i++) {
          // Odd lines: body 0, /odd/ (disallowed by line 2). Even lines: body 1, /even/keep/ on
          // every third line (allowed by line 3), else /even/ (disallowed by line 2).
          const url = i % 2 === 1 ? `http://h/odd/${i}` : i % 3 === 0 ? `http://h/even/keep/${i}` : `http://h/even/${i}`;
          chunk += `${JSON.stringify({ robots: i % 2 === 1 ? bodies[0] : bodies[1], ua: 'bot', url })}\n`;
        }
        yield Buffer.from(chunk);
      }
    }
    let index = 0;
    let mismatches = 0;
    let partial = '';
    const out = new Writable({
      write(chunk: Buffer, _enc, done) {
        const text = partial + chunk.toString('utf8');
        const parts = text.split('\n');
        partial = parts.pop()!;
        for (const part of parts) {
          const i = index++;
          const expected = i % 3 === 0 && i % 2 === 0 ? '{"allowed":true,"line":3}' : '{"allowed":false,"line":2}';
          if (part !== expected) mismatches += 1;
        }
        done();
      },
    });
    const stats = await runEval(Readable.from(lines()), out);
    expect(stats).toMatchObject({ lines: total, errors: 0, parses: 2 });
    expect(index).toBe(total);
    expect(mismatches).toBe(0);
  });

  it('waits for drain: a slow consumer never holds more than a chunk of answers', async () => {
    const row = `${JSON.stringify({ robots: ROBOTS, ua: 'x', url: 'http://a/private/' })}\n`;
    const chunkOfLines = row.repeat(200);
    let written = 0;
    let maxBuffered = 0;
    const out = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _enc, done) {
        written += chunk.length;
        setTimeout(done, 1); // a slow reader of our output
      },
    });
    const origWrite = out.write.bind(out);
    out.write = ((chunk: string) => {
      const ok = origWrite(chunk);
      maxBuffered = Math.max(maxBuffered, out.writableLength);
      return ok;
    }) as typeof out.write;
    const input = Readable.from(Array.from({ length: 100 }, () => Buffer.from(chunkOfLines)));
    await runEval(input, out);
    await new Promise<void>((resolve) => out.end(resolve));
    const answerBytes = '{"allowed":false,"line":2}\n'.length;
    expect(written).toBe(100 * 200 * answerBytes);
    // Without waiting for 'drain' all 100 chunks of answers would pile up in the buffer.
    expect(maxBuffered).toBeLessThanOrEqual(200 * answerBytes + 1024);
  });
});

describe('eval: the reader goes away', () => {
  const input = () => Readable.from(Array.from({ length: 50 }, () => Buffer.from(`${JSON.stringify({ robots: ROBOTS, ua: 'x', url: 'http://a/' })}\n`.repeat(100))));
  const brokenPipe = () =>
    new Writable({
      highWaterMark: 64,
      write(_chunk, _enc, done) {
        setImmediate(() => done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })));
      },
    });

  it('runEval rejects with the output error instead of hanging or crashing', async () => {
    await expect(runEval(input(), brokenPipe())).rejects.toMatchObject({ code: 'EPIPE' });
  });

  it('the command stops quietly on EPIPE, as `| head` expects', async () => {
    const stderr = new PassThrough();
    let errText = '';
    stderr.on('data', (c: Buffer) => (errText += c.toString()));
    const code = await main(['eval'], { stdin: input(), stdout: brokenPipe(), stderr });
    expect(code).toBe(0);
    expect(errText).toBe('');
  });

  it('another output error is a failure (exit code 2)', async () => {
    const stdout = new Writable({
      write(_chunk, _enc, done) {
        done(Object.assign(new Error('disk full'), { code: 'ENOSPC' }));
      },
    });
    const stderr = new PassThrough();
    let errText = '';
    stderr.on('data', (c: Buffer) => (errText += c.toString()));
    const code = await main(['eval'], { stdin: input(), stdout, stderr });
    expect(code).toBe(2);
    expect(errText).toMatch(/disk full/);
  });
});

describe('eval: through the command line', () => {
  it('reads stdin and writes stdout', async () => {
    const input = jsonl([{ robots: ROBOTS, ua: 'FooBot', url: 'http://a/' }, 'oops', { robots_b64: b64(ROBOTS), ua: 'x', url: 'http://a/private/ok' }]);
    const run = await runCli(['eval', '--stats'], { stdin: input });
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { allowed: false, line: 6 },
      { error: expect.stringMatching(/not JSON/) },
      { allowed: true, line: 3 },
    ]);
    expect(run.stderr).toBe('eval: lines=3 errors=1 parses=2 cache-hits=0\n');
  });

  it('rejects a cache bound that is not a whole number', async () => {
    const run = await runCli(['eval', '--cache-entries', 'many']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/not a whole number/);
  });

  it('answers as the library named by --profile (issue 19), the same lines in and out', async () => {
    const robots = 'User-agent: *\nDisallow: /*.pdf$\n';
    const input = jsonl([{ robots, ua: 'GPTBot', url: 'https://example.com/files/a.pdf' }]);
    const answers = async (profile: string) => {
      const run = await runCli(['eval', '--profile', profile], { stdin: input });
      expect(run.code).toBe(0);
      return JSON.parse(run.stdout) as unknown;
    };
    // urllib reads no wildcards, so the PDF stays allowed; the others read them.
    expect(await answers('python-urllib')).toEqual({ allowed: true, line: null });
    expect(await answers('scrapy-protego')).toEqual({ allowed: false, line: null });
    expect(await answers('node-robots-parser')).toEqual({ allowed: false, line: 2 });
    expect(await answers('crawler-commons')).toEqual({ allowed: false, line: null });
    expect(await answers('google')).toEqual({ allowed: false, line: 2 });
  });

  it('answers a 500 KiB group of 15,000 agents over 27,000 rules under every profile (issue 26: it was minutes)', async () => {
    const robots_b64 = b64(Buffer.from(manyAgentsOneGroup()));
    // `/0` is disallowed and allowed by rules of equal length: Google and the libraries allow (ties to Allow).
    const input = jsonl(['aa', 'xyz', 'Unnamed'].map((ua) => ({ robots_b64, ua, url: 'https://example.com/0' })));
    for (const profile of ['google', 'scrapy-protego', 'node-robots-parser']) {
      const run = await runCli(['eval', '--profile', profile], { stdin: input });
      expect(run.code, run.stderr).toBe(0);
      const answers = run.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { allowed: boolean }).allowed);
      expect(answers, profile).toEqual([true, true, true]);
    }
  });

  it('answers an error line where the profile\'s library raises, and goes on', async () => {
    const input = jsonl([
      { robots: 'User-agent: *\nDisallow: //[x]/a\n', ua: 'GPTBot', url: 'https://example.com/' },
      { robots: 'User-agent: *\nDisallow: /\n', ua: 'GPTBot', url: 'https://example.com/' },
    ]);
    const run = await runCli(['eval', '--profile', 'python-urllib'], { stdin: input });
    expect(run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { error: expect.stringMatching(/python-urllib profile's library raises: .*IPv4 or IPv6/) },
      { allowed: false, line: null },
    ]);
  });

  it('refuses an unknown --profile', async () => {
    const run = await runCli(['eval', '--profile', 'perl']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/not a parser profile; one of google, python-urllib/);
  });
});
