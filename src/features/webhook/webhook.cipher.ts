import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { invariant } from '../../kernel/errors.js';

/** The version tag of sealed values, so a future format can sit next to this one. */
const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;

/**
 * Encrypts webhook secrets at rest with AES-256-GCM. `context` (the
 * endpoint's UUID and what the value is) is authenticated with each value, so
 * a sealed secret copied to another endpoint's row does not open.
 */
export interface SecretBox {
  seal(plain: string, context: string): string;
  /** The plain text; throws when the value was sealed with another key or context, or altered. */
  open(sealed: string, context: string): string;
}

/** A box over a 32-byte key. */
export function createSecretBox(key: Buffer): SecretBox {
  invariant(key.length === KEY_BYTES, 'webhook-cipher-key-length');
  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), body.toString('base64'), cipher.getAuthTag().toString('base64')].join('.');
    },
    open(sealed, context) {
      const [version, iv, body, tag] = sealed.split('.');
      invariant(version === VERSION && iv !== undefined && body !== undefined && tag !== undefined, 'webhook-cipher-format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64')).setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The 32 bytes of a WEBHOOK_ENCRYPTION_KEY value: 64 hex digits or the
 * base64 of 32 bytes; undefined when it is neither (config.ts reports it).
 */
export function parseEncryptionKey(value: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === KEY_BYTES) return bytes;
  }
  return undefined;
}

/** A new random key, as base64 (what the generated key is stored as). */
export function generateEncryptionKey(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}
