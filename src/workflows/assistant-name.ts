import * as z from 'zod';
import { ASSISTANT_NAME_HINT, ASSISTANT_NAME_PATTERN, BUILTIN_ASSISTANTS, isBuiltinAssistant } from '../shared/assistants.js';
import { closestMatch } from './did-you-mean.js';
import { quoteValue } from './problems.js';

/**
 * The `assistant:` of a workflow or node: claude, codex, or an acp assistant of the server's
 * configuration, which the definition cannot know — a name it lacks fails the node when it starts
 * (`unknown_assistant`), not the file. So a name a letter or two from a built-in one (`claud`, and
 * as well `coder` or `claude2`, which may be configured) is valid: `svc workflow validate` warns of
 * it, and the node's failure suggests the built-in one (docs/decisions.md, "ACP agents").
 */
export const AssistantSchema = z.string().regex(ASSISTANT_NAME_PATTERN, {
  error: (issue) => `invalid assistant ${quoteValue(issue.input)}: claude, codex or a configured acp assistant, ${ASSISTANT_NAME_HINT}`,
});

/** The built-in assistant `name` is likely a typo of ("claude" for "claud"); undefined for a built-in name or one far from both. */
export function builtinNear(name: string): string | undefined {
  return isBuiltinAssistant(name) ? undefined : closestMatch(name, BUILTIN_ASSISTANTS);
}

/**
 * The warnings of a valid workflow, as written (`raw`): each assistant it names that is close to a built-in one, which
 * the server must have configured as an acp assistant, or the node fails when it starts.
 */
export function assistantWarnings(workflow: {
  readonly assistant?: string | undefined;
  readonly nodes: ReadonlyArray<{ readonly assistant?: string | undefined }>;
}): string[] {
  const named: Array<[string, string]> = [
    ...(workflow.assistant ? [['assistant', workflow.assistant] as [string, string]] : []),
    ...workflow.nodes.flatMap((node, index) => (node.assistant ? [[`nodes[${index}].assistant`, node.assistant] as [string, string]] : [])),
  ];
  return named.flatMap(([where, name]) => {
    const near = builtinNear(name);
    return near
      ? [`${where}: '${name}' is not ${BUILTIN_ASSISTANTS.join(' or ')}: an acp assistant of that name must be configured (did you mean '${near}'?)`]
      : [];
  });
}
