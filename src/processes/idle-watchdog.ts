/**
 * The stall watchdog of a node's process (docs/decisions.md, "Stalls"): `onIdle` is called
 * once when nothing called `touch` for `idleMs`. Output arrives in many small chunks, so `touch`
 * only notes the time; the one timer re-arms itself for what is left of the silence instead of
 * being replaced on every chunk.
 */
export interface IdleWatchdog {
  /** Something was heard: the silence starts again from now. */
  touch(): void;
  /** No more watching (the process ended). */
  stop(): void;
}

const OFF: IdleWatchdog = { touch() {}, stop() {} };

/** `idleMs` undefined: no watchdog (a bash node without `idle_timeout`). */
export function watchIdle(idleMs: number | undefined, onIdle: () => void): IdleWatchdog {
  if (idleMs === undefined) return OFF;
  let lastHeard = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const arm = (delay: number) => {
    timer = setTimeout(() => {
      const silent = Date.now() - lastHeard;
      if (silent >= idleMs) {
        timer = undefined;
        onIdle();
      } else arm(idleMs - silent);
    }, delay);
  };
  arm(idleMs);
  return {
    touch() {
      lastHeard = Date.now();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
