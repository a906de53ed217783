// Lint rules: ESLint's and typescript-eslint's recommended sets, plus the few this codebase relies on.
// Formatting is Prettier's job (`npm run format`), so no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Small modules with one job each (docs/ARCHITECTURE.md, "Conventions"): a source file over 400
 * lines fails, unless it is data (a table, a catalog of texts) and says so on its first line with
 * the comment `/* data *\/`.
 */
const MAX_LINES = 400;
const fileSize = {
  meta: {
    type: 'suggestion',
    schema: [],
    messages: { tooLong: 'This file has {{lines}} lines; split it below {{max}} (or, for data, begin it with /* data */).' },
  },
  create(context) {
    return {
      Program(node) {
        const lines = context.sourceCode.lines;
        const count = lines.at(-1) === '' ? lines.length - 1 : lines.length;
        if (count <= MAX_LINES || lines[0]?.trim() === '/* data */') return;
        context.report({ node, loc: { line: 1, column: 0 }, messageId: 'tooLong', data: { lines: String(count), max: String(MAX_LINES) } });
      },
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'completions/**', 'bundled/**', 'test/fixtures/**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
        Headers: 'readonly',
        fetch: 'readonly',
        ReadableStream: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        performance: 'readonly',
        globalThis: 'readonly',
        NodeJS: 'readonly',
      },
    },
    rules: {
      // `_`-prefixed names are deliberately unused (destructuring that drops a field).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Test fixtures and JSON from the wire are `any`-shaped at the edges; inside, types are checked by tsc.
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { svc: { rules: { 'file-size': fileSize } } },
    rules: { 'svc/file-size': 'error' },
  },
  {
    // Every environment variable is read in src/shared/settings.ts, which documents each one. Passing the
    // whole environment on to a child process is fine; picking a variable out of it elsewhere is not.
    files: ['src/**/*.ts'],
    ignores: ['src/shared/settings.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.type='MemberExpression'][object.object.name='process'][object.property.name='env']",
          message: 'Read environment variables in src/shared/settings.ts only.',
        },
        {
          // `import { z }` takes zod's whole namespace object into the bundle (its locales, JSON
          // Schema import…: ~750 KiB parsed at every start); `import * as z` lets esbuild keep only
          // what is used (~200 KiB). docs/decisions.md, "zod as a namespace import".
          selector: "ImportDeclaration[source.value='zod'][importKind='value'] > ImportSpecifier[imported.name='z']",
          message: "Import zod as `import * as z from 'zod'` (the named `z` bundles all of zod).",
        },
      ],
    },
  },
);
