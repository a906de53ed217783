// Issue 32: costs read the same in the CLI and on the dashboard. Both front ends format a dollar
// amount with one function (src/client/format.ts); they differ only in the dash for no cost.
import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../src/client/format.js';
import { formatCost as cliCost } from '../../src/cli/commands/run/_outcome.js';
import { formatCost as dashboardCost } from '../../src/web/format.js';

const AMOUNTS: Array<[number, string]> = [
  [0, '$0.00'],
  [1.5, '$1.50'],
  [12.345, '$12.35'],
  [0.25, '$0.25'],
  [0.1, '$0.10'],
  [0.0123, '$0.012'],
  [0.001, '$0.0010'],
  [0.0049, '$0.0049'],
  [0.00001, '<$0.0001'],
  [-0.01, '-$0.010'],
];

describe('one cost format for the CLI and the dashboard', () => {
  it('cents at least, two significant digits below $0.10, at most four decimals', () => {
    for (const [usd, text] of AMOUNTS) expect(formatUsd(usd), String(usd)).toBe(text);
  });

  it('the CLI and the dashboard show every amount alike', () => {
    for (const [usd] of AMOUNTS) expect(cliCost(usd)).toBe(dashboardCost(usd));
    expect([cliCost(null), dashboardCost(null)]).toEqual(['-', '—']);
  });
});
