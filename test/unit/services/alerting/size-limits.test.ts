/**
 * The size limits of alerts and their messages (src/services/alerting/size-limits.ts) are
 * documented: the README's "Sizes" table under "Alerts" lists every one, in order, with its value.
 * And they fit each other: what one alert stores fits in its webhook with room for the rest.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as limits from '../../../../src/services/alerting/size-limits.js';

/** A limit's value as the README writes it: bytes in KiB, counts with thousands separators. */
const written = (name: string, value: number) => (name.endsWith('_BYTES') ? `${value / 1024} KiB` : value.toLocaleString('en-US'));

describe('size limits', () => {
  it('the README\'s "Sizes" table lists every limit, in order, with its value', () => {
    const readme = fs.readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Sizes'), readme.indexOf('## Lint codes'));
    const rows = section
      .split('\n')
      .filter((l) => /^\| `[A-Z_]+` \|/.test(l))
      .map((l) => l.split(' | ').slice(0, 2).join(' | '));
    expect(rows).toEqual(Object.entries(limits).map(([name, value]) => `| \`${name}\` | ${written(name, value)}`));
  });

  it('an alert\'s stored details, its title and the text diff fit in its webhook', () => {
    // The title and the envelope (ids, origin) weigh at most a few KiB; the text diff gets what remains.
    const envelope = limits.MAX_ALERT_TITLE_CHARS * 6 + 2048;
    expect(limits.MAX_ALERT_DETAILS_BYTES + envelope + 16 * 1024).toBeLessThanOrEqual(limits.WEBHOOK_ALERT_MAX_BYTES);
  });

  it('a digest of its most alerts with ordinary titles fits in its body', () => {
    // About 250 bytes an alert (ids, kind, title, origin): the count binds first.
    expect(limits.WEBHOOK_DIGEST_MAX_ALERTS * 250).toBeLessThanOrEqual(limits.WEBHOOK_DIGEST_MAX_BYTES / 2);
  });
});
