import { describe, expect, it } from 'vitest';
import { ipOrderKey } from './dialect.js';

describe('ipOrderKey (SQLite’s ip_order_key)', () => {
  it('writes IPv4 as 8 and IPv6 as 32 hex digits, :: expanded and an IPv4 tail as two groups', () => {
    expect(ipOrderKey('10.0.10.5')).toBe('40a000a05');
    expect(ipOrderKey('2001:DB8::5')).toBe('620010db8000000000000000000000005');
    expect(ipOrderKey('::')).toBe(`6${'0'.repeat(32)}`);
    expect(ipOrderKey('fe80::1:2')).toBe('6fe80000000000000000000000001' + '0002');
    expect(ipOrderKey('::ffff:10.0.0.1')).toBe(`6${'0'.repeat(20)}ffff0a000001`);
    expect(ipOrderKey('not an address')).toBeNull();
    expect(ipOrderKey(null)).toBeNull();
  });

  it('orders addresses as numbers, IPv4 before IPv6, as PostgreSQL orders inet', () => {
    const key = (ip: string) => ipOrderKey(ip) as string;
    // byte order, as SQLite compares text
    const sorted = ['2001:db8::10', '10.0.0.10', '::1', '9.255.255.255', '10.0.0.9', '2001:db8::9'].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    expect(sorted).toEqual(['9.255.255.255', '10.0.0.9', '10.0.0.10', '::1', '2001:db8::9', '2001:db8::10']);
  });
});
