/**
 * detectChallenge: a bot wall answering in the site's place, from the status, the headers and
 * the first bytes of the body. A bare 403 from a plain server is no challenge (R-12 applies).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectChallenge, type ChallengeVendor } from '../../../src/http/challenge.js';

const JUST_A_MOMENT = fs.readFileSync(new URL('../../fixtures/challenges/cloudflare-just-a-moment.html', import.meta.url));

function detect(status: number, headers: Record<string, string>, body = '') {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return detectChallenge({ status, header: (name) => lower.get(name) ?? null, bodyStart: Buffer.from(body) });
}

const CASES: [string, number, Record<string, string>, string | Buffer, ChallengeVendor | null][] = [
  ['Cloudflare challenge on 403', 403, { 'cf-mitigated': 'challenge', server: 'cloudflare' }, JUST_A_MOMENT, 'cloudflare'],
  ['Cloudflare challenge on 429 (bot fight mode)', 429, { 'cf-mitigated': 'challenge' }, '', 'cloudflare'],
  ['Cloudflare challenge on 503', 503, { 'CF-Mitigated': 'challenge' }, '', 'cloudflare'],
  ['Cloudflare interstitial served with 200 and no header', 200, { 'content-type': 'text/html' }, JUST_A_MOMENT, 'cloudflare'],
  ['AWS WAF Challenge action: 202', 202, { 'x-amzn-waf-action': 'challenge' }, '', 'aws_waf'],
  ['AWS WAF CAPTCHA action: 405', 405, { 'x-amzn-waf-action': 'captcha' }, '', 'aws_waf'],
  ['Vercel Security Checkpoint', 403, { 'x-vercel-mitigated': 'challenge', server: 'Vercel' }, '<title>Vercel Security Checkpoint</title>', 'vercel'],
  ['DataDome block with x-datadome', 403, { 'x-datadome': 'protected', 'x-dd-b': '1' }, '', 'datadome'],
  ['DataDome device check page', 403, {}, '<script src="https://geo.captcha-delivery.com/captcha/"></script>', 'datadome'],
  ['Imperva incident page', 403, { 'x-iinfo': '47-1-0 NNNN' }, '<html>Request unsuccessful. Incapsula incident ID: 123-456</html>', 'imperva'],
  ['Sucuri firewall denial', 403, { 'x-sucuri-block': 'XSS027', server: 'Sucuri/Cloudproxy' }, '', 'sucuri'],
  ['Akamai Access Denied', 403, { server: 'AkamaiGHost' }, 'Access Denied. Reference #18.7a1d2c17.1718409600.3f9b21e', 'akamai'],
  // Near misses: what must stay what it is.
  ['a bare 403 from a plain server (R-12)', 403, { server: 'nginx' }, '<h1>403 Forbidden</h1>', null],
  ['cf-mitigated with another value', 403, { 'cf-mitigated': 'block' }, '', null],
  ['a robots.txt that mentions "Just a moment..."', 200, {}, '# <title>Just a moment...</title>\nUser-agent: *\nDisallow:\n', null],
  ['x-iinfo alone (Imperva proxies every response)', 200, { 'x-iinfo': '47-1-0 NNNN' }, 'User-agent: *\nDisallow:\n', null],
  ['x-datadome on a 200 robots.txt', 200, { 'x-datadome': 'protected' }, 'User-agent: *\nDisallow:\n', null],
  ['AkamaiGHost 404', 404, { server: 'AkamaiGHost' }, 'Not found', null],
];

describe('detectChallenge: vendor signals and near misses', () => {
  it.each(CASES)('%s', (_what, status, headers, body, vendor) => {
    expect(detect(status, headers, String(body))?.vendor ?? null).toBe(vendor);
  });
});
