import type { VersionBenchmark } from '../../../client/index.js';
import type { CommandContext } from '../../context.js';
import { formatSize } from '../../../shared/size.js';
import { printTable } from '../../output.js';
import { formatCost, formatMs } from '../run/_outcome.js';
import { formatDelta } from './_format.js';

/** The characters of a version hash shown (as `svc runs show` and the dashboard show it). */
const SHORT_HASH = 8;

type Version = VersionBenchmark['versions'][number];

/** Cost per run: versions measured over different numbers of runs compare by it, not by their totals. */
const perRun = (version: Version) => version.usd / version.runs;

/** `+12%` of `now` against `before`; '' when there is nothing to compare with. */
function percent(now: number, before: number): string {
  if (before === 0) return '';
  const change = Math.round(((now - before) / before) * 100);
  return ` (${change > 0 ? '+' : ''}${change}%)`;
}

/** `Δ p50` and `Δ cost/run` against the version before (the next older one); '-' for the oldest. */
export function versionRows(versions: readonly Version[]): string[][] {
  return versions.map((version, i) => {
    const before = versions[i + 1];
    const deltaP50 = before ? `${formatDelta(version.p50Ms - before.p50Ms, formatMs)}${percent(version.p50Ms, before.p50Ms)}` : '-';
    const deltaCost = before
      ? `${perRun(version) >= perRun(before) ? '+' : '-'}${formatCost(Math.abs(perRun(version) - perRun(before)))}${percent(perRun(version), perRun(before))}`
      : '-';
    return [
      version.definitionHash.slice(0, SHORT_HASH),
      version.firstRunAt.replace('T', ' ').slice(0, 19),
      String(version.runs),
      formatMs(version.p50Ms),
      deltaP50,
      formatMs(version.p95Ms),
      formatCost(perRun(version)),
      deltaCost,
    ];
  });
}

/** `svc bench <workflow> --by-version`: one row per version, newest first, each against the one before. */
export async function printVersions(cmd: CommandContext, workflow: string, result: VersionBenchmark, since: string | undefined): Promise<void> {
  if (result.versions.length === 0) {
    cmd.io.err(`No completed or failed runs of '${workflow}' with a recorded version${since ? ` since ${since}` : ''}.\n`);
    return;
  }
  await printTable(cmd.io, ['VERSION', 'FIRST RUN', 'RUNS', 'P50', 'Δ P50', 'P95', 'COST/RUN', 'Δ COST/RUN'], versionRows(result.versions));
  const memory = memoryRows(result.versions);
  if (memory.length === 0) return;
  cmd.io.out('\npeak memory per node:\n');
  await printTable(cmd.io, ['VERSION', 'NODE', 'RUNS', 'MEM P50', 'Δ MEM P50', 'MEM P95'], memory);
}

/**
 * One row per version and measured node, newest version first, each node's p50 against the same
 * node in the version before: "did this edit make the test node hungrier?" in one command.
 */
export function memoryRows(versions: readonly Version[]): string[][] {
  return versions.flatMap((version, i) =>
    version.nodes.map((node) => {
      const before = versions[i + 1]?.nodes.find((other) => other.stepName === node.stepName);
      const delta = before
        ? `${formatDelta(node.peakRssP50Bytes - before.peakRssP50Bytes, formatSize)}${percent(node.peakRssP50Bytes, before.peakRssP50Bytes)}`
        : '-';
      return [
        version.definitionHash.slice(0, SHORT_HASH),
        node.stepName,
        String(node.runs),
        formatSize(node.peakRssP50Bytes),
        delta,
        formatSize(node.peakRssP95Bytes),
      ];
    }),
  );
}
