import * as z from 'zod';
import { ASSISTANT_NAME_HINT, ASSISTANT_NAME_PATTERN, BUILTIN_ASSISTANTS, isBuiltinAssistant } from '../shared/assistants.js';
import { closestMatch } from './did-you-mean.js';
import { quoteValue } from './problems.js';

/**
 * The `assistant:` of a workflow or node: claude, codex, or an acp assistant of the server's
 * configuration, which the definition cannot know — a name it lacks fails the node when it starts
 * (`unknown_assistant`), not the file. A name a letter or two from a built-in one is still refused
 * here: `claud` is a typo far more often than an assistant of its own.
 */
export const AssistantSchema = z
  .string()
  .regex(ASSISTANT_NAME_PATTERN, {
    error: (issue) => `invalid assistant ${quoteValue(issue.input)}: claude, codex or a configured acp assistant, ${ASSISTANT_NAME_HINT}`,
  })
  .superRefine((name, ctx) => {
    const near = isBuiltinAssistant(name) ? undefined : closestMatch(name, BUILTIN_ASSISTANTS);
    if (near) ctx.addIssue({ code: 'custom', message: `'${name}' is not one of ${BUILTIN_ASSISTANTS.join(', ')} (did you mean '${near}'?)` });
  });
