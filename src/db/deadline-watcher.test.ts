import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeadlineWatcher } from './deadline-watcher.js';
import type { DeadlineEntry } from './deadline-watcher.js';

describe('deadline watcher', () => {
  let expired: string[];
  const entry = (name: string, inMs: number): DeadlineEntry => ({
    deadline: performance.now() + inMs,
    onExpired: () => expired.push(name),
  });

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    expired = [];
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('calls each entry once when its deadline passes, earliest first, and never one deleted before', () => {
    const watcher = createDeadlineWatcher();
    watcher.add(entry('a', 100));
    watcher.add(entry('b', 50));
    const c = entry('c', 150);
    watcher.add(c);
    watcher.delete(c);
    vi.advanceTimersByTime(49);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['b']);
    vi.advanceTimersByTime(1_000);
    expect(expired).toEqual(['b', 'a']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-arms for an entry due before the one the timer waits for', () => {
    const watcher = createDeadlineWatcher();
    watcher.add(entry('late', 10_000));
    watcher.add(entry('early', 10));
    vi.advanceTimersByTime(10);
    expect(expired).toEqual(['early']);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('never calls back from add, even for a deadline already past', () => {
    const watcher = createDeadlineWatcher();
    watcher.add(entry('past', -10));
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['past']);
  });

  it('runs no timer while nothing is registered', () => {
    const watcher = createDeadlineWatcher();
    const a = entry('a', 100);
    const b = entry('b', 200);
    watcher.add(a);
    watcher.add(b);
    watcher.delete(a);
    expect(vi.getTimerCount()).toBe(1);
    watcher.delete(b);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(expired).toEqual([]);
  });

  it('lets a callback register a new entry, which is then watched', () => {
    const watcher = createDeadlineWatcher();
    watcher.add({ deadline: performance.now() + 10, onExpired: () => watcher.add(entry('again', 10)) });
    vi.advanceTimersByTime(10);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(10);
    expect(expired).toEqual(['again']);
  });

  it('registers an entry once however often it is added, and ignores deleting one it does not hold', () => {
    const watcher = createDeadlineWatcher();
    const a = entry('a', 10);
    const b = entry('b', 20);
    watcher.delete(a);
    watcher.add(a);
    watcher.add(a);
    watcher.add(b);
    watcher.delete(b);
    watcher.delete(b);
    vi.advanceTimersByTime(100);
    expect(expired).toEqual(['a']);
    // expired entries are unlinked: they can be registered again
    watcher.add(a);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['a', 'a']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps the entries between the ones it removes', () => {
    const watcher = createDeadlineWatcher();
    const entries = ['a', 'b', 'c', 'd', 'e'].map((name, i) => entry(name, 10 * (i + 1)));
    for (const e of entries) watcher.add(e);
    watcher.delete(entries[0]!);
    watcher.delete(entries[2]!);
    watcher.delete(entries[4]!);
    vi.advanceTimersByTime(100);
    expect(expired).toEqual(['b', 'd']);
  });
});
