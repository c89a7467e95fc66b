/**
 * Flapping (pure): a site whose robots.txt comes back to a version it had within the last K
 * nights (two CDN nodes, a blue/green deploy, a cache serving an old copy), or whose
 * confirmation fetch disagrees with the first answer, is flapping. Its changes are then not
 * alerted night by night: one alert when it starts, one when it settles (the same version for
 * M nights in a row). No clock of its own: the night's time is passed in.
 *
 * The versions are kept as transitions: an entry per night a version started to be served
 * (`sha256`, the night), so a night that serves the version in force writes nothing new. A
 * version was "had within K nights" when it was in force on any of them: from its entry up to
 * the next entry (or tonight, for the one in force).
 */

/** K: nights back a version counts as recent (0: flapping is off). */
export const FLAPPING_WINDOW_NIGHTS = 7;
/** M: nights in a row on one version that settle a flapping site. */
export const FLAPPING_SETTLE_NIGHTS = 3;

export interface FlappingOptions {
  windowNights: number;
  settleNights: number;
}

export const DEFAULT_FLAPPING_OPTIONS: FlappingOptions = { windowNights: FLAPPING_WINDOW_NIGHTS, settleNights: FLAPPING_SETTLE_NIGHTS };

/** A version that started to be served on a night (sha256 in hex, the night's run and time). */
export interface VersionEntry {
  sha256: string;
  runId: number;
  runAt: string;
}

export interface FlappingState {
  /** Transitions, oldest first; the last one is the version in force. */
  versions: VersionEntry[];
  /** The night flapping started, or null. */
  since: Date | null;
  /** Nights in a row the version in force came back. */
  stableNights: number;
}

export interface FlappingNight {
  runId: number;
  runAt: Date;
  /** The version tonight's night stands for (hex), or null when no body came (not `ok`). */
  sha256: string | null;
  /** A confirmation fetch's version that disagreed with `sha256` (hex), or null. */
  disagreeing: string | null;
}

export type FlappingEvent = 'none' | 'started' | 'continues' | 'settled';

export interface FlappingResult {
  state: FlappingState;
  event: FlappingEvent;
  /** True when the night belongs to a flapping spell (the night it starts and settles included). */
  flapping: boolean;
  /** Why it started: `returned` to a recent version, or two answers that `disagreed`. */
  cause: 'returned' | 'disagreed' | null;
  /** The distinct versions served within the window (hex), oldest first, tonight's included. */
  rotation: string[];
  /**
   * Settled after one return and nothing else: the site came back once to a version of the last
   * nights and it held (a change undone). The alert that it started named that version already,
   * so its settling is not alerted again.
   */
  quiet: boolean;
}

const DAY_MS = 24 * 3600 * 1000;

export function flappingNight(previous: FlappingState, night: FlappingNight, options: FlappingOptions = DEFAULT_FLAPPING_OPTIONS): FlappingResult {
  // K = 0 turns flapping off: every change is alerted night by night (as before issue 18).
  if (options.windowNights === 0) return { state: { versions: [], since: null, stableNights: 0 }, event: 'none', flapping: false, cause: null, rotation: [], quiet: false };
  const wasFlapping = previous.since !== null;
  const windowStart = night.runAt.getTime() - options.windowNights * DAY_MS;
  // Entries still in the window: those in force on some night after its start (the one in force always).
  const inWindow = previous.versions.filter((v, i) => {
    const next = previous.versions[i + 1];
    return next === undefined || new Date(next.runAt).getTime() > windowStart;
  });
  const current = inWindow.at(-1) ?? null;

  if (night.sha256 === null) {
    // No body tonight (a 4xx, a 5xx, a challenge): nothing about versions is learnt.
    return { state: { ...previous, versions: inWindow }, event: wasFlapping ? 'continues' : 'none', flapping: wasFlapping, cause: null, rotation: rotationOf(inWindow), quiet: false };
  }

  const entry = (sha256: string): VersionEntry => ({ sha256, runId: night.runId, runAt: night.runAt.toISOString() });
  const changed = current !== null && current.sha256 !== night.sha256;
  // Tonight's version is one the site served within the window, before the one in force.
  const returned = changed && inWindow.slice(0, -1).some((v) => v.sha256 === night.sha256);
  const disagreed = night.disagreeing !== null && night.disagreeing !== night.sha256;

  const versions = [...inWindow];
  if (disagreed) versions.push(entry(night.disagreeing!));
  if (current === null || changed || disagreed) versions.push(entry(night.sha256));
  const rotation = rotationOf(versions);

  const stableNights = disagreed ? 0 : changed || current === null ? 1 : previous.stableNights + 1;
  if (!wasFlapping) {
    if (returned || disagreed) {
      return { state: { versions, since: night.runAt, stableNights }, event: 'started', flapping: true, cause: disagreed ? 'disagreed' : 'returned', rotation, quiet: false };
    }
    return { state: { versions, since: null, stableNights }, event: 'none', flapping: false, cause: null, rotation, quiet: false };
  }
  if (stableNights >= options.settleNights) {
    // One entry on the night it started (a return; a disagreement adds two) and none since.
    const start = previous.since!.getTime();
    const atStart = versions.filter((v) => new Date(v.runAt).getTime() === start).length;
    const since = versions.filter((v) => new Date(v.runAt).getTime() > start).length;
    return { state: { versions, since: null, stableNights }, event: 'settled', flapping: true, cause: null, rotation, quiet: atStart === 1 && since === 0 };
  }
  return { state: { versions, since: previous.since, stableNights }, event: 'continues', flapping: true, cause: null, rotation, quiet: false };
}

function rotationOf(versions: readonly VersionEntry[]): string[] {
  return [...new Set(versions.map((v) => v.sha256))];
}
