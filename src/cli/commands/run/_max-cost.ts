import { CliError, EXIT } from '../../exit-codes.js';

export const MAX_COST_OPTION = ['--max-cost <usd>', "the run's spend cap in USD (with the workflow's max_cost_usd, the smaller wins)"] as const;

/** `--max-cost 2.50`: a positive amount of USD, else a usage error before anything is asked of the server. */
export function maxCostOf(value: string | undefined): { maxCostUsd?: number } {
  if (value === undefined) return {};
  const usd = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!(usd > 0)) throw new CliError(`--max-cost needs a positive amount of USD (like 2.50), got '${value}'.`, EXIT.usage);
  return { maxCostUsd: usd };
}
