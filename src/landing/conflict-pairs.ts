/**
 * Whether two commits would conflict, and which files both change (docs/decisions.md, "Conflict
 * forecast"), from git's objects alone: `merge-base`, `diff --name-only` from it to each side, and
 * `merge-tree --write-tree`. Nothing is checked out or written but unreferenced objects.
 *
 * Commit ids never change what they name, so every answer is memoised by the ids it was asked
 * for: a forecast asked again, or after one more commit on one branch, reruns git only for the
 * pairs that commit is in. The forecast of a workspace (forecast.ts) asks through it; it is
 * exported for the landing queue to ask the same way.
 */

import { runGit, runGitCapped, type WorktreeGit } from '../workspaces/index.js';
import { mergeTree, type MergeTreeOutcome } from './merge-tree.js';

/** At most this many files are named in one answer; `truncated` says there were more (docs/contract.md, "Limits"). */
export const FORECAST_FILES_LIMIT = 100;

/** What of `git diff --name-only` is read per side: 4 MiB names some 50,000 paths; past it the side's list is marked incomplete. */
const TOUCHED_BYTES = 4 * 1024 * 1024;

/** How many answers are remembered, per `ConflictPairs`: each a few sets of paths at most. */
const MEMO_ENTRIES = 4_000;

/**
 * Two commits, `ours` (what is landed onto: the target, or one run's branch) and `theirs`:
 * - `contained`: theirs holds nothing ours lacks — its head is in ours, it changes nothing since
 *   they parted, or merging it would leave ours's tree as it is (landed by squash or cherry-pick);
 * - `apart`: both changed something, but no file in common, and they merge cleanly;
 * - `overlap`: both change `files`; `conflict` when git cannot merge them (then `files` are the
 *   conflicting ones). `truncated`: more files than `FORECAST_FILES_LIMIT`, or a side changed so
 *   many files that its list was cut (the overlap may then miss some);
 * - `unrelated`: no common history (nothing to forecast).
 */
export type PairForecast =
  { kind: 'contained' } | { kind: 'apart' } | { kind: 'overlap'; conflict: boolean; files: string[]; truncated: boolean } | { kind: 'unrelated' };

interface Touched {
  files: Set<string>;
  truncated: boolean;
}

/** A map of promises that forgets its oldest entries past `limit`, and a rejected promise at once (so a failure is asked again). */
class Memo {
  readonly #entries = new Map<string, Promise<unknown>>();
  constructor(private readonly limit: number) {}

  get<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const known = this.#entries.get(key) as Promise<T> | undefined;
    if (known) {
      // Used again: moved to the newest end, the last to be forgotten.
      this.#entries.delete(key);
      this.#entries.set(key, known);
      return known;
    }
    const promise = compute();
    this.#entries.set(key, promise);
    promise.catch(() => {
      if (this.#entries.get(key) === promise) this.#entries.delete(key);
    });
    while (this.#entries.size > this.limit) this.#entries.delete(this.#entries.keys().next().value!);
    return promise;
  }
}

export class ConflictPairs {
  readonly #memo: Memo;

  constructor(
    private readonly git: WorktreeGit,
    memoEntries = MEMO_ENTRIES,
  ) {
    this.#memo = new Memo(memoEntries);
  }

  /** The forecast of merging commit `theirs` into commit `ours`, in `repository` (both full commit ids). */
  pair(repository: string, ours: string, theirs: string): Promise<PairForecast> {
    return this.#memo.get(`pair\0${repository}\0${ours}\0${theirs}`, () => this.#pair(repository, ours, theirs));
  }

  async #pair(repository: string, ours: string, theirs: string): Promise<PairForecast> {
    const base = await this.#mergeBase(repository, ours, theirs);
    if (base === undefined) return { kind: 'unrelated' };
    if (base === theirs) return { kind: 'contained' };
    const [mine, yours] = await Promise.all([this.#touched(repository, base, ours), this.#touched(repository, base, theirs)]);
    if (yours.files.size === 0 && !yours.truncated) return { kind: 'contained' };
    // Ours has not moved since theirs left it: theirs fast-forwards, nothing can collide.
    if (mine.files.size === 0 && !mine.truncated) return { kind: 'apart' };
    // Even with no path in common two sides can conflict (a file on one, a directory of that name
    // on the other), so git decides whenever both changed something.
    const merged = await this.#merge(repository, ours, theirs);
    if (merged.clean && merged.tree === (await this.#tree(repository, ours))) return { kind: 'contained' };
    const cutSides = mine.truncated || yours.truncated;
    if (!merged.clean) return capped(merged.files, true, false);
    const shared = [...yours.files].filter((file) => mine.files.has(file));
    return shared.length ? capped(shared.sort(), false, cutSides) : { kind: 'apart' };
  }

  #options(repository: string) {
    return { cwd: repository, env: this.git.env, timeoutMs: this.git.timeoutMs };
  }

  /** Undefined when the two have no common history (git's exit 1). */
  #mergeBase(repository: string, a: string, b: string): Promise<string | undefined> {
    return this.#memo.get(`base\0${repository}\0${a}\0${b}`, async () => {
      const out = await runGit(['merge-base', a, b], this.#options(repository)).catch((error: { exit?: { code: number | null } }) => {
        if (error.exit?.code === 1) return '';
        throw error;
      });
      return out.trim() || undefined;
    });
  }

  /** The paths changed from `base` to `tip`: a rename counts as both its paths (`--no-renames`), any byte a path holds kept (`-z`). */
  #touched(repository: string, base: string, tip: string): Promise<Touched> {
    return this.#memo.get(`diff\0${repository}\0${base}\0${tip}`, async () => {
      const args = ['diff', '--name-only', '--no-renames', '--no-ext-diff', '--no-textconv', '-z', base, tip, '--'];
      const { stdout, truncated } = await runGitCapped(args, this.#options(repository), TOUCHED_BYTES);
      const names = stdout.toString('utf8').split('\0');
      // The last field is empty after the final NUL, or a name cut short when the output was.
      names.pop();
      return { files: new Set(names), truncated };
    });
  }

  #merge(repository: string, ours: string, theirs: string): Promise<MergeTreeOutcome> {
    return this.#memo.get(`merge\0${repository}\0${ours}\0${theirs}`, () => mergeTree(ours, theirs, this.#options(repository)));
  }

  #tree(repository: string, commit: string): Promise<string> {
    return this.#memo.get(`tree\0${repository}\0${commit}`, async () => (await runGit(['rev-parse', `${commit}^{tree}`], this.#options(repository))).trim());
  }
}

function capped(files: string[], conflict: boolean, cut: boolean): PairForecast {
  return { kind: 'overlap', conflict, files: files.slice(0, FORECAST_FILES_LIMIT), truncated: cut || files.length > FORECAST_FILES_LIMIT };
}
