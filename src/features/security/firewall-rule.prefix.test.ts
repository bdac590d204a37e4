import { describe, expect, it } from 'vitest';
import { toCanonicalPrefix } from './firewall-rule.prefix.js';

describe('toCanonicalPrefix', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['192.168.1.7/32', '192.168.1.7/32'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['2001:db8:0:0:0:0:0:1/128', '2001:db8::1/128'],
    ['::/0', '::/0'],
    ['fe80::/10', 'fe80::/10'],
    ['::ffff:10.0.0.0/104', '::ffff:a00:0/104'],
  ])('%s is %s', (value, canonical) => {
    expect(toCanonicalPrefix(value)).toBe(canonical);
  });

  it.each(['10.0.0.1/8', '10.0.0.0/33', '10.0.0.0', '10.0.0.0/', '01.2.3.4/32', '2001:db8::1/64', '::/129', 'any', '10.0.0.0/8/8', 'fe80::1%eth0/128'])(
    'refuses %s',
    (value) => {
      expect(toCanonicalPrefix(value)).toBeUndefined();
    },
  );
});
