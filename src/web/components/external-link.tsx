import type { ComponentChildren } from 'preact';

/**
 * `value` as a link target when it is an absolute http(s) address, else undefined. Addresses from
 * outside (a pull request's, a check's page from gh) are hostile: a `javascript:` or `data:` one
 * must never become a link, however the page's CSP would treat it.
 */
export function webAddress(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return undefined;
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
}

/**
 * A link to a page elsewhere, opened in a new tab that cannot reach this one (`noopener`) nor learn
 * where it came from. An address that is not http(s) is shown as text, whole, and not linked: the
 * user still reads what GitHub said.
 */
export function ExternalLink({ url, children }: { url: string | null | undefined; children?: ComponentChildren }) {
  const href = webAddress(url);
  if (href) {
    return (
      <a href={href} target="_blank" rel="noopener noreferrer" title={url ?? undefined}>
        {children ?? url}
      </a>
    );
  }
  if (!url) return <>{children}</>;
  return (
    <span data-unlinked title="not a web address: not linked">
      {children === undefined ? null : <>{children} </>}
      <span class="mono">{url}</span>
    </span>
  );
}
