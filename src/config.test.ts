import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

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
