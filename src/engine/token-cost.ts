import type { AgentTokens } from '../agents/index.js';
import type { TokenPrice } from '../config/assistants.js';

/**
 * The cost of an agent call that reported tokens but no cost (codex), at its assistant's configured
 * price per million tokens (docs/decisions.md, Runs: "Spend cap"). Cached input is part of input as
 * codex counts it; it costs `cachedInput` where that is set, else what other input costs. Rounded
 * to a billionth of a dollar, so that sums of prices read as the prices do.
 */
export function costOfTokens(tokens: AgentTokens, price: TokenPrice): number {
  const cached = Math.min(tokens.cachedInput ?? 0, tokens.input);
  const usd = ((tokens.input - cached) * price.input + cached * (price.cachedInput ?? price.input) + tokens.output * price.output) / 1_000_000;
  return Math.round(usd * 1e9) / 1e9;
}
