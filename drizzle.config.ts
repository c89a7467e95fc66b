import { defineConfig } from 'drizzle-kit';

// drizzle-kit reads the schema and writes reviewed SQL migrations into migrations/.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './migrations',
  dbCredentials: { url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
});
