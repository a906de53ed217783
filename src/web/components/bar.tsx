/** A horizontal bar for a value on a shared scale; the number is in its label (and the table beside it). */
export function Bar({ value, max, kind = 'p50', label }: { value: number; max: number; kind?: 'p50' | 'p95'; label: string }) {
  return (
    <span class="bar-track" role="img" aria-label={label} title={label}>
      <span
        class={`bar bar-${kind}`}
        ref={(el) => {
          // Sized through the CSSOM: the page's CSP allows no inline style attributes.
          if (el) el.style.width = `${Math.min(100, (value / max) * 100)}%`;
        }}
      />
    </span>
  );
}
