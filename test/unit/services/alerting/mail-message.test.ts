/**
 * Alert mails (src/services/alerting/mail-message.ts): every kind rendered from its own data,
 * those the module does not know included; both parts carry the same facts; a site's text is
 * escaped in HTML and its hidden characters shown as markers; subjects are one line.
 */
import { describe, expect, it } from 'vitest';
import { ALERT_RULES } from '../../../../src/services/alerting/alert-rules.js';
import type { AlertDraft, VerdictFlip } from '../../../../src/night/alerts.js';
import { alertMail, digestMail, MAIL_DIGEST_MAX_ALERTS, MAIL_MAX_FLIPS, testMail } from '../../../../src/services/alerting/mail-message.js';
import { MAIL_HTML_MAX_BYTES, MAIL_SUBJECT_MAX_CHARS, MAIL_TEXT_MAX_BYTES } from '../../../../src/services/alerting/size-limits.js';
import { hostileAlerts } from '../../../helpers/hostile-alerts.js';

const ORIGIN = 'https://shop.example';
const RAISED = new Date('2026-11-01T03:00:00Z');

function flip(i: number, rule = '/products/'): VerdictFlip {
  return {
    url: `${ORIGIN}/products/${i}`,
    agent: 'Googlebot',
    agentFamily: 'search',
    isRoot: false,
    from: true,
    to: false,
    cause: 'rules_changed',
    ruleBefore: null,
    ruleAfter: { kind: 'disallow', value: rule, line: 3 },
  };
}

function alert(partial: Partial<AlertDraft> = {}): AlertDraft {
  return {
    dedupeKey: 'search_url_disallowed-0123',
    severity: 'critical',
    kind: 'search_url_disallowed',
    title: `1 tracked URL now disallowed for search crawlers on ${ORIGIN}`,
    runId: '12',
    siteId: '3',
    origin: ORIGIN,
    details: { flips: [flip(1)], flipsTotal: 1 },
    ...partial,
  };
}

const parts = (m: { text: string; html: string }) => [m.text, m.html];

describe('an alert mail', () => {
  it('both parts: the title, the site, the flipped URL, the crawler, the deciding line, the dashboard link', () => {
    const m = alertMail(alert(), { raisedAt: RAISED, dashboardUrl: 'https://dash.example' });
    expect(m.subject).toBe(`[robots-audit] CRITICAL: 1 tracked URL now disallowed for search crawlers on ${ORIGIN}`);
    for (const part of parts(m)) {
      for (const fact of [ORIGIN, `${ORIGIN}/products/1`, 'Googlebot (search)', 'line 3: Disallow: /products/', 'search_url_disallowed', '2026-11-01 03:00 UTC']) expect(part).toContain(fact);
      expect(part).toContain('https://dash.example/site?origin=https%3A%2F%2Fshop.example');
    }
  });

  it('no dashboard link when ROBOTS_AUDIT_DASHBOARD_URL is not set', () => {
    for (const part of parts(alertMail(alert(), { raisedAt: RAISED }))) expect(part).not.toContain('/site?origin=');
  });

  it.each(ALERT_RULES.map((r) => r.kind))('every kind of the rules renders: %s', (kind) => {
    const m = alertMail(alert({ kind, title: `a ${kind} alert` }), { raisedAt: RAISED });
    expect(m.text).toContain(kind);
    expect(m.html).toContain(kind);
  });

  it('a kind and fields it does not know (another module\'s alert) are rendered from their data', () => {
    const m = alertMail(
      alert({ kind: 'night_failed' as AlertDraft['kind'], severity: 'warning', origin: '', title: 'the night of 2026-11-01 failed', details: { failedSites: 42, reason: 'Postgres away', lastGoodNight: { runKey: 'nightly-2026-10-31', at: '2026-10-31T03:00:00Z' }, flappingNights: [3, 5] } as AlertDraft['details'] }),
      { raisedAt: RAISED },
    );
    expect(m.subject).toBe('[robots-audit] WARNING: the night of 2026-11-01 failed');
    for (const part of parts(m)) {
      for (const fact of ['night_failed', 'Failed sites', '42', 'Postgres away', 'Last good night', 'runKey: nightly-2026-10-31', 'Flapping nights', '3, 5', 'none (an alert about the run)']) expect(part).toContain(fact);
    }
  });

  it('hostile text: HTML is escaped, hidden characters are markers in both parts, the subject is one line', () => {
    const evil = alert({ title: `x\r\nBcc: victim@example.com <script>alert(1)</script>\u202egnp.exe`, details: { flips: [flip(1, '/<img src=x onerror=alert(1)>\u001b[2J')], flipsTotal: 1 } });
    const m = alertMail(evil, { raisedAt: RAISED });
    expect(m.subject).not.toMatch(/[\r\n]/);
    expect(m.subject).toContain('<U+202E>');
    expect(m.html).not.toContain('<script>');
    expect(m.html).not.toContain('<img');
    expect(m.html).toContain('&lt;script&gt;');
    for (const part of parts(m)) {
      expect(part.includes('\u202e') || part.includes('\u001b')).toBe(false);
      expect(part).toContain('<U+001B>'.replace(/</g, part === m.html ? '&lt;' : '<').replace(/>/g, part === m.html ? '&gt;' : '>'));
    }
  });

  it(`lists at most ${MAIL_MAX_FLIPS} flips and says how many there were`, () => {
    const flips = Array.from({ length: 120 }, (_, i) => flip(i));
    const m = alertMail(alert({ details: { flips, flipsTotal: 180 } }), { raisedAt: RAISED });
    expect(m.text).toContain(`Verdicts that flipped (${MAIL_MAX_FLIPS} of 180)`);
    expect(m.text).toContain(`${ORIGIN}/products/49\n`);
    expect(m.text).not.toContain(`${ORIGIN}/products/50\n`);
  });

  it('the text diff, cut', () => {
    const m = alertMail(alert(), { raisedAt: RAISED, textDiff: `--- before\n+++ after\n@@ -1 +1 @@\n${'+Disallow: /x\n'.repeat(2000)}` });
    expect(m.text).toContain('robots.txt, before and after (unified diff):\n  --- before');
    expect(m.text).toMatch(/… \(\d+ more characters\)/);
  });
});

describe('a digest mail', () => {
  const alerts = [
    alert(),
    alert({ severity: 'warning', kind: 'ai_access_changed', title: 'AI crawler access changed', origin: 'https://news.example', details: { flips: Array.from({ length: 7 }, (_, i) => ({ ...flip(i), agent: 'GPTBot', agentFamily: 'ai' as const })), flipsTotal: 7 } }),
    alert({ severity: 'info', kind: 'sitemaps_changed', title: '1 sitemap changed', details: { sitemapsAdded: [`${ORIGIN}/s.xml`] } }),
  ];

  it('a summary, then each site with its alerts and their first flips, and the run on the dashboard', () => {
    const m = digestMail(alerts, { runId: '12', finishedAt: RAISED, dashboardUrl: 'https://dash.example' });
    expect(m.subject).toBe('[robots-audit] run 12: 1 critical, 1 warning, 1 info on 2 sites');
    for (const part of parts(m)) {
      for (const fact of ['[CRITICAL] search_url_disallowed', '[WARNING] ai_access_changed', '[INFO] sitemaps_changed', 'https://dash.example/runs/12', '… 4 more flips']) expect(part).toContain(fact);
    }
    // The most severe site first.
    expect(m.text.indexOf(ORIGIN)).toBeLessThan(m.text.indexOf('https://news.example'));
  });

  it(`at most ${MAIL_DIGEST_MAX_ALERTS} alerts, the others counted`, () => {
    const many = Array.from({ length: MAIL_DIGEST_MAX_ALERTS + 25 }, (_, i) => alert({ origin: `https://s${i}.example` }));
    expect(digestMail(many, { runId: '1', finishedAt: RAISED }).text).toContain('… 25 more alerts not listed');
  });
  it('issue 26: the run digest names the sites it did not wait for and until when; the late digest says what it is', () => {
    const pending = [{ origin: 'https://slow.example', until: new Date('2026-11-23T04:00:00.000Z') }];
    const m = digestMail(alerts, { runId: '12', finishedAt: RAISED, pending });
    for (const part of parts(m)) expect(part).toContain('https://slow.example until 2026-11-23T04:00:00.000Z');
    const late = digestMail([alert({ origin: 'https://slow.example' })], { runId: '12', finishedAt: RAISED, late: true });
    expect(late.subject).toBe('[robots-audit] run 12, late sites: 1 critical, 0 warning, 0 info on 1 site');
    expect(late.text).toContain('were pending when run 12 completed');
    expect(late.text).toContain('late digest of run 12');
  });
});

describe('the test mail', () => {
  it('says the address receives alerts, in both parts', () => {
    const m = testMail(3, RAISED);
    expect(m.subject).toBe('[robots-audit] test message');
    for (const part of parts(m)) expect(part).toContain('This address receives robots.txt alerts');
  });
});

describe('issue 26: both parts under their maxima, whatever the alert holds', () => {
  const hostile = hostileAlerts();
  const bytes = (text: string) => Buffer.byteLength(text);

  it.each(Object.entries(hostile))(
    `%s: text under ${MAIL_TEXT_MAX_BYTES / 1024} KiB, HTML under ${MAIL_HTML_MAX_BYTES / 1024} KiB, the subject one line`,
    (_, { alert: a, textDiff }) => {
      const m = alertMail(a, { raisedAt: RAISED, textDiff, dashboardUrl: 'https://dash.example' });
      expect(bytes(m.text)).toBeLessThanOrEqual(MAIL_TEXT_MAX_BYTES);
      expect(bytes(m.html)).toBeLessThanOrEqual(MAIL_HTML_MAX_BYTES);
      expect(m.subject.length).toBeLessThanOrEqual(MAIL_SUBJECT_MAX_CHARS);
      // What and where, and the footer that names the alert, survive any cut.
      for (const part of parts(m)) {
        expect(part).toContain(a.kind);
        expect(part).toContain(a.dedupeKey);
        expect(part).toContain('https://dash.example/site?origin=');
      }
    },
  );

  it('a part cut to fit says, in both parts, how many lines of which list it left out', () => {
    const { alert: a, textDiff } = hostile['stored before the bounds: 200 flips of hidden characters']!;
    const m = alertMail(a, { raisedAt: RAISED, textDiff });
    for (const part of parts(m)) expect(part).toMatch(/… \d+ more (lines|rows) not shown \(the size limit of this mail\)/);
  });

  it('an alert whose details were cut to their limit says so', () => {
    const m = alertMail(alert({ details: { flips: [flip(1)], flipsTotal: 900, truncated: true } }), { raisedAt: RAISED });
    for (const part of parts(m)) expect(part).toContain('Lists of this alert were cut further than their own limits, to keep it under 64 KiB');
  });

  it('an ordinary alert is rendered whole: nothing cut', () => {
    const m = alertMail(alert(), { raisedAt: RAISED, textDiff: '+Disallow: /products/' });
    for (const part of parts(m)) expect(part).not.toContain('not shown');
  });

  it.each([
    ['5,000 alerts with titles of hidden characters', 5_000, '\u202e'.repeat(MAIL_SUBJECT_MAX_CHARS * 4), 1],
    ['800 alerts each with three flips of URLs of hidden characters', 800, 'a title', 200],
  ])('a digest of %s: both parts under their maxima, the alerts left out counted', (_, n, title, urlChars) => {
    const flips = Array.from({ length: 3 }, (_, i) => ({ ...flip(i), url: `${ORIGIN}/${'\u0001'.repeat(urlChars)}/${i}` }));
    const many = Array.from({ length: n }, (_, i) => alert({ origin: `https://s${String(i).padStart(4, '0')}.example`, title, details: { flips, flipsTotal: 3 } }));
    const m = digestMail(many, { runId: '7', finishedAt: RAISED, dashboardUrl: 'https://dash.example' });
    expect(bytes(m.text)).toBeLessThanOrEqual(MAIL_TEXT_MAX_BYTES);
    expect(bytes(m.html)).toBeLessThanOrEqual(MAIL_HTML_MAX_BYTES);
    const listed = m.text.match(/^ {2}\[CRITICAL\] search_url_disallowed: /gm)!.length;
    expect(listed).toBeGreaterThan(10);
    for (const part of parts(m)) {
      expect(part).toContain(`… ${n - listed} more alerts not listed`);
      expect(part).toContain('https://dash.example/runs/7');
    }
  });
});
