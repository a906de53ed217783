import { defineCommand } from '../../define-command.js';
import { UsageError } from '../../exit-codes.js';
import { printJson } from '../../output.js';

/** A price argument: a plain number of USD (the schema then says whether it is one). */
const usd = (text: string | undefined) => (text === undefined || text.trim() === '' ? undefined : Number(text));

/**
 * `svc config set-price <assistant> <input> <output> [--cached-input <usd>]`, or `… none`: what the
 * assistant's tokens cost in USD per million, which prices an agent call that reports no cost
 * (codex; docs/decisions.md, "Spend cap"). Checked with the route's own schema first, so a
 * malformed price is a usage error (exit 2).
 */
export default defineCommand({
  args: [
    ['<assistant>', 'assistant name (claude, codex)'],
    ['<input>', 'USD per million input tokens, or none to remove the price'],
    ['[output]', 'USD per million output tokens'],
  ],
  options: {
    cachedInput: ['--cached-input <usd>', 'USD per million cached input tokens (default: the input price)'],
  },
  run: async (cmd, [assistant, input, output], options) => {
    const remove = input === 'none';
    if (!remove && output === undefined) throw new UsageError('give the output price too: svc config set-price <assistant> <input> <output>');
    const price = remove
      ? null
      : { input: usd(input), output: usd(output), ...(options.cachedInput !== undefined ? { cachedInput: usd(options.cachedInput) } : {}) };
    const { AssistantsPatchSchema } = await import('../../../runtime.js');
    const parsed = AssistantsPatchSchema.safeParse({ [assistant]: { pricePerMillionTokens: price } });
    if (!parsed.success) throw new UsageError(parsed.error.issues[0]?.message ?? 'invalid price');
    const result = await cmd.client().config.setAssistants(parsed.data);
    if (cmd.globals.json) return printJson(cmd.io, result);
    if (!price) return void cmd.io.out(`${assistant} has no token price now: a call that reports no cost counts as unknown (costPartial).\n`);
    const cached = price.cachedInput !== undefined ? `, cached input $${price.cachedInput}` : '';
    cmd.io.out(`${assistant} tokens now cost $${price.input} in, $${price.output} out${cached} per million.\n`);
  },
});
