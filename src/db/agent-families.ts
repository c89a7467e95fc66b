/**
 * The family a user-agent token is filed under when it first reaches `user_agents` (a portfolio's
 * or a URL's extra agent, `agents add`). Alert rules read it: a flip for a `search` agent is
 * critical, one for an `ai` agent a warning (src/services/alerting/alert-rules.ts). The table is
 * deliberately small, the crawlers people ask about; an unknown token gets no family (null) and
 * raises only the alerts every agent raises. Families follow the user-agent corpus
 * (test/fixtures/corpus/user-agents.json), which a test checks this table against.
 */
import type { AgentFamily } from '../night/vocabulary.js';

const FAMILIES: Readonly<Record<AgentFamily, readonly string[]>> = {
  search: [
    'Googlebot',
    'Googlebot-Image',
    'Googlebot-News',
    'Googlebot-Video',
    'Storebot-Google',
    'GoogleOther',
    'AdsBot-Google',
    'Mediapartners-Google',
    'Bingbot',
    'BingPreview',
    'msnbot',
    'Slurp',
    'DuckDuckBot',
    'Baiduspider',
    'YandexBot',
    'Applebot',
    'Yeti',
    'SeznamBot',
    'Qwantbot',
    'PetalBot',
  ],
  ai: [
    'GPTBot',
    'ChatGPT-User',
    'OAI-SearchBot',
    'ClaudeBot',
    'Claude-User',
    'Claude-SearchBot',
    'Claude-Web',
    'anthropic-ai',
    'Google-Extended',
    'Applebot-Extended',
    'CCBot',
    'PerplexityBot',
    'Perplexity-User',
    'Bytespider',
    'Amazonbot',
    'meta-externalagent',
    'FacebookBot',
    'cohere-ai',
    'Diffbot',
    'DeepSeekBot',
    'MistralAI-User',
    'Google-CloudVertexBot',
  ],
  seo: ['AhrefsBot', 'SemrushBot', 'MJ12bot', 'DotBot', 'rogerbot', 'BLEXBot', 'DataForSeoBot'],
  social: ['facebookexternalhit', 'Twitterbot', 'LinkedInBot', 'Pinterestbot', 'Slackbot', 'Discordbot', 'TelegramBot'],
  other: ['ia_archiver', 'archive.org_bot'],
};

/** Lower-cased token -> family (tokens compare lower-case, T15). */
export const KNOWN_AGENT_FAMILIES: ReadonlyMap<string, AgentFamily> = new Map(
  (Object.entries(FAMILIES) as [AgentFamily, readonly string[]][]).flatMap(([family, tokens]) => tokens.map((t) => [t.toLowerCase(), family] as const)),
);

/** The family of a token, or null when this table does not know it. */
export function agentFamilyOf(token: string): AgentFamily | null {
  return KNOWN_AGENT_FAMILIES.get(token.toLowerCase()) ?? null;
}

/** Trimmed, non-empty tokens, the first spelling of each (case-insensitive) kept, in order. */
export function mergeAgentTokens(...lists: readonly (readonly string[])[]): string[] {
  const seen = new Map<string, string>();
  for (const token of lists.flat().map((t) => t.trim())) {
    if (token !== '' && !seen.has(token.toLowerCase())) seen.set(token.toLowerCase(), token);
  }
  return [...seen.values()];
}
