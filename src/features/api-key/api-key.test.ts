import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, isWellFormedKey } from './api-key.token.js';

describe('api key tokens', () => {
  it('hashes a key as the store keeps it: SHA-256 of its UTF-8 bytes, lowercase hex', () => {
    // the stored hashes of every existing key depend on this staying the same
    expect(hashKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashKey('ngk_é')).toBe('ca5ce7da11edd6b665ac8fe7039723ab5b052ee3703cb54f0f3f92009528a6bb');
  });

  it('generates well-formed keys whose hash is the one returned', () => {
    const generated = generateKey();
    expect(isWellFormedKey(generated.key)).toBe(true);
    expect(generated.hash).toBe(hashKey(generated.key));
    expect(generated.key.startsWith(generated.prefix)).toBe(true);
  });
});
