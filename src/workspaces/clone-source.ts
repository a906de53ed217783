/**
 * What `POST /api/workspaces` accepts as a repository to clone (docs/decisions.md, "Workspaces"):
 * `https://`, `ssh://`, `git@host:path` and `file://` URLs. Anything else — a bare path, `http://`,
 * `ext::` transports, or a value starting with `-` that git would read as an option — is refused
 * before git ever sees it.
 */

const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!\/\/)[^\s]+$/;

export type CloneUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export function checkCloneUrl(raw: string): CloneUrlCheck {
  const url = raw.trim();
  if (url === '') return { ok: false, reason: 'url is empty' };
  if (url.startsWith('-')) return { ok: false, reason: 'url must not start with "-" (git would read it as an option)' };
  if (/[\s\0]/.test(url)) return { ok: false, reason: 'url must not contain white space or NUL' };
  if (SCP_LIKE.test(url)) return { ok: true, url };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'url must be https://, ssh://, git@host:path or file://' };
  }
  if (parsed.protocol === 'file:') {
    return parsed.pathname.length > 1 ? { ok: true, url } : { ok: false, reason: 'a file:// url needs a path' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'ssh:')
    return { ok: false, reason: `url scheme ${parsed.protocol} is not allowed; use https://, ssh://, git@host:path or file://` };
  if (!parsed.hostname) return { ok: false, reason: 'url needs a host' };
  if (parsed.hostname.startsWith('-')) return { ok: false, reason: 'url host must not start with "-"' };
  // A credential in the URL would be stored, shown in every answer and written to the clone's
  // .git/config where agents can read it: git's credential helpers are the place for it.
  if (parsed.password || (parsed.protocol === 'https:' && parsed.username)) {
    return { ok: false, reason: 'url must not carry credentials (user:password@ or token@); use a git credential helper or an ssh key' };
  }
  return { ok: true, url };
}

/**
 * The name a workspace gets from its repository: the last path segment without `.git`
 * (`https://host/acme/widgets.git` → `widgets`).
 */
export function repositoryName(url: string): string {
  const path = SCP_LIKE.test(url) ? url.slice(url.indexOf(':') + 1) : new URL(url).pathname;
  const last = path.replace(/\/+$/, '').split('/').pop() ?? '';
  return last.replace(/\.git$/, '') || 'repository';
}

/** Two spellings of one repository are the same workspace: no trailing slash or `.git`, host case folded. */
export function normalizeCloneUrl(url: string): string {
  const trimmed = url
    .trim()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
  if (SCP_LIKE.test(trimmed)) {
    const at = trimmed.indexOf('@');
    const colon = trimmed.indexOf(':', at);
    return `${trimmed.slice(0, at + 1)}${trimmed.slice(at + 1, colon).toLowerCase()}${trimmed.slice(colon)}`;
  }
  const parsed = new URL(trimmed);
  parsed.hostname = parsed.hostname.toLowerCase();
  return parsed.toString().replace(/\/+$/, '');
}
