// Citations stay true (issue 29). Code comments and docs cite headings of docs/contract.md and
// docs/decisions.md (`docs/decisions.md, "Run snapshots"`; an older unquoted form, `decisions.md,
// Runs`, is read too): every heading cited must exist, and exactly once, in the file cited. And a
// comment or doc that names a file of this repository (`src/runs/model/lifecycle.ts`,
// `runs/model/lifecycle.ts`, `lifecycle.ts`) must name one that exists. Everything is resolved against
// the tree as it is when the test runs, so moved files and renamed headings are caught after any
// merge. Reads files only; no server.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CITED_DOCS = { 'decisions.md': 'docs/decisions.md', 'contract.md': 'docs/contract.md' } as const;
const SCANNED_DIRS = ['src', 'test', 'bench', 'scripts', 'docs'];
const SCANNED_FILES = ['README.md', 'vitest.config.ts', 'eslint.config.js'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', 'test-artifacts', 'coverage']);
const TEXT_FILE = /\.(ts|tsx|mts|mjs|cjs|js|md|json|ya?ml|sh)$|^[^.]+$/;
const CODE_FILE = /\.(ts|tsx|mts|mjs|cjs|js)$|^[^.]+$/;

/**
 * Paths that comments and docs use as examples of a user's project (a tool call's summary, a
 * fixture's answer), not files of this repository.
 */
const EXAMPLE_PATHS = new Set([
  'src/a.ts',
  'src/b.ts',
  'src/math.js',
  'src/new.js',
  'src/new.txt',
  'src/validate.ts',
  'a.ts',
  'b.ts',
  'c.ts',
  'math.js',
  'new.js',
]);

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(entry.name) || entry.name.startsWith('.svc-test-')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

const rel = (path: string) => relative(ROOT, path).split(sep).join('/');

/** Every file of the repository (less what is built or installed), relative, with `/`. */
const TREE = walk(ROOT).map(rel);
const TREE_SET = new Set(TREE);
const BASENAMES = new Set(TREE.map((path) => basename(path)));

function scannedFiles(): string[] {
  const files = SCANNED_DIRS.flatMap((dir) => (existsSync(join(ROOT, dir)) ? walk(join(ROOT, dir)) : [])).map(rel);
  files.push(...SCANNED_FILES.filter((file) => existsSync(join(ROOT, file))));
  return files.filter((file) => TEXT_FILE.test(basename(file)) && statSync(join(ROOT, file)).size < 1024 * 1024);
}

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The headings of a markdown file (outside code fences), each with how many times it appears. */
function headings(markdown: string): Map<string, number> {
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading?.[1]) counts.set(heading[1], (counts.get(heading[1]) ?? 0) + 1);
  }
  return counts;
}

/**
 * The text with each line break and the comment leader after it (`//`, ` * `, `#`, `--`) made one
 * space, so a citation broken over two comment lines reads as one; `lineOf` maps a position back.
 */
function joined(text: string): { text: string; lineOf: (index: number) => number } {
  const segments: Array<[number, number]> = [];
  let out = '';
  let last = 0;
  for (const match of text.matchAll(/[ \t]*\n[ \t]*(?:\/\/+|\*(?!\*)|#+|--)?[ \t]*/g)) {
    segments.push([out.length, last]);
    out += `${text.slice(last, match.index)} `;
    last = match.index + match[0].length;
  }
  segments.push([out.length, last]);
  out += text.slice(last);
  const lineOf = (index: number) => {
    let origin = 0;
    for (const [start, original] of segments) if (start <= index) origin = original + (index - start);
    return text.slice(0, origin).split('\n').length;
  };
  return { text: out, lineOf };
}

interface Citation {
  where: string;
  doc: keyof typeof CITED_DOCS;
  heading: string;
}

const CITATION = /(?<![\w-])(?:docs\/)?(decisions|contract)\.md/g;
const QUOTED_FIRST = /^(?:,\s*|\s*\(\s*|:\s*|\s+)"([^"\n]+)"/;
const QUOTED_NEXT = /^(?:\s*[,;:]\s*(?:and\s+)?|\s+and\s+)"([^"\n]+)"/;

/** The citations of `file`, and the unquoted ones that name no heading of the file they cite. */
function citationsOf(file: string, text: string, known: Record<string, Map<string, number>>): { found: Citation[]; broken: string[] } {
  const { text: flat, lineOf } = joined(text);
  const found: Citation[] = [];
  const broken: string[] = [];
  for (const match of flat.matchAll(CITATION)) {
    const doc = `${match[1]}.md` as keyof typeof CITED_DOCS;
    const where = `${file}:${lineOf(match.index)}`;
    let rest = flat.slice(match.index + match[0].length);
    const quoted = QUOTED_FIRST.exec(rest);
    if (quoted?.[1]) {
      found.push({ where, doc, heading: quoted[1] });
      rest = rest.slice(quoted[0].length);
    } else if (/^,\s*[A-Z$]/.test(rest)) {
      // The older unquoted form: the longest heading of the cited file that the text starts with.
      const words = rest.replace(/^,\s*/, '');
      const heading = [...known[doc]!.keys()]
        .filter((name) => words.startsWith(name) && !/[\w-]/.test(words.charAt(name.length)))
        .sort((a, b) => b.length - a.length)[0];
      if (!heading) {
        broken.push(`${where}: "${flat.slice(match.index, match.index + match[0].length + 40)}…" cites no heading of docs/${doc}`);
        continue;
      }
      found.push({ where, doc, heading });
      rest = words.slice(heading.length);
    } else continue; // the file as a whole
    for (let next = QUOTED_NEXT.exec(rest); next?.[1]; next = QUOTED_NEXT.exec(rest)) {
      found.push({ where, doc, heading: next[1] });
      rest = rest.slice(next[0].length);
    }
  }
  return { found, broken };
}

/** What a code file says in comments (whole lines, and the tail after ` // `); a doc's whole text. */
function commentText(file: string, text: string): string {
  if (!CODE_FILE.test(basename(file))) return text;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(\/\/|\/\*|\*|--|#|\{\/\*)/.test(line)) return line;
      const tail = /\s\/\/\s(.*)$/.exec(line);
      return tail ? tail[1] : '';
    })
    .join('\n');
}

/** Whether a path named in `file` is a file or folder of the tree (a `.js` import names its `.ts`). */
function exists(path: string, file: string): boolean {
  const candidates = [path];
  if (/\.jsx?$/.test(path)) candidates.push(path.replace(/\.js$/, '.ts').replace(/\.jsx$/, '.tsx'));
  return candidates.some((candidate) => {
    if (!candidate.includes('/')) return BASENAMES.has(candidate);
    if (/^(src|test)\//.test(candidate)) return existsSync(join(ROOT, candidate));
    // A path relative to src/ or test/ (`runs/model/lifecycle.ts`), to the file's folder, or to any
    // folder of the tree (`commands/run/cancel.ts` under src/cli/).
    return (
      [candidate, `src/${candidate}`, `test/${candidate}`, `${dirname(file)}/${candidate}`].some((option) => existsSync(join(ROOT, option))) ||
      TREE.some((path) => path.endsWith(`/${candidate}`))
    );
  });
}

const ROOTED_PATH = /(?<![\w./@-])(?:src|test)\/[\w.-]+(?:\/[\w.-]+)*/g;
const SOURCE_PATH = /(?<![\w./@$-])(?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|tsx|mjs|cjs|js)\b(?![\w/-])/g;

function missingPaths(file: string, text: string): string[] {
  const comments = commentText(file, text);
  const missing: string[] = [];
  const lines = comments.split('\n');
  lines.forEach((line, index) => {
    const paths = new Set<string>();
    for (const match of line.matchAll(ROOTED_PATH)) paths.add(match[0].replace(/[.]+$/, ''));
    for (const match of line.matchAll(SOURCE_PATH)) if (!/^(src|test)\//.test(match[0])) paths.add(match[0]);
    for (const path of paths) {
      // Product names (`Node.js`) are no files of ours: ours are lower case.
      if (/^[A-Z]/.test(path) && !path.includes('/')) continue;
      if (EXAMPLE_PATHS.has(path) || /^(dist|node_modules)\//.test(path)) continue;
      if (!exists(path, file)) missing.push(`${file}:${index + 1}: ${path}`);
    }
  });
  return missing;
}

describe('citations of docs/contract.md and docs/decisions.md', () => {
  const known = Object.fromEntries(Object.entries(CITED_DOCS).map(([name, path]) => [name, headings(read(path))])) as Record<string, Map<string, number>>;
  const files = scannedFiles();

  it('each cited file has unique headings', () => {
    for (const [name, counts] of Object.entries(known)) {
      const repeated = [...counts].filter(([, count]) => count > 1).map(([heading]) => heading);
      expect(repeated, `headings repeated in docs/${name}`).toEqual([]);
    }
  });

  it('every cited heading exists exactly once in the file cited', () => {
    const problems: string[] = [];
    let citations = 0;
    for (const file of files) {
      const text = read(file);
      if (!/(decisions|contract)\.md/.test(text)) continue;
      const { found, broken } = citationsOf(file, text, known);
      problems.push(...broken);
      citations += found.length;
      for (const { where, doc, heading } of found) {
        const count = known[doc]!.get(heading) ?? 0;
        if (count !== 1) problems.push(`${where}: docs/${doc}, "${heading}" ${count === 0 ? 'is no heading there' : `is a heading ${count} times`}`);
      }
    }
    expect(problems).toEqual([]);
    // The scan found the citations at all (a broken pattern would pass with none).
    expect(citations).toBeGreaterThan(200);
  });

  it('comments and docs name only files that exist', () => {
    const missing = files.flatMap((file) => missingPaths(file, read(file)));
    expect(missing).toEqual([]);
  });

  it('resolves paths against the tree as it is', () => {
    expect(TREE_SET.has('src/cli/exit-codes.ts')).toBe(true);
    expect(missingPaths('src/x.ts', '// see src/no/such-file.ts and engine/no-such.ts\n')).toEqual([
      'src/x.ts:1: src/no/such-file.ts',
      'src/x.ts:1: engine/no-such.ts',
    ]);
    expect(missingPaths('src/x.ts', "const p = 'src/in/a/string.ts';\n")).toEqual([]);
  });
});
