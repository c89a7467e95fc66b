/** A site's events of a night as the night page shows them: one line per cause (groupByCause). */
import { describe, expect, it } from 'vitest';
import { groupByCause } from '../../../src/reports/night-events.js';
import type { SiteNightEvents } from '../../../src/reports/night-events.js';
import type { UsageFlipEvent } from '../../../src/reports/usage-flips.js';

const usage = (agent: string, over: Partial<UsageFlipEvent> = {}): UsageFlipEvent => ({
  url: 'https://example.com/',
  agent,
  purpose: 'ai-train',
  from: 'allowed',
  to: 'refused',
  ruleAfter: { line: 3, mechanism: 'content-signal', label: 'ai-train', value: 'ai-train=no', since: '2026-06-02T03:00:00.000Z' },
  ...over,
});

const night = (over: Partial<SiteNightEvents>): SiteNightEvents => ({ change: null, flips: [], usageFlips: [], usageFlipCount: 0, alerts: [], ...over });

describe('groupByCause: usage preferences changed, a line of their own', () => {
  it.each<[string, SiteNightEvents, { what: string[]; usageFlipCount: number; alerts: string[] }]>([
    [
      'the flips of one change take one line naming the crawlers, with the alert it raised',
      night({
        usageFlips: [usage('CCBot'), usage('GPTBot')],
        usageFlipCount: 2,
        alerts: [{ severity: 'info', kind: 'ai_training_refused', title: 'AI training refused on https://example.com: 1 tracked URL' }],
      }),
      { what: ['https://example.com/: ai-train allowed → refused (line 3: Content-Signal: ai-train=no) for CCBot, GPTBot'], usageFlipCount: 2, alerts: ['ai_training_refused'] },
    ],
    [
      'a withdrawn preference names no line; the flips past those listed are counted',
      night({
        usageFlips: [usage('GPTBot', { purpose: 'search', to: 'unknown', ruleAfter: null })],
        usageFlipCount: 150,
        alerts: [{ severity: 'info', kind: 'usage_preference_withdrawn', title: 'search no longer stated on https://example.com' }],
      }),
      { what: ['https://example.com/: search allowed → unknown (no line) for GPTBot', '… and 149 more usage flips'], usageFlipCount: 150, alerts: ['usage_preference_withdrawn'] },
    ],
  ])('%s', (_name, events, expected) => {
    const [line, ...others] = groupByCause(events);
    expect(others).toEqual([]);
    expect(line).toMatchObject({ cause: 'usage', severity: 'info', what: expected.what, usageFlipCount: expected.usageFlipCount, flipCount: 0 });
    expect(line!.alerts.map((a) => a.kind)).toEqual(expected.alerts);
  });

  it('beside the change that caused it (a new file: the rules line), never merged into it', () => {
    const causes = groupByCause(
      night({
        change: { kinds: ['raw', 'records'], outcomeFrom: 'ok', outcomeTo: 'ok', policyFrom: 'rules', policyTo: 'rules', ruleDiff: null },
        usageFlips: [usage('GPTBot')],
        usageFlipCount: 1,
      }),
    );
    expect(causes.map((c) => c.cause)).toEqual(['rules', 'usage']);
  });
});
