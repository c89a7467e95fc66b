/**
 * The exposition reader the metrics tests rely on (test/helpers/prometheus.ts): it must read what
 * prom-client writes, value for value, labelled histograms included, and refuse what is not the
 * text format.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseExposition, parseScrape } from '../../helpers/prometheus.js';

describe('parseScrape on what prom-client writes', () => {
  it('a gauge set to NaN, as prom-client writes it', async () => {
    const registry = new Registry();
    new Gauge({ name: 'lag_seconds', help: 'no sample yet', registers: [registry] }).set(NaN);
    expect(parseScrape(await registry.metrics()).value('lag_seconds')).toBeNaN();
  });

  it('counters, gauges and a labelled histogram, value for value', async () => {
    const registry = new Registry();
    const registers = [registry];
    const counter = new Counter({ name: 'c_total', help: 'a counter', labelNames: ['kind'], registers });
    const gauge = new Gauge({ name: 'g', help: 'a "gauge"\\nwith a backslash', labelNames: ['note'], registers });
    const histogram = new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['outcome'], buckets: [0.1, 1], registers });
    counter.inc({ kind: 'a' }, 2);
    counter.inc({ kind: 'b' });
    gauge.set({ note: 'quote " backslash \\ newline \n end' }, -1.5);
    histogram.observe({ outcome: 'ok' }, 0.05);
    histogram.observe({ outcome: 'ok' }, 0.5);
    histogram.observe({ outcome: 'slow' }, 30);
    const m = parseScrape(await registry.metrics());

    expect(m.family('c_total')).toMatchObject({ type: 'counter', help: 'a counter' });
    expect(m.value('c_total', { kind: 'a' })).toBe(2);
    expect(m.sum('c_total')).toBe(3);
    expect(m.value('g', { note: 'quote " backslash \\ newline \n end' })).toBe(-1.5);
    expect(m.histogram('h_seconds', { outcome: 'ok' })).toEqual({ buckets: [['0.1', 1], ['1', 2], ['+Inf', 2]], count: 2, sum: 0.55 });
    expect(m.histogram('h_seconds', { outcome: 'slow' })).toEqual({ buckets: [['0.1', 0], ['1', 0], ['+Inf', 1]], count: 1, sum: 30 });
    expect(m.family('h_seconds').samples).toHaveLength(10);
  });
});

describe('parseExposition', () => {
  it('reads NaN (in any case: prom-client writes Nan), ±Inf, timestamps and comments', () => {
    const [family] = parseExposition('# a comment\n# TYPE x gauge\nx{a="1"} NaN\nx{a="2"} +Inf 1700000000000\nx{a="3",} -Inf\nx{a="4"} Nan\n\n');
    expect(family!.samples.map((s) => s.value)).toEqual([NaN, Infinity, -Infinity, NaN]);
    expect(family!.samples[2]!.labels).toEqual({ a: '3' });
  });

  it.each([
    ['an unterminated label value', 'x{a="1} 1'],
    ['a value that is not a number', 'x 1,5'],
    ['text after the sample', 'x 1 2 3'],
    ['a bad escape', 'x{a="\\t"} 1'],
    ['a label twice', 'x{a="1",a="2"} 1'],
    ['no value', 'x{a="1"}'],
  ])('refuses %s', (_name, line) => {
    expect(() => parseExposition(line)).toThrow(/exposition line 1/);
  });
});
