import { createHmac, randomBytes } from 'node:crypto';

/** The prefix of a Standard Webhooks signing secret. */
const SECRET_PREFIX = 'whsec_';
/** Random bytes in a new secret: the specification allows 24 to 64. */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The `webhook-signature` header of a message (Standard Webhooks): for each
 * secret, `v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed
 * with the secret's decoded bytes, space-separated. Several secrets while a
 * rotated one is still valid, so receivers holding either verify.
 */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')).update(content).digest('base64')}`)
    .join(' ');
}

/** The headers every delivery carries, besides Content-Type and Authorization. */
export function webhookHeaders(secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, body),
  };
}
