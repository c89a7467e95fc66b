/** The e-mail settings of src/config/env.ts: checked at start, with a clear message. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';

describe('e-mail settings', () => {
  it('unset by default: e-mail channels cannot be sent, no dashboard link', () => {
    const c = loadConfig({});
    expect([c.ROBOTS_AUDIT_SMTP_URL, c.ROBOTS_AUDIT_MAIL_FROM, c.ROBOTS_AUDIT_DASHBOARD_URL, c.ROBOTS_AUDIT_SMTP_TIMEOUT_MS]).toEqual([null, null, null, 15_000]);
  });

  it('accepted as given; the dashboard URL without its trailing slash', () => {
    const c = loadConfig({ ROBOTS_AUDIT_SMTP_URL: 'smtps://u:p@mail.example.com:465', ROBOTS_AUDIT_MAIL_FROM: 'robots-audit <alerts@example.com>', ROBOTS_AUDIT_DASHBOARD_URL: 'https://robots.example.com/' });
    expect([c.ROBOTS_AUDIT_SMTP_URL, c.ROBOTS_AUDIT_MAIL_FROM, c.ROBOTS_AUDIT_DASHBOARD_URL]).toEqual(['smtps://u:p@mail.example.com:465', 'robots-audit <alerts@example.com>', 'https://robots.example.com']);
  });

  it.each([
    ['ROBOTS_AUDIT_SMTP_URL', 'mail.example.com:587', /ROBOTS_AUDIT_SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/],
    ['ROBOTS_AUDIT_MAIL_FROM', 'robots-audit', /ROBOTS_AUDIT_MAIL_FROM: must be an address/],
    ['ROBOTS_AUDIT_DASHBOARD_URL', 'robots.example.com', /ROBOTS_AUDIT_DASHBOARD_URL: must be an http/],
  ])('%s=%j stops the process with its reason', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
