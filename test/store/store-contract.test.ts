// One store contract (docs/decisions.md, "PostgreSQL store"): every repository suite of
// test/store/contract/ runs against the embedded file store and against a real PostgreSQL.
import { describe } from 'vitest';
import { usePostgres } from '../support/postgres.js';
import { assistantsConfigContract } from './contract/config.js';
import { conversationRepositoryContract } from './contract/conversations.js';
import { queueRepositoryContract } from './contract/queue.js';
import { pullRepositoryContract } from './contract/pulls.js';
import { runRepositoryContract } from './contract/runs.js';
import { runSummaryContract } from './contract/run-summaries.js';
import { scheduleRepositoryContract } from './contract/schedules.js';
import { triggerRepositoryContract } from './contract/triggers.js';
import { fileContractStore, postgresContractStore, type ContractStoreFactory } from './contract/store.js';
import { webhookRepositoryContract } from './contract/webhooks.js';
import { workspaceRepositoryContract } from './contract/workspaces.js';

const postgres = usePostgres();
const stores: Array<[string, ContractStoreFactory]> = [
  ['the file store', fileContractStore],
  ['PostgreSQL', postgresContractStore(() => postgres.createDatabase())],
];

describe.each(stores)('on %s', (_name, factory) => {
  describe('workspaces, environments and env values', () => workspaceRepositoryContract(factory));
  describe('conversations and messages', () => conversationRepositoryContract(factory));
  describe('webhook dedupe and deliveries', () => webhookRepositoryContract(factory));
  describe('schedule state', () => scheduleRepositoryContract(factory));
  describe('the landing queue', () => queueRepositoryContract(factory));
  describe('followed pull requests', () => pullRepositoryContract(factory));
  describe('runs and run events', () => runRepositoryContract(factory));
  describe('run summaries (benchmarks)', () => runSummaryContract(factory));
  describe('assistant configuration', () => assistantsConfigContract(factory));
  describe('webhook trigger registry', () => triggerRepositoryContract(factory));
});
