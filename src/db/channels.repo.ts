/**
 * Alert channels: where alerts go, a webhook (signed when it has a secret) or a Slack incoming
 * webhook. Adding is an upsert on (kind, url): adding the same endpoint again updates it and
 * enables it again, so a script can re-apply its configuration safely.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from './client.js';
import { alertChannels } from './schema.js';

export type AlertChannel = typeof alertChannels.$inferSelect;
export type ChannelKind = AlertChannel['kind'];
export type ChannelSeverity = AlertChannel['minSeverity'];

export interface ChannelInput {
  kind: ChannelKind;
  url: string;
  /** Signing secret of a webhook; undefined keeps the stored one, null removes it. */
  secret?: string | null;
  /** Least severe alert sent; undefined keeps the stored one (default `warning`). */
  minSeverity?: ChannelSeverity;
  /** One message per run instead of one per alert; undefined keeps the stored value. */
  digest?: boolean;
}

export interface AddChannelResult {
  channel: AlertChannel;
  /** False when a channel of this kind and URL existed (it was updated). */
  created: boolean;
}

/** `alerts remove 3` / `alerts test https://...`: a channel by id or by URL. */
export type ChannelSelector = number | string;

export function createChannelsRepo(db: Executor) {
  const matching = (selector: ChannelSelector) =>
    typeof selector === 'number' ? eq(alertChannels.id, selector) : eq(alertChannels.url, selector);

  return {
    async addChannel(input: ChannelInput): Promise<AddChannelResult> {
      return db.transaction(async (tx) => {
        const before = await tx
          .select({ id: alertChannels.id })
          .from(alertChannels)
          .where(and(eq(alertChannels.kind, input.kind), eq(alertChannels.url, input.url)))
          .limit(1);
        const changes = {
          ...(input.secret !== undefined ? { secret: input.secret } : {}),
          ...(input.minSeverity !== undefined ? { minSeverity: input.minSeverity } : {}),
          ...(input.digest !== undefined ? { digest: input.digest } : {}),
        };
        const rows = await tx
          .insert(alertChannels)
          .values({ kind: input.kind, url: input.url, ...changes })
          .onConflictDoUpdate({ target: [alertChannels.kind, alertChannels.url], set: { ...changes, enabled: true } })
          .returning();
        return { channel: rows[0]!, created: before.length === 0 };
      });
    },

    /** Every channel, by id. */
    listChannels(): Promise<AlertChannel[]> {
      return db.select().from(alertChannels).orderBy(asc(alertChannels.id));
    },

    /** The channels an id or URL names (a URL may be both a webhook and a Slack channel). */
    findChannels(selector: ChannelSelector): Promise<AlertChannel[]> {
      return db.select().from(alertChannels).where(matching(selector)).orderBy(asc(alertChannels.id));
    },

    /** Deletes by id or URL, with the channel's pending deliveries (cascade); returns how many. */
    async removeChannel(selector: ChannelSelector): Promise<number> {
      const rows = await db.delete(alertChannels).where(matching(selector)).returning({ id: alertChannels.id });
      return rows.length;
    },

    /** The channels alerts are sent to. */
    enabledChannels(): Promise<AlertChannel[]> {
      return db.select().from(alertChannels).where(eq(alertChannels.enabled, true)).orderBy(asc(alertChannels.id));
    },

    /** Stops (or resumes) deliveries to a channel, e.g. after a 410 Gone. */
    async setEnabled(id: number, enabled: boolean): Promise<void> {
      await db.update(alertChannels).set({ enabled }).where(eq(alertChannels.id, id));
    },
  };
}

export type ChannelsRepo = ReturnType<typeof createChannelsRepo>;
