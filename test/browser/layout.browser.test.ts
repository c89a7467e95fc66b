/**
 * The dashboard at the sizes people use it, in headless Chromium: phones (360 and 390 px wide)
 * and a laptop (1366 px). No page is wider than the screen (a wide table scrolls in its own box,
 * a 20,000-character rule wraps in its cell), every link of the navigation is on screen and
 * inside the header, dates never wrap mid-string; and a robots.txt that lies with hidden
 * characters is shown as it is: U+202E, a zero-width space and ESC appear as marked code points,
 * with a note at the top of the page, and `toBTPG` never reads `GPTBot`.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../helpers/nightly.js';
import { LONG_RULE, NIGHTS, openDashboardInBrowser } from './dashboard-data.js';
import type { DashboardData, DashboardInBrowser } from './dashboard-data.js';

/** The characters of the lying file that must never reach the page as they are. */
const HIDDEN = new RegExp(`[${String.fromCharCode(0x202e, 0x200b, 0x1b)}]`);
const SIZES = [
  { name: 'phone 360', width: 360, height: 740 },
  { name: 'phone 390', width: 390, height: 844 },
  { name: 'desktop 1366', width: 1366, height: 900 },
];

let opened: DashboardInBrowser | undefined;
let data: DashboardData;
let base: string;
let browser: Browser;
let outageRun: number;

beforeAll(async () => {
  opened = await openDashboardInBrowser();
  ({ data, base, browser } = opened);
  const [run] = await rows<{ id: number }>(data.p, 'select id from audit_runs where run_at = $1', [NIGHTS[2]]);
  outageRun = run!.id;
}, 240_000);

afterAll(async () => {
  await opened?.close();
});

const site = (name: string) => `/site?origin=${encodeURIComponent(data.origin(name))}`;

async function open(path: string, size: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
  const response = await page.goto(base + path);
  expect(response?.status(), path).toBeLessThan(500);
  return page;
}

/** How far the page is wider than the screen (0: it fits), and what sticks out. */
const overflow = (page: Page) =>
  page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => { const r = e.getBoundingClientRect(); return r.right > width + 1 && !e.closest('.scroll'); })
      .slice(0, 3).map((e) => e.tagName + '.' + e.className);
    return { by: document.documentElement.scrollWidth - width, wide };
  })()`) as Promise<{ by: number; wide: string[] }>;

describe.each(SIZES)('at $name', (size) => {
  const pages = () => [
    '/',
    '/?show=failing',
    '/?sort=changed&dir=desc',
    site('news'),
    site('shop'),
    site('evil'),
    site('trojan'),
    `${site('news')}&url=/private&ua=GPTBot`,
    '/night',
    `/night?run=${outageRun}`,
    '/changes',
    '/changes?type=flip',
    '/ai',
    '/ai?category=ai-training',
    '/charts',
    '/runs',
    '/alerts',
    '/compliance',
    '/site?origin=https://nowhere.example',
  ];

  it('no page is wider than the screen; wide tables scroll in their own box', async () => {
    for (const path of pages()) {
      const page = await open(path, size);
      expect(await overflow(page), path).toEqual({ by: 0, wide: [] });
      await page.close();
    }
  });

  it('every link of the navigation is on screen, inside the header, readable', async () => {
    const page = await open('/', size);
    const header = (await page.locator('header.top').boundingBox())!;
    const links = page.locator('header.top nav a');
    expect(await links.count()).toBe(8);
    for (const link of await links.all()) {
      const box = (await link.boundingBox())!;
      expect(box.x, await link.textContent() ?? '').toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      expect(box.y).toBeGreaterThanOrEqual(header.y);
      expect(box.y + box.height).toBeLessThanOrEqual(header.y + header.height);
      expect(await link.isVisible()).toBe(true);
    }
    // Every link leads to its page.
    await page.locator('header.top nav a', { hasText: 'Alerts' }).click();
    await expect.poll(() => page.locator('h1').textContent()).toBe('Alerts');
    await page.close();
  });

  it('a 20,000-character rule wraps in the file\'s cell; the page stays as wide as the screen', async () => {
    const page = await open(site('trojan'), size);
    const line = page.locator('table.file td.code', { hasText: 'Disallow: /aaaa' });
    const box = (await line.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(size.width);
    expect((await line.textContent())?.length).toBe(LONG_RULE.length);
    expect((await overflow(page)).by).toBe(0);
    await page.close();
  });

  it('dates never wrap mid-string', async () => {
    for (const path of ['/', '/runs', '/alerts', '/changes']) {
      const page = await open(path, size);
      const split = await page.evaluate(`[...document.querySelectorAll('time')].filter((t) => t.getClientRects().length > 1).length`);
      expect(await page.locator('time').count(), path).toBeGreaterThan(0);
      expect(split, path).toBe(0);
      await page.close();
    }
  });
});

describe('hidden characters are shown as they are (house style, habit 13)', () => {
  it('U+202E, a zero-width space and ESC in the file are boxed code points; the line reads as a crawler reads it', async () => {
    const page = await open(site('trojan'), { width: 1366, height: 900 });
    const agentLine = page.locator('table.file tr#L1 td.code');
    expect(await agentLine.innerText()).toBe('User-agent: U+202EtoBTPG');
    expect(await agentLine.locator('.hc-bidi').getAttribute('title')).toBe('U+202E RIGHT-TO-LEFT OVERRIDE');
    expect(await page.locator('table.file tr#L5 td.code').innerText()).toBe('Disallow: /U+202Egnp.exe');
    expect(await page.locator('table.file tr#L6 td.code').innerText()).toBe('Disallow: /GPTU+200BBot');
    expect(await page.locator('table.file tr#L7 td.code').innerText()).toBe('Allow: /U+001B[2Jclear');
    // Nothing on the page passes a hidden character to the browser as it is.
    const text = await page.evaluate('document.body.innerText');
    expect(text).not.toMatch(HIDDEN);
    // The note at the top names them, and the file's own note too.
    const note = await page.locator('#hidden-note').innerText();
    for (const name of ['U+202E RIGHT-TO-LEFT OVERRIDE', 'U+200B ZERO WIDTH SPACE', 'U+001B ESCAPE']) expect(note).toContain(name);
    expect(await page.locator('.hidden-file').innerText()).toContain('U+202E RIGHT-TO-LEFT OVERRIDE');
    // A marker stands out: boxed, coloured.
    const style = (await page.evaluate(
      `(() => { const s = getComputedStyle(document.querySelector('tr#L1 td.code .hc')); return { border: s.borderTopStyle, colour: s.color }; })()`,
    )) as { border: string; colour: string };
    expect(style.border).toBe('solid');
    expect(style.colour).not.toBe('rgb(27, 31, 35)');
    await page.close();
  });

  it('the lint table says what it found, and its messages are marked as the file is', async () => {
    const page = await open(site('trojan'), { width: 1366, height: 900 });
    const lint = page.locator('table.lint');
    const codes = await lint.locator('tbody tr td:nth-child(3)').allInnerTexts();
    expect(codes.filter((c) => c === 'hidden-characters')).toHaveLength(4);
    expect(await lint.innerText()).not.toMatch(HIDDEN);
    expect(await lint.innerText()).toContain('U+202E RIGHT-TO-LEFT OVERRIDE');
    await page.close();
  });

  it('a page without hidden text has no note', async () => {
    const page = await open(site('news'), { width: 1366, height: 900 });
    expect(await page.locator('#hidden-note').count()).toBe(0);
    await page.close();
  });
});
