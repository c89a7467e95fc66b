/** Payload validation shared by the processors: an invalid payload fails once, without retry (habit 1). */
import { UnrecoverableError } from 'bullmq';
import type { z } from 'zod';

export function parsePayload<S extends z.ZodType>(schema: S, data: unknown, jobName: string): z.infer<S> {
  const result = schema.safeParse(data);
  if (!result.success) throw new UnrecoverableError(`invalid ${jobName} payload: ${result.error.message}`);
  return result.data;
}
