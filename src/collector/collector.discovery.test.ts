import { describe, expect, it } from 'vitest';
import type { SnmpCredentials } from '../kernel/snmp-target.js';
import { rangesOverlap } from '../kernel/snmp-range.js';
import { createSweepMemory } from './collector.discovery.js';

const PUBLIC: SnmpCredentials = { version: '2c', community: 'public' };
const OTHER: SnmpCredentials = { version: '2c', community: 'other' };
const V3: SnmpCredentials = { version: '3', user: 'u', level: 'authPriv', authProtocol: 'sha256', authKey: 'auth-key-1', privProtocol: 'aes', privKey: 'priv-key-1' };

describe('a sweep cycle\'s memory', () => {
  it('leaves an address to the credentials not tried there yet, and none once an agent answered', () => {
    const memory = createSweepMemory();
    expect(memory.untried('10.0.0.1', 161, [PUBLIC, V3])).toEqual([PUBLIC, V3]);
    memory.record('10.0.0.1', 161, [PUBLIC], false);
    expect(memory.untried('10.0.0.1', 161, [PUBLIC, OTHER])).toEqual([OTHER]);
    // the same credentials written in another order of fields are the same
    const reordered = { privKey: 'priv-key-1', version: '3', authKey: 'auth-key-1', user: 'u', level: 'authPriv', authProtocol: 'sha256', privProtocol: 'aes' } as SnmpCredentials;
    memory.record('10.0.0.1', 161, [V3], false);
    expect(memory.untried('10.0.0.1', 161, [reordered, OTHER])).toEqual([OTHER]);
    // another port is another agent
    expect(memory.untried('10.0.0.1', 1161, [PUBLIC])).toEqual([PUBLIC]);
    memory.record('10.0.0.2', 161, [OTHER], true);
    expect(memory.untried('10.0.0.2', 161, [PUBLIC, OTHER, V3])).toEqual([]);
    // a new cycle starts over
    expect(createSweepMemory().untried('10.0.0.2', 161, [OTHER])).toEqual([OTHER]);
  });
});

describe('rangesOverlap', () => {
  it.each([
    ['10.0.0.0/24', '10.0.0.128/25', true],
    ['10.0.0.0/24', '10.0.1.0/24', false],
    ['10.0.0.0/16', '10.0.255.255', true],
    ['10.0.0.0/23', '10.0.1.0/24', true],
    ['10.0.0.5', '10.0.0.5/32', true],
    ['10.0.0.4/30', '10.0.0.8/30', false],
  ] as const)('%s and %s: %s', (a, b, expected) => {
    expect(rangesOverlap(a, b)).toBe(expected);
    expect(rangesOverlap(b, a)).toBe(expected);
  });
});
