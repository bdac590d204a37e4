import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES, eventTypeName, eventTypeNameSql } from '../src/features/event/event-types.js';

describe('event type names', () => {
  it('names the known types, and derives a name for the others', () => {
    expect(eventTypeName('DEVICE_BOOT')).toBe('Device booted');
    expect(eventTypeName('TEST_EVENT')).toBe('Test event');
    expect(eventTypeName('X')).toBe('X');
  });

  it('computes in SQL what eventTypeName computes', () => {
    const db = new Database(':memory:');
    for (const type of [...Object.keys(EVENT_TYPE_NAMES), 'TEST_EVENT', 'A_B_C', 'X', 'SPEED_2_5G']) {
      const row = db.prepare(`SELECT ${eventTypeNameSql('t.type')} AS name FROM (SELECT ? AS type) t`).get(type) as { name: string };
      expect(row.name).toBe(eventTypeName(type));
    }
  });
});
