/**
 * The message `robots-audit alerts test` sends (pure): proof that a channel is reachable and, for
 * a signed webhook, that the receiver verifies our signature. Shaped like the real messages
 * (messages.ts) so a receiver's parsing is exercised too, with its own event type so that it is
 * never mistaken for an alert.
 */
import type { SlackMessage } from './messages.js';
import { escapeMrkdwn } from './messages.js';

export const WEBHOOK_EVENT_TEST = 'robots_audit.test';

export interface TestWebhookPayload {
  type: typeof WEBHOOK_EVENT_TEST;
  timestamp: string;
  data: { channelId: number; message: string };
}

const MESSAGE = 'Test message from robots-audit: this channel receives robots.txt alerts.';

export function testWebhookPayload(channelId: number, at: Date): TestWebhookPayload {
  return { type: WEBHOOK_EVENT_TEST, timestamp: at.toISOString(), data: { channelId, message: MESSAGE } };
}

export function slackTestMessage(channelId: number, at: Date): SlackMessage {
  return {
    text: MESSAGE,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(MESSAGE)}*` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(`robots-audit · channel ${channelId} · ${at.toISOString()}`) }] },
    ],
  };
}

/** The exact JSON text to send (and sign) to a channel of `kind`. */
export function testMessageBody(kind: 'webhook' | 'slack', channelId: number, at: Date): string {
  return JSON.stringify(kind === 'slack' ? slackTestMessage(channelId, at) : testWebhookPayload(channelId, at));
}
