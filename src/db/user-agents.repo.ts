/**
 * User agents: the editable global list of tokens evaluated for every tracked URL
 * (`is_default`), plus every other token that ever needed a row (a portfolio's or a URL's extra
 * agent), because verdicts reference agents by id. Tokens are kept as first written and compared
 * lower-case (T15), like the unique index on lower(token). A token leaves the defaults by
 * clearing `is_default`, never by deleting its row: its verdicts keep pointing at it.
 */
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from './client.js';
import { agentFamilyOf } from './agent-families.js';
import { familyOfCategory, findCrawler } from '../crawlers/index.js';
import { userAgents } from './schema.js';

export type UserAgent = typeof userAgents.$inferSelect;

/** What a verdict needs of an agent. */
export interface AgentRef {
  id: number;
  /** As stored (the first spelling seen). */
  token: string;
  family: string | null;
}

export type AddDefaultStatus = 'added' | 'restored' | 'unchanged';

export interface AddDefaultsResult {
  /** One entry per distinct token (case-insensitive), in input order, with the stored spelling. */
  agents: { token: string; status: AddDefaultStatus }[];
}

export interface RemoveDefaultsResult {
  /** Stored spellings of the tokens that left the defaults. */
  removed: string[];
  /** Inputs that were not default agents (unknown, or already removed). */
  notDefault: string[];
}

const lower = (token: string) => token.toLowerCase();
const lowerToken = sql<string>`lower(${userAgents.token})`;
/** Byte order, the same on every server whatever its collation. */
const tokenOrder = sql`lower(${userAgents.token}) collate "C"`;

/** Trimmed, non-empty, first spelling of each token (case-insensitive) kept. */
function distinctTokens(tokens: readonly string[]): string[] {
  const seen = new Map<string, string>();
  for (const raw of tokens) {
    const token = raw.trim();
    if (token !== '' && !seen.has(lower(token))) seen.set(lower(token), token);
  }
  return [...seen.values()];
}

async function findByTokens(tx: Executor, tokens: readonly string[]): Promise<Map<string, UserAgent>> {
  const found = new Map<string, UserAgent>();
  if (tokens.length === 0) return found;
  const rows = await tx.select().from(userAgents).where(inArray(lowerToken, tokens.map(lower)));
  for (const row of rows) found.set(lower(row.token), row);
  return found;
}

/** Inserts the tokens that have no row yet (any case), with `isDefault`, their known family and what the catalogue says of them. */
async function insertMissing(tx: Executor, tokens: readonly string[], isDefault: boolean): Promise<void> {
  if (tokens.length === 0) return;
  await tx
    .insert(userAgents)
    .values(
      tokens.map((token) => {
        const known = findCrawler(token);
        return { token, family: agentFamilyOf(token) ?? (known ? familyOfCategory(known.category) : null), category: known?.category ?? null, operator: known?.operator ?? null, isDefault };
      }),
    )
    .onConflictDoNothing();
}

/** Listing the agents. */
function agentReads(db: Executor) {
  return {
    /** The agents, defaults first, then by token (case-insensitive). */
    async listAgents(options: { defaultsOnly?: boolean } = {}): Promise<UserAgent[]> {
      return db
        .select()
        .from(userAgents)
        .where(options.defaultsOnly ? eq(userAgents.isDefault, true) : undefined)
        .orderBy(desc(userAgents.isDefault), asc(tokenOrder), asc(userAgents.id));
    },

    /** The default agents, in the order they were added. */
    async defaultAgents(): Promise<AgentRef[]> {
      return db
        .select({ id: userAgents.id, token: userAgents.token, family: userAgents.family })
        .from(userAgents)
        .where(eq(userAgents.isDefault, true))
        .orderBy(asc(userAgents.id));
    },
  };
}

/** Editing the defaults, and the rows verdicts need. */
function agentWrites(db: Executor) {
  return {
    /** Makes tokens default agents: new ones are inserted, retired ones restored. Idempotent. */
    async addDefaults(tokens: readonly string[]): Promise<AddDefaultsResult> {
      const wanted = distinctTokens(tokens);
      if (wanted.length === 0) return { agents: [] };
      return db.transaction(async (tx) => {
        const before = await findByTokens(tx, wanted);
        await insertMissing(
          tx,
          wanted.filter((t) => !before.has(lower(t))),
          true,
        );
        await tx
          .update(userAgents)
          .set({ isDefault: true })
          .where(and(inArray(lowerToken, wanted.map(lower)), eq(userAgents.isDefault, false)));
        const after = await findByTokens(tx, wanted);
        return {
          agents: wanted.map((t) => {
            const previous = before.get(lower(t));
            const status: AddDefaultStatus = !previous ? 'added' : previous.isDefault ? 'unchanged' : 'restored';
            return { token: after.get(lower(t))?.token ?? t, status };
          }),
        };
      });
    },

    /** Takes tokens out of the defaults (their rows and verdicts stay). Idempotent. */
    async removeDefaults(tokens: readonly string[]): Promise<RemoveDefaultsResult> {
      const wanted = distinctTokens(tokens);
      if (wanted.length === 0) return { removed: [], notDefault: [] };
      const rows = await db
        .update(userAgents)
        .set({ isDefault: false })
        .where(and(inArray(lowerToken, wanted.map(lower)), eq(userAgents.isDefault, true)))
        .returning({ token: userAgents.token });
      const removed = new Set(rows.map((r) => lower(r.token)));
      return {
        removed: wanted.filter((t) => removed.has(lower(t))).map((t) => rows.find((r) => lower(r.token) === lower(t))!.token),
        notDefault: wanted.filter((t) => !removed.has(lower(t))),
      };
    },

    /**
     * The row of every token, creating the missing ones as non-default agents (with their family
     * when known), so a verdict can reference any agent. Keyed by lower-cased token.
     */
    async ensureAgents(tokens: readonly string[]): Promise<Map<string, AgentRef>> {
      const wanted = distinctTokens(tokens);
      const refs = new Map<string, AgentRef>();
      if (wanted.length === 0) return refs;
      let found = await findByTokens(db, wanted);
      const missing = wanted.filter((t) => !found.has(lower(t)));
      if (missing.length > 0) {
        await insertMissing(db, missing, false);
        found = await findByTokens(db, wanted);
      }
      for (const [key, row] of found) refs.set(key, { id: row.id, token: row.token, family: row.family });
      return refs;
    },
  };
}

export function createUserAgentsRepo(db: Executor) {
  return { ...agentReads(db), ...agentWrites(db) };
}

export type UserAgentsRepo = ReturnType<typeof createUserAgentsRepo>;
