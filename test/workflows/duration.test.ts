import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/shared/duration.js';

describe('parseDuration', () => {
  it.each([
    [30, 30_000],
    [0.5, 500],
    [0, 0],
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1_500],
    ['.5s', 500],
    ['10m', 600_000],
    ['2h', 7_200_000],
    [' 5 s ', 5_000],
  ] as const)('%j → %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY, '', '30', '5x', '1h30m', '-5s', 's', '1.2.3s', '10 minutes'])('rejects %j', (input) => {
    expect(parseDuration(input)).toBeNull();
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [500, '500ms'],
    [1_500, '1.5s'],
    [30_000, '30s'],
    [600_000, '10m'],
    [7_200_000, '2h'],
    [5_400_000, '1h30m'],
    [90_061_000, '25h1m1s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips single-unit spellings', () => {
    for (const text of ['500ms', '1.5s', '30s', '10m', '2h']) expect(formatDuration(parseDuration(text) as number)).toBe(text);
  });
});
