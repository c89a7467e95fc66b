/**
 * The demo's nights, in two parts. 2023, month by month: the scripted publishers while AI
 * crawlers were being blocked. 29 July to 30 August 2025, night by night: the 21 recorded
 * histories (avuim/RobotsTXTCrawler, ISC) with the scripted cases of the fetch rules beside
 * them; every site added so far is audited on every night, as a nightly run does. Pure.
 */
import type { DemoHost, DemoSite } from './demo-sites.js';
import { DEMO_EXTRA_HOSTS, EDGE_CASES_2025, PUBLISHERS_2023, recordedSite } from './demo-sites.js';
import type { DemoHistory } from './histories.js';
import { dailyNights, monthlyNights } from './timeline.js';

export interface DemoPart {
  title: string;
  /** One line on what the part shows. */
  about: string;
  /** Sites added before the part's first night (and audited from then on). */
  sites: readonly DemoSite[];
  nights: readonly Date[];
}

/** The first of each month from January 2023 to January 2024, at 03:00 UTC (the default schedule). */
export const NIGHTS_2023: readonly Date[] = monthlyNights('2023-01-01T03:00:00Z', 13);

/**
 * Every night from 29 July to 30 August 2025, the span of the recorded series. At 22:00 UTC,
 * after the last collection of each day (the latest was at 17:12 UTC), so that every day's last
 * version is seen.
 */
export const NIGHTS_2025: readonly Date[] = dailyNights('2025-07-29T22:00:00Z', '2025-08-30T22:00:00Z');

export interface DemoPlan {
  parts: readonly DemoPart[];
  /** Every host the demo web answers for: the sites, and the hosts redirects lead to. */
  hosts: readonly DemoHost[];
}

export function demoPlan(histories: readonly DemoHistory[]): DemoPlan {
  const parts: DemoPart[] = [
    {
      title: '2023, month by month',
      about: 'scripted publishers block GPTBot, CCBot and Google-Extended as those crawlers are announced',
      sites: PUBLISHERS_2023,
      nights: NIGHTS_2023,
    },
    {
      title: '29 July to 30 August 2025, night by night',
      about: `${histories.length} real robots.txt histories replayed as collected, beside scripted fetch-rule cases`,
      sites: [...EDGE_CASES_2025, ...histories.map(recordedSite)],
      nights: NIGHTS_2025,
    },
  ];
  return { parts, hosts: [...parts.flatMap((p) => p.sites), ...DEMO_EXTRA_HOSTS] };
}
