/**
 * The default agents: the tokens whose verdicts a new database evaluates for every tracked URL
 * (`user_agents.is_default`, inserted by migrations/0002_default-user-agents.sql, editable with
 * `robots-audit agents`). Where no database is at hand (`test-draft --current`), these stand for
 * them. A test keeps this list equal to what the migration inserts. Pure data.
 */
export const DEFAULT_AGENT_TOKENS: readonly string[] = Object.freeze([
  'Googlebot',
  'Bingbot',
  'GPTBot',
  'ChatGPT-User',
  'OAI-SearchBot',
  'ClaudeBot',
  'CCBot',
  'Google-Extended',
  'PerplexityBot',
  'Applebot-Extended',
]);
