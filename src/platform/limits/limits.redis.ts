import { Redis } from 'ioredis';
import type { Result } from 'ioredis';
import { BUDGET_ADMITS_AT } from './limits.arithmetic.js';
import type { LimitPolicies } from './limits.arithmetic.js';
import type { LimitStore } from './limits.store.js';

/*
 * The scripts run limits.arithmetic.ts in Redis, atomically per key, at the
 * time the server passes in (so every store and test agrees on "now"). Levels
 * travel as "%.17g" text: Redis would truncate a Lua number to an integer.
 */
const BUCKET_LEVEL_LUA = `
local function level_at(key, now, capacity, refill_ms)
  local saved = redis.call('HMGET', key, 'l', 't')
  if not saved[1] then return capacity end
  local elapsed = math.max(0, now - tonumber(saved[2]))
  return math.min(capacity, tonumber(saved[1]) + elapsed * capacity / refill_ms)
end
-- kept until the budget is full again (a level below zero takes longer than one refill), then it is the same as no key
local function save_level(key, level, now, capacity, refill_ms)
  redis.call('HSET', key, 'l', string.format('%.17g', level), 't', string.format('%.17g', now))
  redis.call('PEXPIRE', key, math.ceil((capacity - level) * refill_ms / capacity) + 1000)
end
`;

/** KEYS: window, bucket. ARGV: now, windowMs, capacity, refillMs, weight. Returns {start, count, level}. */
const ADMIT_LUA = `${BUCKET_LEVEL_LUA}
local now = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2])
local weight = tonumber(ARGV[5])
local start = tonumber(redis.call('HGET', KEYS[1], 's'))
local count
if start == nil or now >= start + window_ms then
  start = now
  count = weight
  redis.call('HSET', KEYS[1], 's', string.format('%.17g', start), 'c', weight)
  redis.call('PEXPIRE', KEYS[1], window_ms)
else
  count = redis.call('HINCRBY', KEYS[1], 'c', weight)
end
local level = level_at(KEYS[2], now, tonumber(ARGV[3]), tonumber(ARGV[4]))
return { string.format('%.17g', start), count, string.format('%.17g', level) }
`;

/** KEYS: bucket. ARGV: now, cost, capacity, refillMs. Returns {allowed 1|0, level after}. */
const CHARGE_LUA = `${BUCKET_LEVEL_LUA}
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local refill_ms = tonumber(ARGV[4])
local level = level_at(KEYS[1], now, capacity, refill_ms)
if level < math.min(cost, ${BUDGET_ADMITS_AT}) then return { 0, string.format('%.17g', level) } end
level = level - cost
save_level(KEYS[1], level, now, capacity, refill_ms)
return { 1, string.format('%.17g', level) }
`;

/** KEYS: bucket. ARGV: now, points, capacity, refillMs. Returns the level after. */
const REFUND_LUA = `${BUCKET_LEVEL_LUA}
local now = tonumber(ARGV[1])
local capacity = tonumber(ARGV[3])
local refill_ms = tonumber(ARGV[4])
local level = math.min(capacity, level_at(KEYS[1], now, capacity, refill_ms) + tonumber(ARGV[2]))
save_level(KEYS[1], level, now, capacity, refill_ms)
return string.format('%.17g', level)
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    netgraphAdmit(
      windowKey: string,
      bucketKey: string,
      now: number,
      windowMs: number,
      capacity: number,
      refillMs: number,
      weight: number,
    ): Result<[string, number, string], Context>;
    netgraphCharge(bucketKey: string, now: number, cost: number, capacity: number, refillMs: number): Result<[number, string], Context>;
    netgraphRefund(bucketKey: string, now: number, points: number, capacity: number, refillMs: number): Result<string, Context>;
  }
}

/** How long a limit check may wait for Redis before the request falls back to this process's limits. */
const COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 2_000;

/** A Redis-backed store, and whether it is connected right now. */
export interface RedisLimitStore extends LimitStore {
  /** Resolves once connected, or after `timeoutMs`; true when connected. */
  connected(timeoutMs: number): Promise<boolean>;
}

/**
 * Limit state in Redis, shared by every process using the same URL and
 * prefix. Commands fail at once while the connection is down (no offline
 * queue), so a request never waits for Redis to come back; the client keeps
 * reconnecting in the background.
 */
export function createRedisLimitStore(url: string, prefix: string, policies: LimitPolicies): RedisLimitStore {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    scripts: {
      netgraphAdmit: { numberOfKeys: 2, lua: ADMIT_LUA },
      netgraphCharge: { numberOfKeys: 1, lua: CHARGE_LUA },
      netgraphRefund: { numberOfKeys: 1, lua: REFUND_LUA },
    },
  });
  // failures surface as rejected commands, which the failover store reports once per outage
  redis.on('error', () => undefined);
  const windowKey = (key: string) => `${prefix}req:${key}`;
  const bucketKey = (key: string) => `${prefix}budget:${key}`;
  const { requests, budget } = policies;

  return {
    async admit(key, now, weight = 1) {
      const [start, count, level] = await redis.netgraphAdmit(
        windowKey(key),
        bucketKey(key),
        now,
        requests.windowMs,
        budget.capacity,
        budget.refillMs,
        weight,
      );
      return {
        requests: { count: Number(count), resetAt: Number(start) + requests.windowMs },
        budget: { level: Number(level), at: now },
      };
    },
    async charge(key, cost, now) {
      const [allowed, level] = await redis.netgraphCharge(bucketKey(key), now, cost, budget.capacity, budget.refillMs);
      return { allowed: Number(allowed) === 1, budget: { level: Number(level), at: now } };
    },
    async refund(key, points, now) {
      const level = await redis.netgraphRefund(bucketKey(key), now, points, budget.capacity, budget.refillMs);
      return { level: Number(level), at: now };
    },
    async connected(timeoutMs) {
      if (redis.status === 'ready') return true;
      return new Promise<boolean>((resolve) => {
        const done = (value: boolean) => {
          clearTimeout(timer);
          redis.off('ready', onReady);
          resolve(value);
        };
        const onReady = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        redis.once('ready', onReady);
      });
    },
    async close() {
      redis.disconnect();
    },
  };
}
