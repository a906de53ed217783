import { createHash } from 'node:crypto';

/**
 * A workflow definition's version (docs/decisions.md, "Versions"): the sha256 of the definition as
 * parsed, with object keys in sorted order. Comments, quoting, key order and indentation of the
 * YAML do not change it; any change of a value does.
 */
export function hashDefinition(definition: unknown): string {
  return createHash('sha256').update(canonicalJson(definition)).digest('hex');
}

/** JSON with every object's keys sorted, so that equal definitions give equal text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
