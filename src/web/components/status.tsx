/** A run or node state as a coloured label (colour is never the only cue: the word is there too). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status}`}>{status}</span>;
}

export function ErrorNote({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="note error" role="alert">
      {error}
    </p>
  );
}
