-- The global default user agents: the tokens whose verdicts are evaluated for every tracked URL
-- (user_agents.is_default). Editable afterwards with `robots-audit agents add|remove`; a token
-- that already exists (any case: the unique index is on lower(token)) is left as it is, so an
-- operator's edits survive and applying this twice adds nothing.
-- Families as in the user-agent corpus (test/fixtures/corpus/user-agents.json): the two search
-- engines are `search`, the AI crawlers, fetchers and AI-use tokens are `ai`.
INSERT INTO "user_agents" ("token", "family", "is_default") VALUES
  ('Googlebot', 'search', true),
  ('Bingbot', 'search', true),
  ('GPTBot', 'ai', true),
  ('ChatGPT-User', 'ai', true),
  ('OAI-SearchBot', 'ai', true),
  ('ClaudeBot', 'ai', true),
  ('CCBot', 'ai', true),
  ('Google-Extended', 'ai', true),
  ('PerplexityBot', 'ai', true),
  ('Applebot-Extended', 'ai', true)
ON CONFLICT DO NOTHING;
