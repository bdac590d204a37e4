import { describe, expect, it } from 'vitest';
import { isIpAddress, isMacAddress, isUuid, toCanonicalDateTime } from './formats.js';

describe('isUuid', () => {
  it('takes a UUID in canonical lowercase form only', () => {
    expect(isUuid('3f0e6a5c-1a2b-4c3d-8e9f-0a1b2c3d4e5f')).toBe(true);
    expect(isUuid('3F0E6A5C-1A2B-4C3D-8E9F-0A1B2C3D4E5F')).toBe(false);
    expect(isUuid('3f0e6a5c1a2b4c3d8e9f0a1b2c3d4e5f')).toBe(false);
    expect(isUuid('3f0e6a5c-1a2b-4c3d-8e9f-0a1b2c3d4e5f ')).toBe(false);
  });
});

describe('isMacAddress', () => {
  it('takes six lowercase colon-separated octets only', () => {
    expect(isMacAddress('0c:8d:db:12:34:56')).toBe(true);
    expect(isMacAddress('0C:8D:DB:12:34:56')).toBe(false);
    expect(isMacAddress('0c-8d-db-12-34-56')).toBe(false);
    expect(isMacAddress('0c:8d:db:12:34')).toBe(false);
  });
});

describe('isIpAddress', () => {
  it('takes IPv4 and IPv6 literals only', () => {
    expect(isIpAddress('10.0.10.23')).toBe(true);
    expect(isIpAddress('2001:db8::1')).toBe(true);
    expect(isIpAddress('10.0.0.256')).toBe(false);
    expect(isIpAddress('example.com')).toBe(false);
  });
});

describe('toCanonicalDateTime', () => {
  it('turns an RFC 3339 timestamp into UTC with milliseconds', () => {
    expect(toCanonicalDateTime('2026-11-21T17:03:00Z')).toBe('2026-11-21T17:03:00.000Z');
    expect(toCanonicalDateTime('2026-11-21T18:03:00.5+01:00')).toBe('2026-11-21T17:03:00.500Z');
  });

  it('refuses what is not an RFC 3339 timestamp, or not a real date', () => {
    expect(toCanonicalDateTime('2026-11-21')).toBeUndefined();
    expect(toCanonicalDateTime('2026-11-21 17:03:00Z')).toBeUndefined();
    expect(toCanonicalDateTime('2026-13-01T00:00:00Z')).toBeUndefined();
  });
});
