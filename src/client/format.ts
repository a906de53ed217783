/** Sizes as both front ends show them (`312 MB`): the CLI's tables and the dashboard read alike. */
export { formatSize } from '../shared/size.js';

/**
 * A dollar amount as both front ends show it (the CLI's lines and tables, the dashboard), so a
 * cost reads the same in either (issue 32): cents at least, and below $0.10 the decimals that
 * give two significant digits, at most four — `$1.50`, `$0.25`, `$0.012`, `$0.0049`; less than a
 * hundredth of a cent is `<$0.0001` rather than a zero that is not one.
 */
export function formatUsd(usd: number): string {
  const size = Math.abs(usd);
  const sign = usd < 0 ? '-' : '';
  if (size > 0 && size < 0.00005) return `${sign}<$0.0001`;
  const decimals = size === 0 || size >= 0.1 ? 2 : Math.min(4, 1 - Math.floor(Math.log10(size)));
  return `${sign}$${size.toFixed(decimals)}`;
}
