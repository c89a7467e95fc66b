/**
 * Server-side SVG for the dashboard: a site's nights as a strip, changes per week as stacked
 * bars, the share of sites blocking each AI crawler as lines. Pure: data in, markup out. The
 * markup is inserted unescaped into the page, so every text it carries is escaped here; colours
 * are CSS classes (the Content-Security-Policy allows no inline style).
 */
import type { TimelineNight } from '../reports/web-site.js';
import { escapeHtml } from './html-text.js';

/** The five characters XML gives meaning to, as entities (the same as HTML's). */
export const escapeXml = escapeHtml;

const day = (d: Date) => d.toISOString().slice(0, 10);
const round = (n: number) => Math.round(n * 10) / 10;

/** A night of the strip: what the site page's timeline shows of it. */
export type StripNight = Omit<TimelineNight, 'runId'>;

const CELL = 6;
const STRIP_HEIGHT = 34;
/** Shown at most this wide per night (a short history stays a short strip), and at most the page's width. */
const MAX_CELL_PX = 24;
const MAX_STRIP_PX = 1400;

/** One cell per night, coloured by outcome; a mark above the nights that changed something. */
export function timelineSvg(nights: readonly StripNight[]): string {
  const width = Math.max(1, nights.length) * CELL;
  const cells = nights
    .map((n, i) => {
      const tip = `${day(n.at)}: ${n.outcome}${n.status === null ? '' : ` ${n.status}`}, ${n.policy} (${n.policyReason})${n.changed ? ', changed' : ''}`;
      const mark = n.changed ? `<rect class="mark" x="${i * CELL + 1}" y="0" width="${CELL - 2}" height="5"/>` : '';
      return `<g><title>${escapeXml(tip)}</title>${mark}<rect class="night o-${escapeXml(n.outcome)}" x="${i * CELL}" y="8" width="${CELL - 1}" height="${STRIP_HEIGHT - 8}"/></g>`;
    })
    .join('');
  const label = nights.length === 0 ? 'no nights yet' : `${nights.length} nights, ${day(nights[0]!.at)} to ${day(nights.at(-1)!.at)}`;
  return `<svg class="timeline" role="img" aria-label="${escapeXml(label)}" viewBox="0 0 ${width} ${STRIP_HEIGHT}" preserveAspectRatio="none" width="${Math.min(MAX_STRIP_PX, Math.max(1, nights.length) * MAX_CELL_PX)}" height="${STRIP_HEIGHT}">${cells}</svg>`;
}

export interface Bar {
  label: Date;
  parts: { key: string; value: number }[];
}

const W = 860;
const H = 240;
const PAD = { left: 56, right: 40, top: 12, bottom: 28 };

function yTicks(max: number, fmt: (n: number) => string, plotH: number): string {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return ticks
    .map((t) => {
      const y = round(PAD.top + plotH * (1 - t));
      return `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y}" y2="${y}"/><text class="tick" x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${escapeXml(fmt(max * t))}</text>`;
    })
    .join('');
}

function xLabels(dates: readonly Date[], x: (i: number) => number): string {
  const every = Math.max(1, Math.ceil(dates.length / 8));
  return dates
    .map((d, i) => (i % every === 0 ? `<text class="tick" x="${round(x(i))}" y="${H - 8}" text-anchor="middle">${escapeXml(day(d))}</text>` : ''))
    .join('');
}

/** Stacked bars, one per week; parts coloured by key (CSS class `k-<key>`). */
export function stackedBarsSvg(bars: readonly Bar[], title: string): string {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  // A multiple of 4, so the five ticks are whole numbers.
  const max = Math.ceil(Math.max(1, ...bars.map((b) => b.parts.reduce((a, p) => a + p.value, 0))) / 4) * 4;
  const step = plotW / Math.max(1, bars.length);
  const body = bars
    .map((b, i) => {
      let y = PAD.top + plotH;
      const total = b.parts.reduce((a, p) => a + p.value, 0);
      const tip = `week of ${day(b.label)}: ${total.toLocaleString('en-US')} (${b.parts.map((p) => `${p.key} ${p.value.toLocaleString('en-US')}`).join(', ')})`;
      const rects = b.parts
        .map((p) => {
          const h = (p.value / max) * plotH;
          y -= h;
          return h > 0 ? `<rect class="k-${escapeXml(p.key)}" x="${round(PAD.left + i * step + 1)}" y="${round(y)}" width="${round(Math.max(1, step - 2))}" height="${round(h)}"/>` : '';
        })
        .join('');
      return `<g><title>${escapeXml(tip)}</title>${rects}</g>`;
    })
    .join('');
  return `<svg class="chart" role="img" aria-label="${escapeXml(title)}" viewBox="0 0 ${W} ${H}">${yTicks(max, (n) => Math.round(n).toLocaleString('en-US'), plotH)}${body}${xLabels(
    bars.map((b) => b.label),
    (i) => PAD.left + i * step + step / 2,
  )}</svg>`;
}

export interface Line {
  name: string;
  values: readonly number[];
}

/** Lines of shares (0..1) over weeks, each with its own colour class `c<i>`. */
export function shareLinesSvg(dates: readonly Date[], lines: readonly Line[], title: string): string {
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const max = Math.max(0.01, ...lines.flatMap((l) => l.values));
  const x = (i: number) => PAD.left + (dates.length <= 1 ? plotW / 2 : (i * plotW) / (dates.length - 1));
  const y = (v: number) => PAD.top + plotH * (1 - v / max);
  const paths = lines
    .map((l, k) => {
      const d = l.values.map((v, i) => `${i === 0 ? 'M' : 'L'}${round(x(i))},${round(y(v))}`).join(' ');
      const last = l.values.at(-1) ?? 0;
      return `<g><title>${escapeXml(`${l.name}: ${(last * 100).toFixed(1)}% of sites now`)}</title><path class="line c${k % 10}" d="${d}"/></g>`;
    })
    .join('');
  return `<svg class="chart" role="img" aria-label="${escapeXml(title)}" viewBox="0 0 ${W} ${H}">${yTicks(max, (n) => `${(n * 100).toFixed(1)}%`, plotH)}${paths}${xLabels(dates, x)}</svg>`;
}
