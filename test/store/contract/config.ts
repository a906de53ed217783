/** The assistant configuration repository's contract (src/config/repository.ts), for every store. */

import { expect, it } from 'vitest';
import { AssistantsConfigService } from '../../../src/config/assistants.js';
import type { StoredAssistants } from '../../../src/config/repository.js';
import { useContractStore } from './lifecycle.js';
import type { ContractStoreFactory } from './store.js';

const stored = (claude: string | null, codex: string | null = null): StoredAssistants => ({
  id: 'assistants',
  defaultAssistant: 'claude',
  assistants: { claude: { model: claude }, codex: { model: codex } },
});

export function assistantsConfigContract(factory: ContractStoreFactory): void {
  const stores = useContractStore(factory);

  it('holds nothing at first, then one record replaced only while it is still the one read, across a reopen', async () => {
    let repository = await stores.current().config();
    expect(await repository.get()).toBeUndefined();
    // Stored while there is none; a second "first" write finds one there.
    expect(await repository.replaceIf(undefined, stored('sonnet'))).toBe(true);
    expect(await repository.replaceIf(undefined, stored('haiku'))).toBe(false);
    const read = (await repository.get())!;
    expect(read).toEqual(stored('sonnet'));
    expect(await repository.replaceIf(read, stored('opus', 'gpt-5'))).toBe(true);
    // A stale read no longer matches.
    expect(await repository.replaceIf(read, stored('haiku'))).toBe(false);

    repository = await (await stores.reopen()).config();
    expect(await repository.get()).toEqual(stored('opus', 'gpt-5'));
  });

  it('of concurrent replacements of one read, exactly one is stored', async () => {
    const repository = await stores.current().config();
    await repository.replaceIf(undefined, stored(null));
    const read = (await repository.get())!;
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => repository.replaceIf(read, stored(`model-${i}`))));
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    expect(await repository.get()).toEqual(stored(`model-${outcomes.indexOf(true)}`));
  });

  it('through the service: concurrent patches of different assistants and fields all stay (each merged into what it reads)', async () => {
    const store = stores.current();
    // Two services on one store stand for two servers on one database.
    const [a, b] = [new AssistantsConfigService(await store.config()), new AssistantsConfigService(await store.config())];
    await Promise.all([
      a.update({ claude: { model: 'sonnet' } }),
      b.update({ codex: { model: 'gpt-5' } }),
      a.update({ claude: { baseUrl: 'http://models.internal:8080' } }),
      b.update({ codex: { apiKeyEnv: 'CODEX_KEY' } }),
    ]);
    const expected = {
      defaultAssistant: 'claude',
      assistants: {
        claude: { model: 'sonnet', baseUrl: 'http://models.internal:8080', permissions: 'read' },
        codex: { model: 'gpt-5', apiKeyEnv: 'CODEX_KEY', permissions: 'read' },
      },
    };
    expect(await a.get()).toEqual(expected);
    expect(await b.get()).toEqual(expected);
    expect(await b.modelOf('codex')).toBe('gpt-5');
    expect(await a.endpointOf('claude')).toEqual({ baseUrl: 'http://models.internal:8080', apiKeyEnv: null });
    expect(await a.endpointOf('codex')).toBeNull();
  });

  it("keeps an assistant's price per million tokens across a reopen; null removes it", async () => {
    const service = new AssistantsConfigService(await stores.current().config());
    const price = { input: 1.25, cachedInput: 0.125, output: 10 };
    await service.update({ codex: { pricePerMillionTokens: price } });
    const reopened = new AssistantsConfigService(await (await stores.reopen()).config());
    expect(await reopened.priceOf('codex')).toEqual(price);
    expect(await reopened.priceOf('claude')).toBeNull();
    await reopened.update({ codex: { pricePerMillionTokens: null } });
    expect(await reopened.priceOf('codex')).toBeNull();
  });
}
