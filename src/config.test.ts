import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDatabaseUrl, redactUrl } from './config.js';

describe('loadConfig', () => {
  it('has working defaults: port 4000 on 127.0.0.1, SQLite at ./data/netgraph.db', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 4000, host: '127.0.0.1', logLevel: 'info', demoData: true, demoSimulator: true, requestTimeoutMs: 60_000, metricsPort: null });
    expect(config.database).toEqual({ dialect: 'sqlite', file: expect.stringMatching(/\/data\/netgraph\.db$/) });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://app@db:5432/netgraph?sslmode=require',
      DATABASE_POOL_SIZE: '25',
      LOG_LEVEL: 'debug',
      DEMO_DATA: 'off',
      DEMO_SIMULATOR: 'off',
      REQUEST_TIMEOUT_MS: '5000',
      SHUTDOWN_TIMEOUT_MS: '2000',
      DRAIN_DELAY_MS: '1500',
      METRICS_PORT: '9100',
      METRICS_HOST: '10.0.0.5',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      database: { dialect: 'postgres', url: 'postgresql://app@db:5432/netgraph?sslmode=require' },
      databasePoolSize: 25,
      logLevel: 'debug',
      demoData: false,
      demoSimulator: false,
      requestTimeoutMs: 5000,
      shutdownTimeoutMs: 2000,
      drainDelayMs: 1500,
      metricsPort: 9100,
      metricsHost: '10.0.0.5',
    });
  });

  it('reports every problem at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: '99999', DATABASE_URL: 'redis://x', DATABASE_POOL_SIZE: '0', LOG_LEVEL: 'chatty', DEMO_DATA: 'sometimes', DEMO_SIMULATOR: 'later', METRICS_PORT: '-1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(7);
    expect(problems).toContain('DEMO_SIMULATOR: "later" is not one of on, off, true, false, 1, 0');
    expect(problems.join('\n')).toMatch(/PORT: "99999" is not a whole number from 0 to 65535/);
    expect((error as Error).message.split('\n')[0]).toBe('Invalid configuration:');
  });

  it('refuses a drain delay that leaves in-flight requests no time before the shutdown timeout', () => {
    expect(loadConfig({}).drainDelayMs).toBe(0);
    expect(() => loadConfig({ DRAIN_DELAY_MS: '10000' })).toThrow(/DRAIN_DELAY_MS: 10000 is not below SHUTDOWN_TIMEOUT_MS \(10000\)/);
  });

  it('reads WEBHOOK_RETRY_SCHEDULE as waits in ms; unset, it is Standard Webhooks\' schedule', () => {
    expect(loadConfig({}).webhooks.retryScheduleMs).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5s,5m,30m,2h,5h,10h,14h,20h,24h' }).webhooks.retryScheduleMs).toEqual(loadConfig({}).webhooks.retryScheduleMs);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s,1s' }).webhooks.retryScheduleMs).toEqual([1_000, 1_000]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: ' 250ms, 2m ,1h,24h ' }).webhooks.retryScheduleMs).toEqual([250, 120_000, 3_600_000, 86_400_000]);
    expect(Object.isFrozen(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s' }).webhooks.retryScheduleMs)).toBe(true);
  });

  it('reads SMTP_URL and SMTP_FROM together; refuses one without the other or a bad value, never showing the password', () => {
    expect(loadConfig({}).webhooks.smtp).toBeNull();
    expect(loadConfig({ SMTP_URL: 'smtp://alerts:pw@mail.example.com:587', SMTP_FROM: 'netgraph <alerts@example.com>' }).webhooks.smtp).toEqual({
      url: 'smtp://alerts:pw@mail.example.com:587',
      from: 'netgraph <alerts@example.com>',
    });
    expect(loadConfig({ SMTP_URL: 'smtps://mail.example.com', SMTP_FROM: 'alerts@example.com' }).webhooks.smtp?.from).toBe('alerts@example.com');
    expect(() => loadConfig({ SMTP_FROM: 'alerts@example.com' })).toThrow(/SMTP_FROM: set SMTP_URL too/);
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example.com' })).toThrow(/SMTP_FROM: the From address of alert emails is required/);
    expect(() => loadConfig({ SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: 'nobody' })).toThrow(/SMTP_FROM: "nobody" is not an email address/);
    let error: unknown;
    try {
      loadConfig({ SMTP_URL: 'http://alerts:hunter2@mail.example.com', SMTP_FROM: 'alerts@example.com' });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual(['SMTP_URL: "http://alerts:***@mail.example.com" is not an smtp:// or smtps:// URL such as smtp://user:password@mail.example.com:587']);
  });

  it('names every bad item of WEBHOOK_RETRY_SCHEDULE, with the other problems', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'x', WEBHOOK_RETRY_SCHEDULE: '5s,0s,25h,soon,5,,1.5s,-1m' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems[0]).toMatch(/^PORT: /);
    const bad = (item: string) => `WEBHOOK_RETRY_SCHEDULE: "${item}" is not a wait from 1ms to 24h such as 5s, 5m or 2h (the list is comma-separated, e.g. 5s,5m,30m,2h)`;
    expect(problems.slice(1)).toEqual(['0s', '25h', 'soon', '5', '', '1.5s', '-1m'].map(bad));
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 21 }, () => '1s').join(',') })).toThrow(/WEBHOOK_RETRY_SCHEDULE: 21 waits, at most 20 are allowed/);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 20 }, () => '1s').join(',') }).webhooks.retryScheduleMs).toHaveLength(20);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', LOG_LEVEL: '  ' }).port).toBe(4000);
  });
});

describe('database URLs', () => {
  it('accepts sqlite:<path>, sqlite::memory: and postgres(ql)://', () => {
    expect(parseDatabaseUrl('sqlite:/var/lib/netgraph.db')).toEqual({ dialect: 'sqlite', file: '/var/lib/netgraph.db' });
    expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ dialect: 'sqlite', file: ':memory:' });
    expect(parseDatabaseUrl('postgres://u@h/d').dialect).toBe('postgres');
    expect(parseDatabaseUrl('postgresql://u@h/d').dialect).toBe('postgres');
  });

  it('takes a read replica beside a PostgreSQL primary, with a lag bound of 5 s unless told', () => {
    expect(loadConfig({}).readReplica).toBeNull();
    const primary = 'postgres://app@primary/netgraph';
    expect(loadConfig({ DATABASE_URL: primary, READ_DATABASE_URL: 'postgres://app@replica/netgraph' }).readReplica).toEqual({
      url: 'postgres://app@replica/netgraph',
      maxLagMs: 5_000,
    });
    expect(loadConfig({ DATABASE_URL: primary, READ_DATABASE_URL: 'postgresql://app@replica/netgraph', READ_REPLICA_MAX_LAG_MS: '250' }).readReplica?.maxLagMs).toBe(250);
  });

  it('refuses a read replica that is not a postgres:// URL, or beside SQLite, without echoing a password', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems;
      }
    };
    const notPostgres = problems({ DATABASE_URL: 'postgres://app@primary/x', READ_DATABASE_URL: 'mysql://app:hunter2@replica/x', READ_REPLICA_MAX_LAG_MS: 'soon' });
    expect(notPostgres).toEqual([
      'READ_REPLICA_MAX_LAG_MS: "soon" is not a whole number from 0 to 86400000',
      'READ_DATABASE_URL: "mysql://app:***@replica/x" is not a postgres:// URL; give the streaming replica\'s, e.g. postgres://user@replica:5432/netgraph',
    ]);
    expect(problems({ DATABASE_URL: 'sqlite:./x.db', READ_DATABASE_URL: 'postgres://app@replica/x' })).toEqual([
      'READ_DATABASE_URL: a read replica needs a PostgreSQL DATABASE_URL (the primary it replicates); unset it with SQLite',
    ]);
  });

  it('refuses anything else, without echoing a password', () => {
    const problems: string[] = [];
    parseDatabaseUrl('mysql://root:hunter2@db/x', problems);
    expect(problems).toHaveLength(1);
    expect(problems[0]).not.toContain('hunter2');
    expect(redactUrl('postgres://app:s3cret@db:5432/x')).toBe('postgres://app:***@db:5432/x');
    const empty: string[] = [];
    parseDatabaseUrl('sqlite:', empty);
    expect(empty[0]).toMatch(/needs a file path/);
  });
});

describe('limit configuration', () => {
  it('defaults to the documented limits, with the state in memory', () => {
    const config = loadConfig({});
    expect(config.limits).toEqual({
      requestsPerWindow: 500,
      windowSeconds: 60,
      maxComplexity: 750,
      complexityBudget: 750,
      budgetRefillSeconds: 15,
      redisUrl: null,
      redisKeyPrefix: 'netgraph:limits:',
    });
    expect(config.documentLimits).toEqual({ maxTokens: 5000, maxDepth: 12, maxAliases: 50, maxDirectives: 50 });
    expect(config.requestTimeoutMs).toBe(60_000);
  });

  it('reads every limit from its variable', () => {
    const config = loadConfig({
      RATE_LIMIT_REQUESTS: '10',
      RATE_LIMIT_WINDOW_SECONDS: '5',
      COMPLEXITY_LIMIT: '100',
      COMPLEXITY_BUDGET: '200',
      COMPLEXITY_REFILL_SECONDS: '3',
      REDIS_URL: 'redis://:secret@127.0.0.1:6380/2',
      REDIS_KEY_PREFIX: 'app1:',
      MAX_QUERY_TOKENS: '800',
      MAX_QUERY_DEPTH: '6',
      MAX_QUERY_ALIASES: '0',
      MAX_QUERY_DIRECTIVES: '5',
    });
    expect(config.limits).toMatchObject({ requestsPerWindow: 10, windowSeconds: 5, maxComplexity: 100, complexityBudget: 200, budgetRefillSeconds: 3, redisUrl: 'redis://:secret@127.0.0.1:6380/2', redisKeyPrefix: 'app1:' });
    expect(config.documentLimits).toEqual({ maxTokens: 800, maxDepth: 6, maxAliases: 0, maxDirectives: 5 });
  });

  it('reports every problem at once, never showing a Redis password', () => {
    let error: unknown;
    try {
      loadConfig({ RATE_LIMIT_REQUESTS: '0', COMPLEXITY_LIMIT: '900', MAX_QUERY_DEPTH: 'deep', REDIS_URL: 'http://:secret@host' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      'RATE_LIMIT_REQUESTS: "0" is not a whole number from 1 to 10000000',
      'COMPLEXITY_BUDGET: 750 is below COMPLEXITY_LIMIT (900); the budget must hold the costliest operation allowed',
      'REDIS_URL: "http://:***@host" is not a redis:// or rediss:// URL',
      'MAX_QUERY_DEPTH: "deep" is not a whole number from 2 to 1000',
    ]);
  });
});
