/**
 * Sizes in workflow YAML (`max_memory: 2GB`, docs/workflows.md): one number and one unit. Decimal
 * units (`KB`, `MB`, `GB`) are powers of 1000 and binary ones (`KiB`, `MiB`, `GiB`) of 1024, as
 * people who write both mean them; a bare number is refused, because bytes is rarely what is meant.
 * Everything inside svc works in bytes, so this is the only place that knows the spellings.
 */

const UNIT_BYTES = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, TIB: 1024 ** 4 } as const;

const SIZE_TEXT = /^(\d+(?:\.\d+)?|\.\d+)\s*([KMGT]i?B|B)$/i;

/** How a size may be written, for error messages. */
export const SIZE_HINT = 'a number and a unit, such as 512KiB, 600MB, 2GB, 1.5GiB';

/** Bytes for a size, or null when the value is not one. */
export function parseSize(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = SIZE_TEXT.exec(value.trim());
  if (match === null) return null;
  const unit = match[2]!.toUpperCase() as keyof typeof UNIT_BYTES;
  const bytes = Math.round(Number(match[1]) * UNIT_BYTES[unit]);
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** A short human spelling of a byte count in decimal units: `312 MB`, `1.5 GB`, `800 KB`, `12 B`. */
export function formatSize(bytes: number): string {
  const units = [
    ['GB', 1e9],
    ['MB', 1e6],
    ['KB', 1e3],
  ] as const;
  for (const [unit, size] of units) {
    if (bytes >= size) {
      const amount = bytes / size;
      return `${amount >= 100 ? Math.round(amount) : Number(amount.toFixed(1))} ${unit}`;
    }
  }
  return `${Math.round(bytes)} B`;
}
