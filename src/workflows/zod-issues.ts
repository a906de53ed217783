/**
 * zod issues → problems in the words of a workflow author. The schemas carry their own messages
 * for patterns, ranges and durations (schema.ts); this file phrases the generic cases — missing
 * fields, wrong types, unknown keys, values outside an enumeration — where the useful words
 * depend on the input ("got a list", "did you mean 'depends_on'?").
 */

import type { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { describeValue, quoteValue } from './problems.js';
import type { PathSegment, Problem } from './problems.js';
import { knownKeysAt } from './schema.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const segment of path) {
    if (Array.isArray(value) && typeof segment === 'number') value = value[segment];
    else if (isPlainObject(value) && typeof segment === 'string' && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

const EXPECTED_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

function toPath(path: readonly PropertyKey[]): PathSegment[] {
  return path.map((segment) => (typeof segment === 'number' ? segment : String(segment)));
}

/** The missing fields of one mapping, reported together: "missing required fields 'a', 'b'". */
class MissingFields {
  readonly fields: string[] = [];
  constructor(readonly path: PathSegment[]) {}
  toProblem(): Problem {
    const names = this.fields.map((field) => `'${field}'`).join(', ');
    return { path: this.path, message: `missing required field${this.fields.length > 1 ? 's' : ''} ${names}` };
  }
}

/** The problems for the issues of one `safeParse` of `input`. */
export function problemsFromZodIssues(issues: readonly z.core.$ZodIssue[], input: unknown): Problem[] {
  const found: (Problem | MissingFields)[] = [];
  const missingByParent = new Map<string, MissingFields>();
  for (const issue of issues) {
    const path = toPath(issue.path);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          found.push({ path, key, message: `unknown key '${key}'${didYouMean(key, knownKeysAt(path))}` });
        }
        break;
      case 'invalid_type': {
        const value = valueAt(input, issue.path);
        if (path.length === 0) {
          found.push({ path, message: `a workflow must be a mapping with name, description and nodes (got ${describeValue(value)})` });
        } else if (value === undefined) {
          const parent = path.slice(0, -1);
          const key = JSON.stringify(parent);
          let missing = missingByParent.get(key);
          if (missing === undefined) {
            missing = new MissingFields(parent);
            missingByParent.set(key, missing);
            found.push(missing);
          }
          missing.fields.push(String(path[path.length - 1]));
        } else if (!issue.message.startsWith('Invalid input')) {
          // The schema said it better than the generic words (zod's own all start 'Invalid input'):
          // e.g. the form an approval takes.
          found.push({ path, message: issue.message });
        } else {
          const expected = EXPECTED_WORDS[issue.expected] ?? issue.expected;
          found.push({ path, message: `expected ${expected}, got ${describeValue(value)}` });
        }
        break;
      }
      case 'invalid_value': {
        const value = valueAt(input, issue.path);
        const options = issue.values.map(String);
        const hint = typeof value === 'string' ? didYouMean(value, options) : '';
        found.push({ path, message: `${quoteValue(value)} is not one of ${options.join(', ')}${hint}` });
        break;
      }
      default:
        found.push({ path, message: issue.message });
    }
  }
  return found.map((entry) => (entry instanceof MissingFields ? entry.toProblem() : entry));
}
