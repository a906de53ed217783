/**
 * The workflow definition language: the YAML schema, its validation, and the pure helpers the run
 * engine needs (execution order, `when` evaluation, variable substitution, the DAG drawing). No
 * I/O here: finding and reading workflow files is the catalog's job (`src/catalog/`).
 */

export { validateWorkflowSource } from './validate.js';
export { assistantWarnings, builtinNear } from './assistant-name.js';
export type { ValidateOptions, WorkflowValidation } from './validate.js';
export { validateYamlWith } from './yaml-schema.js';
export type { YamlValidation } from './yaml-schema.js';

export { toWorkflow } from './normalize.js';
export {
  COMMAND_NAME_PATTERN,
  DEFAULT_DEDUPE_WINDOW_SEC,
  DEFAULT_TIMEOUT_MS,
  REWORK_MODES,
  type ReworkMode,
  DEFAULT_TRIGGER_RULE,
  EVENT_NAME_PATTERN,
  EventNameSchema,
  MAX_DURATION_MS,
  MAX_RETRY_ATTEMPTS,
  NODE_ACTIONS,
  NODE_ID_PATTERN,
  RawWorkflowSchema,
  RawNodeSchema,
  RawWebhookTriggerSchema,
  RawScheduleTriggerSchema,
  SCHEDULE_OVERLAPS,
  SECRET_ENV_PATTERN,
  TRIGGER_RULES,
  WEBHOOK_SLUG_PATTERN,
  WORKFLOW_NAME_PATTERN,
  WorkflowNameSchema,
} from './schema.js';
export type {
  Assistant,
  FilterValue,
  NodeAction,
  NodeActionKind,
  RawNode,
  RawWebhookTrigger,
  RawScheduleTrigger,
  RawWorkflow,
  RetryPolicy,
  ScheduleTrigger,
  TriggerRule,
  WebhookTrigger,
  WorkflowDefinition,
  WorkflowNode,
} from './schema.js';

export { formatDuration, parseDuration } from '../shared/duration.js';
export { cronProblem, isTimeZone, nextFiring } from './cron.js';
export { evaluateWhen, parseWhen } from './when.js';
export type { WhenExpr, WhenParseResult } from './when.js';

export { findBashOutputRefs, findOutputRefs, renderBash, renderPrompt, shellQuote, type RenderedBash } from './references.js';
export type { BashOutputRef, OutputRef } from './references.js';
export { OUTSIDE_VARIABLES, PROMPT_VARIABLES, RUN_VARIABLE_SOURCES, VARIABLES_TO_OUTSIDE } from './run-variables.js';
export type { PromptVariable } from './run-variables.js';
export type { ShellContext } from './shell/index.js';
export { checkedWhole } from './shell/index.js';

export { DependencyGraph, findDependencyProblems, formatCycle, topologicalOrder } from './graph.js';
export type { DependencyProblem, GraphNode } from './graph.js';

export { drawDag, toMermaid, toDrawNodes } from './draw.js';
export type { DrawNode, DrawOptions } from './draw.js';
export { checkWorkflowFile, fileStem, isWorkflowFileName } from './workflow-file.js';
export type { WorkflowFileCheck } from './workflow-file.js';
export type { Permissions } from './schema.js';
export { WORKFLOW_FILE_EXTENSIONS, placeIn } from './workflow-file.js';
export { isSandboxHost, mergeSandbox, RawSandboxSchema, type RawSandbox, type SandboxWidening } from './sandbox.js';
