/**
 * What a night reads beyond its input. The earlier bodies it reads (the last good one for the diff, the rules in force before
 * for a flip, the fallback's copy), each loaded and parsed once however many steps ask for it:
 * on a night whose rules changed and flipped verdicts, the diff and the flips share one read.
 * And the verdict spans in force, read only when the verdicts are evaluated.
 */
import { parseRobotsTxt } from '../../robots/index.js';
import type { RobotsTxt } from '../../robots/index.js';
import type { NightLoaders } from '../../night/input.js';

export interface LoadedBody {
  bytes: Buffer;
  parsed: RobotsTxt;
}

export interface NightReads {
  /** A stored body by id, with its parse (null: not stored). */
  body(bodyId: number): Promise<LoadedBody | null>;
  /** The loaders as given: the verdict spans in force, a version in rotation by hash. */
  load: NightLoaders;
}

export function nightReads(load: NightLoaders): NightReads {
  const byId = new Map<number, Promise<LoadedBody | null>>();
  return {
    load,
    body(bodyId) {
      let loaded = byId.get(bodyId);
      if (loaded === undefined) {
        loaded = load.body(bodyId).then((bytes) => (bytes === null ? null : { bytes, parsed: parseRobotsTxt(bytes) }));
        byId.set(bodyId, loaded);
      }
      return loaded;
    },
  };
}
