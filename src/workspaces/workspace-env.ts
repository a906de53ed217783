/**
 * A workspace's env values and the env-leak gate (docs/contract.md, "Workspaces"): the values its
 * nodes' processes get, the consent bit with its audit entries, and the check before every agent
 * that no agent keys in its `.env` files reach an agent without that consent.
 */

import type { Actor } from '../shared/actor.js';
import { DomainError } from '../shared/errors.js';
import { stripScan } from './registration.js';
import { scanEnvFiles } from './env-scan.js';
import { toWorkspaceView, type Workspace } from './records.js';
import type { WorkspaceCore } from './workspace-core.js';

/** Names a workspace env var may have (what a shell accepts, upper case by convention). */
export const ENV_KEY_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

/** Who changed the consent bit, as the audit entry records it. */
export type ConsentActor = Actor;

export class WorkspaceEnv {
  constructor(private readonly core: WorkspaceCore) {}

  /** The consent bit, with its warn-level audit entry (docs/contract.md, "Log entries"). */
  setConsent(id: string, allow: boolean, actor: ConsentActor): Promise<Workspace> {
    return this.core.exclusive(id, async () => {
      const record = await this.core.record(id);
      const scan = stripScan(await scanEnvFiles(record.path));
      const updated = await this.core.update(id, { allow_env_keys: allow, env_scan: scan });
      this.core.deps.logger.warn(allow ? 'env_leak_consent_granted' : 'env_leak_consent_revoked', {
        workspaceId: id,
        path: record.path,
        files: scan.files,
        keys: scan.keys,
        scanStatus: scan.status,
        actor,
      });
      return toWorkspaceView(updated);
    });
  }

  setEnv(id: string, values: Record<string, string>): Promise<Workspace> {
    return this.core.exclusive(id, async () => {
      await this.core.record(id);
      const bad = Object.keys(values).filter((key) => !ENV_KEY_PATTERN.test(key));
      if (bad.length) {
        throw new DomainError(
          'invalid_request',
          `Env var names must match ${ENV_KEY_PATTERN.source}: ${bad.join(', ')}.`,
          bad.map((key) => ({ path: key, message: 'not a valid env var name' })),
        );
      }
      const names = await this.core.repos.secrets.merge(id, values);
      return toWorkspaceView(await this.core.update(id, { env_keys: names }));
    });
  }

  unsetEnv(id: string, key: string): Promise<Workspace> {
    return this.core.exclusive(id, async () => {
      await this.core.record(id);
      if (!(await this.core.repos.secrets.unset(id, key))) throw new DomainError('env_key_not_found', `Workspace ${id} has no env var ${key}.`);
      const names = Object.keys(await this.core.repos.secrets.get(id)).sort();
      return toWorkspaceView(await this.core.update(id, { env_keys: names }));
    });
  }

  /** The workspace's env values, for a process's environment only. */
  async values(id: string): Promise<Record<string, string>> {
    return this.core.repos.secrets.get(id);
  }

  /**
   * The env-leak gate, before every agent invocation in a workspace: the .env files at the
   * workspace's root — and at the agent's directory, a worktree of it — are scanned afresh, and
   * agent keys there without consent on the record stop the agent.
   */
  async assertAgentAllowed(id: string, cwd?: string): Promise<void> {
    const record = await this.core.record(id);
    // A clone is scanned where this server keeps it (the same place when one server registered and runs it).
    const scan = stripScan(await scanEnvFiles(this.core.checkoutOf(record)));
    if (JSON.stringify(scan) !== JSON.stringify(record.env_scan)) await this.core.repos.workspaces.update(id, { env_scan: scan });
    if (record.allow_env_keys) return;
    const here = cwd && cwd !== record.path ? await scanEnvFiles(cwd) : undefined;
    const files = [...new Set([...(scan.keys.length ? scan.files : []), ...(here?.keys.length ? here.files : [])])];
    const keys = [...new Set([...scan.keys, ...(here?.keys ?? [])])].sort();
    if (keys.length === 0) return;
    throw new DomainError(
      'env_leak_blocked',
      `Workspace ${id} has agent keys in ${files.join(', ')} (${keys.join(', ')}); an agent started there would receive them. ` +
        `Remove them, or consent with \`svc workspace consent ${id} --allow\`.`,
      { workspaceId: id, files, keys },
    );
  }
}
