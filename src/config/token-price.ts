import type { TokenPrice } from './schema.js';

/** Tokens an agent reported; `cachedInput` is the part of `input` served from the provider's cache (codex). */
interface ReportedTokens {
  input: number;
  output: number;
  cachedInput?: number;
}

/**
 * The cost of an agent call that reported tokens but no cost (codex), at its assistant's configured
 * price per million tokens (docs/decisions.md, "Spend cap"). Cached input is part of input as
 * codex counts it; it costs `cachedInput` where that is set, else what other input costs. Rounded
 * to a billionth of a dollar, so that sums of prices read as the prices do.
 */
export function costOfTokens(tokens: ReportedTokens, price: TokenPrice): number {
  const cached = Math.min(tokens.cachedInput ?? 0, tokens.input);
  const usd = ((tokens.input - cached) * price.input + cached * (price.cachedInput ?? price.input) + tokens.output * price.output) / 1_000_000;
  return Math.round(usd * 1e9) / 1e9;
}

/**
 * What an agent call cost: what the agent reported; else, for an agent that reports only tokens,
 * those tokens at the assistant's price (asked only then); else null — unknown, never 0.
 */
export async function callCost(
  call: { costUsd: number | null; tokens: ReportedTokens | null },
  priceOf: (() => Promise<TokenPrice | null>) | undefined,
): Promise<number | null> {
  if (call.costUsd !== null || !call.tokens || !priceOf) return call.costUsd;
  const price = await priceOf();
  return price ? costOfTokens(call.tokens, price) : null;
}
