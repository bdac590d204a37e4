import { describe, expect, it } from 'vitest';
import { safeNext } from './context.js';
import { exactTime, humanizeEnum, relativeTime, shortDate } from './format.js';

describe('formatting', () => {
  const now = new Date('2026-11-22T12:00:00.000Z');

  it('writes times relative to now in the largest whole unit', () => {
    expect(relativeTime('2026-11-22T11:59:30.000Z', now)).toBe('just now');
    expect(relativeTime('2026-11-22T11:59:00.000Z', now)).toBe('1 minute ago');
    expect(relativeTime('2026-11-22T09:30:00.000Z', now)).toBe('2 hours ago');
    expect(relativeTime('2026-11-19T12:00:00.000Z', now)).toBe('3 days ago');
    expect(relativeTime('2026-09-01T12:00:00.000Z', now)).toBe('2 months ago');
    expect(relativeTime('2026-11-22T14:00:00.000Z', now)).toBe('in 2 hours');
  });

  it('writes exact times and dates in UTC, and enum values as words', () => {
    expect(exactTime('2026-11-21T18:04:05.123+01:00')).toBe('2026-11-21 17:04:05 UTC');
    expect(shortDate('2026-11-21T23:30:00Z')).toBe('21 Nov 2026');
    expect(humanizeEnum('POWER_DISTRIBUTION_UNIT')).toBe('Power distribution unit');
  });
});

describe('safeNext', () => {
  it('keeps local paths and replaces anything that could leave the site', () => {
    expect(safeNext('/networks/abc?x=1')).toBe('/networks/abc?x=1');
    for (const value of ['//evil.example', '/\\evil.example', 'https://evil.example', '/sign-in', '/sign-out', '', undefined, 42, '/a b']) {
      expect(safeNext(value)).toBe('/networks');
    }
  });
});
