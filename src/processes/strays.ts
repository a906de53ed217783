import { readdirSync, readFileSync } from 'node:fs';
import { procAvailable, processTree } from './process-tree.js';

/**
 * The processes of a group's tree that left the group (docs/decisions.md, "Node processes":
 * processes that leave their group): an agent that starts its commands in a session of their own (Gemini CLI's shells,
 * through node-pty; `setsid`) puts them out of reach of a signal to its group, and once the agent is
 * gone they are init's children, found by nobody. So before a group is signalled its tree is read
 * (each live member's descendants, through /proc's children lists), and the groups of those
 * outside it are signalled too.
 */

interface Stat {
  group: number;
  /** The start time in ticks since boot: with the pid, one process (a reused pid is another). */
  start: string;
  zombie: boolean;
}

function statOf(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // ended meanwhile
  }
  // The command name (field 2) may hold spaces and parentheses; the fields after it follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { group: Number(fields[2]), start: fields[19] ?? '', zombie: fields[0] === 'Z' };
}

/** svc's own group: never signalled, whatever a tree says. */
let ownGroup: number | undefined;
const svcGroup = () => (ownGroup ??= statOf(process.pid)?.group ?? -1);

/** The live members of group `group`, found by reading every process's stat (one whose parent died is no one's child). */
function groupMembers(group: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => statOf(pid)?.group === group);
}

function send(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    // ended meanwhile
  }
}

export interface Strays {
  /** Each stray still the process seen: its whole group, then itself. */
  signal(signal: NodeJS.Signals): void;
  /** Whether any stray still runs (a zombie does not). */
  alive(): boolean;
}

const NONE: Strays = { signal() {}, alive: () => false };

/** The processes of group `leader`'s tree in other groups, as they are now; none where /proc cannot be read. */
export function strayProcesses(leader: number): Strays {
  if (!procAvailable()) return NONE;
  const strays = new Map<number, string>();
  for (const root of new Set([leader, ...groupMembers(leader)])) {
    for (const pid of processTree(root)) {
      const stat = statOf(pid);
      if (stat && stat.group !== leader && !stat.zombie) strays.set(pid, stat.start);
    }
  }
  if (strays.size === 0) return NONE;
  // Each time, read again: a pid whose process ended may be another's now, and that one is spared.
  const current = () => [...strays.keys()].map((pid) => ({ pid, stat: statOf(pid) })).filter(({ pid, stat }) => stat?.start === strays.get(pid));
  return {
    signal(signal) {
      for (const { pid, stat } of current()) {
        if (stat!.group > 1 && stat!.group !== svcGroup()) send(-stat!.group, signal);
        send(pid, signal);
      }
    },
    alive: () => current().some(({ stat }) => !stat!.zombie),
  };
}
