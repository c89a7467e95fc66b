/**
 * The version of the engine's verdicts. A site's verdicts are evaluated again only when something
 * that decides them changed (policy, rules body, tracked targets) or when this number did: bump it
 * in the commit that changes how any URL is decided (parse, group choice, matching, R-42), so the
 * next night re-evaluates every site once and records the flips the change causes. 2: crawler
 * rules decide the group (special-case crawlers ignore `*`, Applebot follows Googlebot); a change
 * to the group facts of src/crawlers/crawler-rules.json bumps it too (a unit test says when).
 * 3: the verdicts carry the usage preferences each crawler is told (src/robots/usage, issue 28).
 */
export const ENGINE_VERSION = 3;
