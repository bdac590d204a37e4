import type { Store } from '../../db/store.js';
import { invariant } from '../../kernel/errors.js';
import { createSecretBox, generateEncryptionKey, parseEncryptionKey } from './webhook.cipher.js';
import type { SecretBox } from './webhook.cipher.js';
import { createWebhookRepository } from './webhook.repository.js';

/** The name of the generated key in webhook_settings. */
const GENERATED_KEY = 'encryption_key';

/**
 * The box webhook secrets are sealed with: WEBHOOK_ENCRYPTION_KEY when set;
 * otherwise a key netgraph generates once and keeps in the database, so a
 * first start works without configuration (docs/webhooks.md says what that
 * protects and what it does not). Loaded once per process.
 */
export function createKeyRing(store: Store, configuredKey: string | null): () => Promise<SecretBox> {
  let box: Promise<SecretBox> | undefined;
  const load = async (): Promise<SecretBox> => {
    if (configuredKey !== null) {
      const key = parseEncryptionKey(configuredKey);
      invariant(key !== undefined, 'webhook-configured-key');
      return createSecretBox(key);
    }
    const repository = createWebhookRepository(store);
    let stored = await repository.setting(GENERATED_KEY);
    if (stored === undefined) {
      await repository.insertSettingOnce(GENERATED_KEY, generateEncryptionKey());
      stored = await repository.setting(GENERATED_KEY);
    }
    const key = stored === undefined ? undefined : parseEncryptionKey(stored);
    invariant(key !== undefined, 'webhook-generated-key');
    return createSecretBox(key);
  };
  return () => {
    box ??= load().catch((error: unknown) => {
      box = undefined;
      throw error;
    });
    return box;
  };
}
