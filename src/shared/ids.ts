import { randomBytes } from 'node:crypto';

/**
 * Time-ordered ids (`run_lq2x9c0a3f8e91b2`): sorting by id sorts by creation, and the random tail
 * keeps ids unique across processes. Short prefixes stay unambiguous enough for the CLI.
 */
export function newId(prefix: string): string {
  const time = Date.now().toString(36).padStart(9, '0');
  return `${prefix}_${time}${randomBytes(5).toString('hex')}`;
}
