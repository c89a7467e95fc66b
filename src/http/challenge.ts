/**
 * Bot protection answering in the site's place (pure): a challenge or WAF page is what a bot
 * wall served to the auditor, not what the site serves to crawlers (search engines are usually
 * let through), so it says nothing about the site's robots.txt. Detected from the final
 * response's status, headers and the first bytes of its body.
 *
 * Each signal cites where the vendor documents it or where its responses are widely recorded.
 * A bare 403 from a plain server matches none of them and stays a 4xx.
 */

/** Who answered: the vendor when a signal names one. */
export type ChallengeVendor = 'cloudflare' | 'aws_waf' | 'vercel' | 'datadome' | 'imperva' | 'akamai' | 'sucuri';

export const CHALLENGE_VENDOR_NAMES: Readonly<Record<ChallengeVendor, string>> = {
  cloudflare: 'Cloudflare',
  aws_waf: 'AWS WAF',
  vercel: 'Vercel Firewall',
  datadome: 'DataDome',
  imperva: 'Imperva (Incapsula)',
  akamai: 'Akamai',
  sucuri: 'Sucuri',
};

export interface Challenge {
  vendor: ChallengeVendor;
  /** The signal that matched, for people (`cf-mitigated: challenge`). */
  signal: string;
}

/** Bytes of a body the detector looks at: interstitials name themselves in their <head>. */
export const CHALLENGE_SNIFF_BYTES = 4096;

export interface ChallengeInput {
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  header: (name: string) => string | null;
  /** The first bytes of the body (up to CHALLENGE_SNIFF_BYTES), or null when not read. */
  bodyStart: Buffer | null;
}

const has = (value: string | null, token: string) => value !== null && value.toLowerCase().split(/\s*,\s*/).includes(token);
const isDenial = (status: number) => status === 401 || status === 403 || status === 429 || status === 503;

export function detectChallenge(input: ChallengeInput): Challenge | null {
  const { status, header } = input;
  // Cloudflare: every challenge page, whatever its type and status, carries `cf-mitigated:
  // challenge` ("challenge is the only valid value").
  // https://developers.cloudflare.com/cloudflare-challenges/challenge-types/challenge-pages/detect-response
  if (has(header('cf-mitigated'), 'challenge')) return { vendor: 'cloudflare', signal: 'cf-mitigated: challenge' };

  // AWS WAF: a Challenge action answers 202 with `x-amzn-waf-action: challenge`, a CAPTCHA
  // action 405 with `x-amzn-waf-action: captcha`.
  // https://docs.aws.amazon.com/waf/latest/developerguide/waf-captcha-and-challenge-actions.html
  const aws = header('x-amzn-waf-action');
  if (has(aws, 'challenge') || has(aws, 'captcha')) return { vendor: 'aws_waf', signal: `x-amzn-waf-action: ${aws!.trim()}` };

  // Vercel Firewall (Attack Challenge Mode, bot mitigation): `x-vercel-mitigated: challenge` with
  // the "Vercel Security Checkpoint" page, as recorded e.g. in
  // https://github.com/mohamedhiba/smartmenu/issues/45 (mode: https://vercel.com/docs/vercel-firewall/attack-challenge-mode).
  if (has(header('x-vercel-mitigated'), 'challenge')) return { vendor: 'vercel', signal: 'x-vercel-mitigated: challenge' };

  const body = input.bodyStart ? input.bodyStart.toString('latin1') : '';

  // DataDome: its block page is a 403 (sometimes 401) with the `x-datadome` / `x-dd-b` response
  // headers and a captcha or device check loaded from geo.captcha-delivery.com.
  // Recorded e.g. in https://glama.ai/mcp/servers/capskip/capskip-mcp/tools/capskip_solve_datadome
  if (isDenial(status) && (header('x-datadome') !== null || header('x-dd-b') !== null || body.includes('captcha-delivery.com'))) {
    return { vendor: 'datadome', signal: header('x-datadome') !== null ? 'x-datadome' : header('x-dd-b') !== null ? 'x-dd-b' : 'captcha-delivery.com page' };
  }

  // Imperva (Incapsula): a refused request gets a page naming an "Incapsula incident ID", or a
  // JavaScript challenge from /_Incapsula_Resource. `x-iinfo` alone is on every response it
  // proxies, so it is not a signal by itself.
  // https://scrappey.com/qa/web-automation/how-imperva-detects-bots, https://http.dev/x-iinfo
  if (/Incapsula incident ID|_Incapsula_Resource/i.test(body)) return { vendor: 'imperva', signal: 'Incapsula page' };

  // Sucuri: its firewall's denials carry `x-sucuri-block: <rule>` (Server: Sucuri/Cloudproxy).
  // Recorded e.g. in https://github.com/Ekultek/WhatWaf/issues/1161 ; https://docs.sucuri.net/website-firewall/
  const sucuri = header('x-sucuri-block');
  if (sucuri !== null) return { vendor: 'sucuri', signal: `x-sucuri-block: ${sucuri.trim()}` };

  // Akamai: a WAF / Bot Manager denial is a 403 "Access Denied" page with a "Reference #18...."
  // trace id, served by AkamaiGHost. https://community.akamai.com/community/cloud-security/blog/2016/04/07/why-is-akamai-blocking-me
  if (status === 403 && /akamaighost/i.test(header('server') ?? '') && /Reference\s+#\d+\./.test(body)) {
    return { vendor: 'akamai', signal: 'AkamaiGHost Access Denied (Reference #)' };
  }

  // A Cloudflare interstitial served without its header (an old proxy, a 200 from a worker):
  // the "Just a moment..." page that loads /cdn-cgi/challenge-platform/. Both must be there: a
  // robots.txt never holds an HTML title and Cloudflare's challenge script path together.
  if (/<title>\s*Just a moment\.\.\.\s*<\/title>/i.test(body) && body.includes('/cdn-cgi/challenge-platform/')) {
    return { vendor: 'cloudflare', signal: '"Just a moment..." challenge page' };
  }
  return null;
}
