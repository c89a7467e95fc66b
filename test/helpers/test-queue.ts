/** BullMQ isolation for integration tests: a key prefix per test file, deleted afterwards. */
import { randomBytes } from 'node:crypto';

export { deletePrefixKeys as cleanupPrefix } from '../../src/queues/prefix-keys.js';

/** A BullMQ prefix no other test file uses, e.g. `test-3f9c0a12b7e4`. */
export function uniquePrefix(): string {
  return `test-${randomBytes(6).toString('hex')}`;
}
