import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { packageRoot } from '../shared/version.js';

/**
 * The dashboard's files, built at install time into `dist/web/` (scripts/build-web.mjs): the page
 * and its content-hashed script and style sheet. Only these names are served (no path from the
 * request ever reaches the file system), read once and kept in memory: together a few hundred KiB.
 */
export const WEB_DIR = join(packageRoot, 'dist', 'web');

/**
 * Nothing but our own files (docs/decisions.md, "Dashboard safety"): no inline script or style,
 * no other origin, no frames, no forms posting anywhere, no `<base>` rewriting.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface WebAsset {
  body: Buffer;
  headers: Record<string, string>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const COMMON_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

let cache: Map<string, WebAsset> | undefined;

function load(dir: string): Map<string, WebAsset> {
  const assets = new Map<string, WebAsset>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return assets;
  }
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    // The page is asked for by a fixed name and must be fetched anew after an upgrade; the rest
    // carry a content hash in their names, so a browser may keep them for good.
    const cacheControl = name === 'index.html' ? 'no-cache' : 'public, max-age=31536000, immutable';
    assets.set(name, { body: readFileSync(join(dir, name)), headers: { 'content-type': type, 'cache-control': cacheControl, ...COMMON_HEADERS } });
  }
  return assets;
}

/** The page (`index.html`) or an asset by its file name; undefined when there is no such file. */
export function webAsset(name: string, dir = WEB_DIR): WebAsset | undefined {
  if (dir !== WEB_DIR) return load(dir).get(name);
  // An empty folder is not kept: the build may land after the server started.
  if (!cache || cache.size === 0) cache = load(dir);
  const assets = cache;
  return assets.get(name);
}
