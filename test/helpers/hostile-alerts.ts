/**
 * Alerts as large as a site can make them, for the tests of every channel's size (issue 26,
 * item 6): those the alert rules raise from the hostile bodies of hostile-bodies.ts, and alerts
 * as they may have been stored before the bounds (details of any size), whose messages must be
 * bounded all the same. Each comes with the text diff of its night, the worst one can be.
 */
import { diffRobotsTxt } from '../../src/robots/diff.js';
import { parseRobotsTxt } from '../../src/robots/index.js';
import type { AlertDraft, VerdictFlip } from '../../src/night/alerts.js';
import { manyAgentGroups, manyRecords, manySitemaps } from './hostile-bodies.js';
import { alertsOfNight, type NightWithoutTransitions } from './night-alerts.js';

export const HOSTILE_ORIGIN = 'https://www.example.com';

/** The alerts of a night from `before` to `after`, as the pipeline raises them. */
export function alertsOfChange(before: Uint8Array, after: Uint8Array, origin = HOSTILE_ORIGIN): AlertDraft[] {
  const rulesDiff = diffRobotsTxt(parseRobotsTxt(before), parseRobotsTxt(after), { before, after });
  const input: NightWithoutTransitions = {
    runId: 'run-26',
    siteId: '26',
    origin,
    change: {
      kinds: rulesDiff.kinds,
      rulesDiff,
      outcomeFrom: 'ok',
      outcomeTo: 'ok',
      policyFrom: 'rules',
      policyTo: 'rules',
      policyReasonTo: 'R-10',
      fallbackStarted: false,
      fallbackEnded: false,
    },
    flips: [],
  };
  return alertsOfNight(input);
}

/** Characters a browser and a terminal would not show: each becomes a marker in a mail. */
const HIDDEN = '\u0001\u202e\u200b';

/** A text diff at its stored limit (400 lines of 500 characters) made of hidden characters. */
export const HOSTILE_TEXT_DIFF = Array.from({ length: 400 }, () => `+${HIDDEN.repeat(166)}`).join('\n');

function hostileFlip(i: number): VerdictFlip {
  const rule = { kind: 'disallow' as const, value: `/${HIDDEN.repeat(600)}`, line: i + 1 };
  return {
    url: `${HOSTILE_ORIGIN}/${HIDDEN.repeat(600)}/${i}`,
    agent: 'Googlebot',
    agentFamily: 'search',
    isRoot: false,
    from: true,
    to: false,
    cause: 'rules',
    ruleBefore: rule,
    ruleAfter: rule,
  };
}

/** An alert as stored before the bounds came in: any title, details of any size. */
function storedBefore(kind: AlertDraft['kind'], title: string, details: AlertDraft['details']): AlertDraft {
  return { dedupeKey: `${kind}-0123456789abcdef0123456789abcdef`, severity: 'critical', kind, title, runId: 'run-26', siteId: '26', origin: HOSTILE_ORIGIN, details };
}

/** Every hostile alert by name, with the text diff its night would carry. */
export function hostileAlerts(): Record<string, { alert: AlertDraft; textDiff: string }> {
  const sitemaps = alertsOfChange(manySitemaps('v1'), manySitemaps('v2'))[0]!;
  const records = alertsOfChange(manyRecords('Content-Signal', 'a'), manyRecords('Content-Signal', 'b'))[0]!;
  const groups = alertsOfChange(manyAgentGroups('x'), manyAgentGroups('y'));
  const urls = Array.from({ length: 8_000 }, (_, i) => `${HOSTILE_ORIGIN}/sitemaps/${i}.xml`);
  return {
    'sitemaps_changed of 500 KiB of sitemaps': { alert: sitemaps, textDiff: HOSTILE_TEXT_DIFF },
    'records_changed of 500 KiB of Content-Signal values': { alert: records, textDiff: HOSTILE_TEXT_DIFF },
    'rules_changed of 11,000 renamed groups': { alert: groups.find((a) => a.kind === 'rules_changed')!, textDiff: HOSTILE_TEXT_DIFF },
    'records_changed of 11,000 renamed groups': { alert: groups.find((a) => a.kind === 'records_changed')!, textDiff: HOSTILE_TEXT_DIFF },
    'stored before the bounds: 8,000 sitemaps each way and a title of 100,000 characters': {
      alert: storedBefore('sitemaps_changed', `16000 sitemaps changed on ${HOSTILE_ORIGIN}: ${'s'.repeat(100_000)}`, { sitemapsAdded: urls, sitemapsRemoved: urls }),
      textDiff: HOSTILE_TEXT_DIFF,
    },
    'stored before the bounds: 200 flips of hidden characters': {
      alert: storedBefore('search_url_disallowed', `${HIDDEN.repeat(2_000)} now disallowed`, { flips: Array.from({ length: 200 }, (_, i) => hostileFlip(i)), flipsTotal: 5_000 }),
      textDiff: HOSTILE_TEXT_DIFF,
    },
    'stored before the bounds: 5,000 agents of hidden characters, and fields no module knows': {
      alert: storedBefore('disallow_all_added', 'Disallow: / added', {
        agents: Array.from({ length: 5_000 }, (_, i) => `${HIDDEN.repeat(50)}${i}`),
        diffLines: Array.from({ length: 5_000 }, () => HIDDEN.repeat(200)),
        ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`field${i}`, HIDDEN.repeat(5_000)])),
      }),
      textDiff: HOSTILE_TEXT_DIFF,
    },
  };
}
