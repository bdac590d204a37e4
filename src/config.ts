import path from 'node:path';
import { DEFAULT_READ_BATCH_BUDGET_MS, DEFAULT_READ_REPLICA_MAX_LAG_MS } from './db/store-options.js';
import type { ReadReplicaOptions } from './db/store-options.js';
import { RETENTION_DEFAULTS } from './kernel/telemetry.js';
import { DEFAULT_OFFLINE_AFTER_SECONDS } from './kernel/online.js';
import { RETRY_SCHEDULE_MS } from './features/webhook/webhook-delivery.service.js';
import type { SmtpSettings } from './features/webhook/webhook.channels.js';
import { DEFAULT_REQUEST_LOG_SETTINGS } from './features/request-log/request-log.service.js';
import type { RequestLogSettings } from './features/request-log/request-log.service.js';

/** Where the data lives: an embedded SQLite file or a PostgreSQL server. */
export type DatabaseTarget =
  | { readonly dialect: 'sqlite'; readonly file: string }
  | { readonly dialect: 'postgres'; readonly url: string };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The validated, frozen configuration of one netgraph process. */
export interface Config {
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseTarget;
  /** The DATABASE_URL as given, for messages; never holds a password in logs (see describeDatabase). */
  readonly databaseUrl: string;
  readonly databasePoolSize: number;
  /** PostgreSQL: how long, by the recent average, the reads coalesced into one statement may take together; 0 turns coalescing off. */
  readonly readBatchBudgetMs: number;
  /** PostgreSQL: the streaming replica the API's queries read from (READ_DATABASE_URL), and how far behind it may be. */
  readonly readReplica: ReadReplicaOptions | null;
  readonly logLevel: LogLevel;
  /** Load the demo company and print a key when the store is empty. */
  readonly demoData: boolean;
  /** With demoData on: the demo company's devices report from inside the server (docs/simulator.md). */
  readonly demoSimulator: boolean;
  readonly requestTimeoutMs: number;
  readonly shutdownTimeoutMs: number;
  /**
   * On SIGTERM, how long the server keeps accepting requests (with /readyz
   * answering 503) before it closes its port, so a load balancer's health
   * checks take it out of rotation first. Part of shutdownTimeoutMs.
   */
  readonly drainDelayMs: number;
  /** When set, /metrics is served on this port (on metricsHost) and not on the API port. */
  readonly metricsPort: number | null;
  readonly metricsHost: string;
  /** How long a dashboard session lasts from sign-in. */
  readonly sessionTtlMinutes: number;
  /** Mark the dashboard's cookies Secure: set when users reach netgraph over HTTPS. */
  readonly cookieSecure: boolean;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy), for the per-address sign-in lockout and logs. */
  readonly trustProxy: boolean;
  /** Per-key request and complexity limits, and where their state lives. */
  readonly limits: LimitsConfig;
  /** Static limits on a GraphQL document, checked before it is planned. */
  readonly documentLimits: DocumentLimitsConfig;
  /** Device reports: when a silent device is offline, the report rate limit, how long telemetry is kept. */
  readonly ingest: IngestConfig;
  /** Webhook deliveries (docs/webhooks.md). */
  readonly webhooks: WebhookConfig;
  /** The per-key request log (docs/operations.md, "Request log"): API_REQUEST_LOG, API_REQUEST_LOG_DAYS. */
  readonly apiRequestLog: RequestLogSettings;
}

/** Webhook deliveries (docs/webhooks.md). */
export interface WebhookConfig {
  /** Deliver to loopback, private and link-local addresses too (tests, a receiver on the same network). */
  readonly allowPrivateTargets: boolean;
  /** 32 bytes as 64 hex digits or base64 that seal secrets at rest; null: a key generated once and kept in the database. */
  readonly encryptionKey: string | null;
  /** How long one attempt waits for an answer. */
  readonly timeoutSeconds: number;
  /** The wait before each retry, in ms (WEBHOOK_RETRY_SCHEDULE): one attempt more than it has waits, then the message failed. */
  readonly retryScheduleMs: readonly number[];
  /** The SMTP server alert receivers' EMAIL targets are sent through (SMTP_URL, SMTP_FROM; docs/alerts.md); null: none. */
  readonly smtp: SmtpSettings | null;
}

/** Device reports and their retention (docs/reports.md). */
export interface IngestConfig {
  /** A device whose last report is older than this is offline. */
  readonly offlineAfterSeconds: number;
  /** Reports one API key may post per minute. */
  readonly rateLimitReports: number;
  /** How long raw samples (and report ids, for dedupe) are kept; older reports are refused. */
  readonly rawRetentionHours: number;
  /** How long the 5-minute rollups are kept. */
  readonly rollupRetentionDays: number;
  /** How long the hourly tier of the tiered rollups is kept. */
  readonly hourlyRetentionDays: number;
  /** How long the daily tier of the tiered rollups is kept. */
  readonly dailyRetentionDays: number;
  /** How long events and client history are kept. */
  readonly eventRetentionDays: number;
}

/** The per-key limits (docs/limits.md). */
export interface LimitsConfig {
  /** Requests a key may make per window. */
  readonly requestsPerWindow: number;
  readonly windowSeconds: number;
  /** The most points one operation may cost. */
  readonly maxComplexity: number;
  /** A key's complexity budget, which refills continuously to full in `budgetRefillSeconds`. */
  readonly complexityBudget: number;
  readonly budgetRefillSeconds: number;
  /** With a Redis URL, processes share the limit state; without, each process keeps its own. */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key the limiter writes. */
  readonly redisKeyPrefix: string;
}

/** Static limits on a GraphQL document (docs/limits.md). */
export interface DocumentLimitsConfig {
  readonly maxTokens: number;
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxDirectives: number;
}

/** Invalid configuration; the message lists every problem at once. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/netgraph.db';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads and validates the environment. The only reader of process.env in the
 * codebase: everything else receives a Config. Throws ConfigError listing
 * every problem found, not just the first.
 */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = [];
  const read = createReader(env, problems);

  const databaseUrl = read.string('DATABASE_URL', DEFAULT_DATABASE_URL);
  const config: Config = {
    port: read.integer('PORT', 4000, 0, 65535),
    host: read.string('HOST', '127.0.0.1'),
    database: parseDatabaseUrl(databaseUrl, problems),
    databaseUrl,
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 1000),
    readBatchBudgetMs: read.integer('READ_BATCH_BUDGET_MS', DEFAULT_READ_BATCH_BUDGET_MS, 0, 1000),
    readReplica: readReplica(read, problems, databaseUrl),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    demoData: read.boolean('DEMO_DATA', true),
    demoSimulator: read.boolean('DEMO_SIMULATOR', true),
    requestTimeoutMs: read.integer('REQUEST_TIMEOUT_MS', 60_000, 100, 3_600_000),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    drainDelayMs: read.integer('DRAIN_DELAY_MS', 0, 0, 600_000),
    metricsPort: read.optionalInteger('METRICS_PORT', 0, 65535),
    metricsHost: read.string('METRICS_HOST', '127.0.0.1'),
    sessionTtlMinutes: read.integer('SESSION_TTL_MINUTES', 720, 5, 43_200),
    cookieSecure: read.boolean('COOKIE_SECURE', false),
    trustProxy: read.boolean('TRUST_PROXY', false),
    limits: readLimits(read, problems),
    documentLimits: {
      maxTokens: read.integer('MAX_QUERY_TOKENS', 5000, 10, 1_000_000),
      maxDepth: read.integer('MAX_QUERY_DEPTH', 12, 2, 1000),
      maxAliases: read.integer('MAX_QUERY_ALIASES', 50, 0, 100_000),
      maxDirectives: read.integer('MAX_QUERY_DIRECTIVES', 50, 0, 100_000),
    },
    ingest: {
      offlineAfterSeconds: read.integer('DEVICE_OFFLINE_AFTER_SECONDS', DEFAULT_OFFLINE_AFTER_SECONDS, 5, 86_400),
      // a collector speaking for 10,000 devices that report every 30 s posts 20,000 reports a minute
      rateLimitReports: read.integer('INGEST_RATE_LIMIT_REPORTS', 30_000, 1, 100_000_000),
      rawRetentionHours: read.integer('TELEMETRY_RAW_RETENTION_HOURS', RETENTION_DEFAULTS.rawRetentionHours, 1, 8_760),
      rollupRetentionDays: read.integer('TELEMETRY_ROLLUP_RETENTION_DAYS', RETENTION_DEFAULTS.rollupRetentionDays, 1, 3_650),
      hourlyRetentionDays: read.integer('TELEMETRY_HOURLY_RETENTION_DAYS', RETENTION_DEFAULTS.hourlyRetentionDays, 1, 3_650),
      dailyRetentionDays: read.integer('TELEMETRY_DAILY_RETENTION_DAYS', RETENTION_DEFAULTS.dailyRetentionDays, 1, 3_650),
      eventRetentionDays: read.integer('EVENT_RETENTION_DAYS', RETENTION_DEFAULTS.eventRetentionDays, 1, 3_650),
    },
    webhooks: readWebhooks(read, problems),
    apiRequestLog: {
      enabled: read.boolean('API_REQUEST_LOG', DEFAULT_REQUEST_LOG_SETTINGS.enabled),
      retentionDays: read.integer('API_REQUEST_LOG_DAYS', DEFAULT_REQUEST_LOG_SETTINGS.retentionDays, 1, 3_650),
    },
    ...overrides,
  };
  if (config.drainDelayMs > 0 && config.drainDelayMs >= config.shutdownTimeoutMs) {
    problems.push(`DRAIN_DELAY_MS: ${config.drainDelayMs} is not below SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs}); the delay is part of the shutdown, so in-flight requests would have no time left`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** READ_DATABASE_URL and its lag bound: a postgres:// URL, only beside a PostgreSQL DATABASE_URL. */
function readReplica(read: Reader, problems: string[], databaseUrl: string): ReadReplicaOptions | null {
  const url = read.optionalString('READ_DATABASE_URL');
  const maxLagMs = read.integer('READ_REPLICA_MAX_LAG_MS', DEFAULT_READ_REPLICA_MAX_LAG_MS, 0, 86_400_000);
  if (url === null) return null;
  if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url)) {
    problems.push(`READ_DATABASE_URL: "${redactUrl(url)}" is not a postgres:// URL; give the streaming replica's, e.g. postgres://user@replica:5432/netgraph`);
  } else if (!/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('READ_DATABASE_URL: a read replica needs a PostgreSQL DATABASE_URL (the primary it replicates); unset it with SQLite');
  }
  return { url, maxLagMs };
}

function readLimits(read: Reader, problems: string[]): LimitsConfig {
  const limits: LimitsConfig = {
    requestsPerWindow: read.integer('RATE_LIMIT_REQUESTS', 500, 1, 10_000_000),
    windowSeconds: read.integer('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    maxComplexity: read.integer('COMPLEXITY_LIMIT', 750, 1, 10_000_000),
    complexityBudget: read.integer('COMPLEXITY_BUDGET', 750, 1, 10_000_000),
    budgetRefillSeconds: read.integer('COMPLEXITY_REFILL_SECONDS', 15, 1, 86_400),
    redisUrl: read.optionalString('REDIS_URL'),
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX', 'netgraph:limits:'),
  };
  if (limits.complexityBudget < limits.maxComplexity) {
    // an operation between the two could never run, and its Retry-After would be a lie
    problems.push(
      `COMPLEXITY_BUDGET: ${limits.complexityBudget} is below COMPLEXITY_LIMIT (${limits.maxComplexity}); the budget must hold the costliest operation allowed`,
    );
  }
  if (limits.redisUrl !== null && !/^rediss?:\/\/[^\s]+$/.test(limits.redisUrl)) {
    problems.push(`REDIS_URL: "${redactUrl(limits.redisUrl)}" is not a redis:// or rediss:// URL`);
  }
  return limits;
}

function readWebhooks(read: Reader, problems: string[]): WebhookConfig {
  const encryptionKey = read.optionalString('WEBHOOK_ENCRYPTION_KEY');
  if (encryptionKey !== null && !/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=?)$/.test(encryptionKey)) {
    // the value itself is a secret: never repeat it
    problems.push('WEBHOOK_ENCRYPTION_KEY: must be 32 bytes as 64 hex digits or base64, e.g. the output of: openssl rand -base64 32');
  }
  return {
    allowPrivateTargets: read.boolean('WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    encryptionKey,
    timeoutSeconds: read.integer('WEBHOOK_TIMEOUT_SECONDS', 15, 1, 60),
    retryScheduleMs: readRetrySchedule(read.optionalString('WEBHOOK_RETRY_SCHEDULE'), problems),
    smtp: readSmtp(read, problems),
  };
}

/**
 * SMTP_URL (smtp:// or smtps://, user and password in it when the server
 * wants them) and SMTP_FROM (an address, optionally `Name <address>`):
 * both or neither.
 */
function readSmtp(read: Reader, problems: string[]): SmtpSettings | null {
  const url = read.optionalString('SMTP_URL');
  const from = read.optionalString('SMTP_FROM');
  if (url === null) {
    if (from !== null) problems.push('SMTP_FROM: set SMTP_URL too (the SMTP server alert emails go through), or unset SMTP_FROM');
    return null;
  }
  if (!/^smtps?:\/\/[^\s/]+/.test(url) || !URL.canParse(url)) {
    problems.push(`SMTP_URL: "${redactUrl(url)}" is not an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587`);
  }
  if (from === null) problems.push('SMTP_FROM: the From address of alert emails is required with SMTP_URL, e.g. netgraph@example.com or "netgraph <alerts@example.com>"');
  else if (!/^([^<>\r\n]*<[^@\s<>]+@[^@\s<>]+>|[^@\s<>]+@[^@\s<>]+)$/.test(from)) {
    problems.push(`SMTP_FROM: "${from}" is not an email address such as alerts@example.com or "netgraph <alerts@example.com>"`);
  }
  return { url, from: from ?? '' };
}

/** The most retries WEBHOOK_RETRY_SCHEDULE may list, and the longest wait of one. */
const MAX_RETRIES = 20;
const MAX_RETRY_WAIT_MS = 86_400_000;
const DURATION_UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * WEBHOOK_RETRY_SCHEDULE: comma-separated waits such as `5s,5m,30m,2h`
 * (units ms, s, m, h), each above 0 and at most 24h, 1 to 20 of them. Unset:
 * Standard Webhooks' schedule. Every bad item is its own problem, named.
 */
function readRetrySchedule(value: string | null, problems: string[]): readonly number[] {
  if (value === null) return RETRY_SCHEDULE_MS;
  const items = value.split(',').map((item) => item.trim());
  const waits: number[] = [];
  for (const item of items) {
    const match = /^(\d+)(ms|s|m|h)$/.exec(item);
    const ms = match === null ? Number.NaN : Number(match[1]) * (DURATION_UNITS_MS[match[2] as string] as number);
    if (!(ms > 0 && ms <= MAX_RETRY_WAIT_MS)) {
      problems.push(`WEBHOOK_RETRY_SCHEDULE: "${item}" is not a wait from 1ms to 24h such as 5s, 5m or 2h (the list is comma-separated, e.g. 5s,5m,30m,2h)`);
    }
    waits.push(ms);
  }
  if (items.length > MAX_RETRIES) problems.push(`WEBHOOK_RETRY_SCHEDULE: ${items.length} waits, at most ${MAX_RETRIES} are allowed`);
  return Object.freeze(waits);
}

/**
 * Parses `sqlite:<path>` or `postgres://…` / `postgresql://…`. Problems are
 * appended to `problems`; the returned target is only meaningful when none were.
 */
export function parseDatabaseUrl(url: string, problems: string[] = []): DatabaseTarget {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (file === '') problems.push('DATABASE_URL: sqlite: needs a file path, e.g. sqlite:./data/netgraph.db');
    return { dialect: 'sqlite', file: file === ':memory:' ? file : path.resolve(file) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      new URL(url);
    } catch {
      problems.push('DATABASE_URL: not a valid postgres:// URL');
    }
    return { dialect: 'postgres', url };
  }
  problems.push(
    `DATABASE_URL: unsupported value "${redactUrl(url)}"; use sqlite:<path> or postgres://user@host:port/database`,
  );
  return { dialect: 'sqlite', file: '' };
}

/** The database URL with any password replaced, safe for logs and messages. */
export function redactUrl(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*):[^@]*@/, '$1:***@');
}

type Reader = ReturnType<typeof createReader>;

function createReader(env: Env, problems: string[]) {
  const raw = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  return {
    string(name: string, fallback: string): string {
      return raw(name) ?? fallback;
    },
    optionalString(name: string): string | null {
      return raw(name) ?? null;
    },
    integer(name: string, fallback: number, min: number, max: number): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
        problems.push(`${name}: "${value}" is not a whole number from ${min} to ${max}`);
        return fallback;
      }
      return parsed;
    },
    optionalInteger(name: string, min: number, max: number): number | null {
      return raw(name) === undefined ? null : this.integer(name, min, min, max);
    },
    boolean(name: string, fallback: boolean): boolean {
      const value = raw(name)?.toLowerCase();
      if (value === undefined) return fallback;
      if (['1', 'true', 'on', 'yes'].includes(value)) return true;
      if (['0', 'false', 'off', 'no'].includes(value)) return false;
      problems.push(`${name}: "${value}" is not one of on, off, true, false, 1, 0`);
      return fallback;
    },
    oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
      const value = raw(name);
      if (value === undefined) return fallback;
      if ((allowed as readonly string[]).includes(value)) return value as T;
      problems.push(`${name}: "${value}" is not one of ${allowed.join(', ')}`);
      return fallback;
    },
  };
}
