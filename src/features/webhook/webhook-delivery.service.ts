import { randomUUID } from 'node:crypto';
import type { Store } from '../../db/store.js';
import type { SecretBox } from './webhook.cipher.js';
import { postWebhook } from './webhook.http.js';
import type { PostOutcome } from './webhook.http.js';
import { createOutboxRepository } from './webhook-outbox.repository.js';
import type { ClaimedMessage, MessageOutcome, RecordedAttempt } from './webhook-outbox.repository.js';
import { createWebhookRepository } from './webhook.repository.js';
import type { EndpointRow } from './webhook.repository.js';
import { webhookHeaders } from './webhook.signing.js';
import type { Payload } from './webhook.alerts.js';
import { createMailer, emailOf, slackBodyOf } from './webhook.channels.js';
import type { SmtpSettings } from './webhook.channels.js';
import { meterSignature } from './webhook.meter.js';
import { TargetRefused, resolveTarget } from './webhook.target.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The default wait before each retry (Standard Webhooks' schedule): 10
 * attempts in all, then the message failed. WEBHOOK_RETRY_SCHEDULE replaces it.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR]);
/** Up to this share is added to each wait at random, so retries of a burst spread out. */
export const RETRY_JITTER = 0.1;
/** The longest wait a Retry-After may ask for. */
const MAX_RETRY_AFTER_MS = 24 * HOUR;
/** An endpoint failing without a success for this long is disabled. */
export const FAILING_DISABLE_MS = 5 * 24 * HOUR;

/** An endpoint of a batch with its opened secrets and Authorization header (a slack channel: its opened URL). */
interface Signer {
  readonly endpoint: EndpointRow;
  readonly secrets: readonly string[];
  readonly authorization: string | undefined;
  readonly slackUrl: string | undefined;
}

/** One attempt of a batch, sent and waiting to be recorded. */
interface Attempt {
  readonly signer: Signer;
  readonly message: ClaimedMessage;
  readonly started: Date;
  readonly outcome: PostOutcome;
}

/** What delivery needs of the configuration. */
export interface DeliverySettings {
  readonly allowPrivateTargets: boolean;
  readonly timeoutMs: number;
  /** The wait before each retry (WEBHOOK_RETRY_SCHEDULE); its length + 1 attempts in all. */
  readonly retryScheduleMs: readonly number[];
  /** Where email targets' messages go (SMTP_URL, SMTP_FROM); null: they fail until it is set. */
  readonly smtp: SmtpSettings | null;
}

/**
 * When the next attempt is due after `attempts` failed ones, in ms from now:
 * the schedule's wait plus jitter, or the answer's Retry-After when that is
 * longer; null when the schedule is used up.
 */
export function retryDelay(attempts: number, retryAfterMs: number | null, random: () => number = Math.random, schedule: readonly number[] = RETRY_SCHEDULE_MS): number | null {
  const wait = schedule[attempts - 1];
  if (wait === undefined) return null;
  return Math.max(Math.round(wait * (1 + RETRY_JITTER * random())), Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/** How long a claim lasts: longer than an attempt can take, so only a process that died lets it lapse. */
export function leaseMs(timeoutMs: number): number {
  return 2 * timeoutMs + 5 * SECOND;
}

/**
 * Delivers due messages of the outbox. Each message is claimed for one
 * attempt (webhook-outbox.repository.ts claimDue), so across processes one
 * attempt at a time runs per message; a process that dies mid-attempt leaves
 * a claim that lapses, and the message is attempted again (at least once,
 * never lost). `now` drives the schedule (tests inject one).
 */
export function createDeliverer(store: Store, box: () => Promise<SecretBox>, settings: DeliverySettings, now: () => Date, random: () => number = Math.random) {
  /** What signs and authorizes deliveries to each endpoint of a batch, read and decrypted once per batch. */
  async function signersFor(endpointIds: readonly number[], at: Date): Promise<Map<number, Signer>> {
    const opened = await box();
    const repository = createWebhookRepository(store);
    const signers = new Map<number, Signer>();
    for (const id of new Set(endpointIds)) {
      const endpoint = await repository.endpointById(id);
      if (endpoint === undefined) continue;
      const secrets = (await repository.validSecrets(id, at.toISOString())).map((sealed) => opened.open(sealed, secretContext(endpoint.uuid)));
      const slackUrl = endpoint.channel === 'slack' && endpoint.target !== null ? opened.open(endpoint.target, slackUrlContext(endpoint.uuid)) : undefined;
      signers.set(id, { endpoint, secrets, authorization: authorizationHeader(endpoint, opened), slackUrl });
    }
    return signers;
  }

  const mailer = settings.smtp === null ? undefined : createMailer(settings.smtp, settings.timeoutMs);

  /** POSTs to a URL checked against the SSRF rules on this attempt; a refused target is a failed attempt without an answer. */
  async function post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome> {
    try {
      const target = await resolveTarget(url, settings.allowPrivateTargets);
      return await postWebhook(target, headers, body, settings.timeoutMs);
    } catch (error) {
      if (!(error instanceof TargetRefused)) throw error;
      return { status: null, durationMs: 0, response: null, error: `refused: ${error.message}`, retryAfterMs: null };
    }
  }

  /** One attempt through the endpoint's channel: a signed POST, an email, or a Slack message. */
  async function send(signer: Signer, message: ClaimedMessage): Promise<PostOutcome> {
    const { endpoint } = signer;
    if (endpoint.channel === 'email') {
      if (mailer === undefined || endpoint.target === null) return { status: null, durationMs: 0, response: null, error: 'no SMTP server: set SMTP_URL and SMTP_FROM', retryAfterMs: null };
      return mailer.send(endpoint.target, emailOf(JSON.parse(message.payload) as Payload, message.uuid), message.uuid);
    }
    if (endpoint.channel === 'slack') {
      if (signer.slackUrl === undefined) return { status: null, durationMs: 0, response: null, error: 'no Slack URL', retryAfterMs: null };
      return post(signer.slackUrl, {}, slackBodyOf(JSON.parse(message.payload) as Payload, message.uuid));
    }
    // the receiver checks the timestamp against its own clock: wall time, whatever clock drives the schedule
    const headers = webhookHeaders(signer.secrets, message.uuid, Math.floor(Date.now() / 1000), message.payload);
    const newest = signer.secrets[0];
    // Meter's receivers hold one secret: the newest signs (docs/alerts.md, rotation)
    if (endpoint.payloadFormat === 'meter' && newest !== undefined) headers['x-meter-signature'] = meterSignature(newest, message.payload);
    if (signer.authorization !== undefined) headers.authorization = signer.authorization;
    return post(endpoint.url, headers, message.payload);
  }

  /** Records a batch's attempts in one transaction (one write for the batch, not one per message). */
  async function record(attempts: readonly Attempt[], token: string): Promise<void> {
    await store.lockingTransaction(async (tx) => {
      const outbox = createOutboxRepository(tx, store.dialect);
      const at = now().toISOString();
      const entries: RecordedAttempt[] = [];
      for (const { signer, message, started, outcome } of attempts) {
        entries.push({ messageId: message.id, attempt: { attemptedAt: started.toISOString(), ...pick(outcome) }, outcome: await settle(outbox, signer.endpoint, message, outcome, at) });
      }
      await outbox.recordAttempts(token, entries);
    });
  }

  /** The message's state after the attempt, and the endpoint's: success clears its failing clock, 410 or 5 days of failing disable it. */
  async function settle(outbox: ReturnType<typeof createOutboxRepository>, endpoint: EndpointRow, message: ClaimedMessage, outcome: PostOutcome, at: string): Promise<MessageOutcome> {
    if (outcome.status !== null && outcome.status >= 200 && outcome.status < 300) {
      // a healthy endpoint (as read at the batch's start) has no clock to clear: one statement less per delivery
      if (endpoint.failingSince !== null) await outbox.clearFailing(endpoint.id);
      return { state: 'delivered', nextAttemptAt: null };
    }
    if (outcome.status === 410) {
      await outbox.disableEndpoint(endpoint.id, 'GONE');
      return { state: 'failed', nextAttemptAt: null };
    }
    const failingSince = await outbox.markFailing(endpoint.id, at);
    if (Date.parse(at) - Date.parse(failingSince) >= FAILING_DISABLE_MS) await outbox.disableEndpoint(endpoint.id, 'FAILING');
    const delay = retryDelay(message.attempts, outcome.retryAfterMs, random, settings.retryScheduleMs);
    return delay === null ? { state: 'failed', nextAttemptAt: null } : { state: 'pending', nextAttemptAt: new Date(Date.parse(at) + delay).toISOString() };
  }

  return {
    /**
     * Deletes delivered and failed messages (with their attempts) older than
     * `retentionDays`, in batches; pending ones stay whatever their age.
     * Returns how many went.
     */
    async expire(retentionDays: number, batchSize = 5_000): Promise<number> {
      const before = new Date(now().getTime() - retentionDays * 86_400_000).toISOString();
      let deleted = 0;
      for (;;) {
        const count = await createOutboxRepository(store, store.dialect).deleteFinished(before, batchSize);
        deleted += count;
        if (count < batchSize) return deleted;
      }
    },

    /**
     * Claims up to `limit` due messages and attempts each (concurrently),
     * then records every attempt in one transaction; resolves when they are
     * recorded. Returns how many it attempted.
     */
    async deliverDue(limit = 32): Promise<number> {
      const token = randomUUID();
      const at = now();
      if (!(await createOutboxRepository(store, store.dialect).hasDue(at.toISOString()))) return 0;
      const claimed = await store.lockingTransaction((tx) =>
        createOutboxRepository(tx, store.dialect).claimDue(at.toISOString(), new Date(at.getTime() + leaseMs(settings.timeoutMs)).toISOString(), token, limit),
      );
      if (claimed.length === 0) return 0;
      const signers = await signersFor(claimed.map((message) => message.endpointId), at);
      const attempts = await Promise.all(
        claimed.map(async (message): Promise<Attempt | undefined> => {
          const signer = signers.get(message.endpointId);
          if (signer === undefined) return undefined;
          const started = now();
          return { signer, message, started, outcome: await send(signer, message) };
        }),
      );
      // a process that dies before this line delivered without recording: the claims lapse and the messages go again
      await record(attempts.filter((attempt) => attempt !== undefined), token);
      return claimed.length;
    },
  };
}

export type Deliverer = ReturnType<typeof createDeliverer>;

/** The context a signing secret is sealed with: its endpoint, so it opens for no other. */
export function secretContext(endpointUuid: string): string {
  return `${endpointUuid}:signing`;
}

/** The context a slack channel's incoming-webhook URL is sealed with. */
export function slackUrlContext(endpointUuid: string): string {
  return `${endpointUuid}:slack`;
}

/** The context an Authorization value is sealed with. */
export function authorizationContext(endpointUuid: string): string {
  return `${endpointUuid}:authorization`;
}

function authorizationHeader(endpoint: EndpointRow, box: SecretBox): string | undefined {
  if (endpoint.authValue === null || endpoint.authKind === 'none') return undefined;
  const value = box.open(endpoint.authValue, authorizationContext(endpoint.uuid));
  return endpoint.authKind === 'basic' ? `Basic ${Buffer.from(value).toString('base64')}` : `Bearer ${value}`;
}

function pick(outcome: PostOutcome) {
  return { status: outcome.status, durationMs: outcome.durationMs, response: outcome.response, error: outcome.error };
}
