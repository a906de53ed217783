import { useLayoutEffect, useRef } from 'preact/hooks';

/** How close to the bottom (px) still counts as reading the newest lines. */
const AT_BOTTOM = 24;

/**
 * Terminal control sequences (colours, cursor moves: CSI and OSC) that tools print for a terminal;
 * a page shows them as `[32m` litter between the words, so they are left out.
 */
const TERMINAL_CONTROLS = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export const withoutTerminalControls = (text: string): string => text.replace(TERMINAL_CONTROLS, '');

/**
 * A node's output, following its tail as it grows (as `tail -f` does) while the reader is at the
 * bottom; a reader who scrolled up to read earlier lines stays where they are.
 */
export function NodeOutput({ nodeId, text }: { nodeId: string; text: string }) {
  const box = useRef<HTMLPreElement>(null);
  const following = useRef(true);
  useLayoutEffect(() => {
    following.current = true;
  }, [nodeId]);
  useLayoutEffect(() => {
    const el = box.current;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [text, nodeId]);
  return (
    <pre
      ref={box}
      class="output"
      data-node-output={nodeId}
      aria-live="polite"
      onScroll={(e) => {
        const el = e.currentTarget;
        following.current = el.scrollHeight - el.scrollTop - el.clientHeight < AT_BOTTOM;
      }}
    >
      {withoutTerminalControls(text)}
    </pre>
  );
}
