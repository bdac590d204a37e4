import { describe, expect, it } from 'vitest';
import { diffEntry } from './audit-log.view.js';

describe('diffEntry', () => {
  it('lists only the changed fields of an update, without the UUID', () => {
    const before = { UUID: 'u', label: 'A', slug: 's', mailingAddress: { city: 'Bern', subdivisionCode: null } };
    const after = { UUID: 'u', label: 'B', slug: 's', mailingAddress: null };
    expect(diffEntry(before, after)).toEqual([
      { field: 'label', before: '"A"', after: '"B"' },
      { field: 'mailingAddress', before: '{"city":"Bern","subdivisionCode":null}', after: 'null' },
    ]);
  });

  it('lists every field after a create and before a delete', () => {
    expect(diffEntry(null, { UUID: 'u', vlanID: 42 })).toEqual([{ field: 'vlanID', after: '42' }]);
    expect(diffEntry({ UUID: 'u', ssid: 'x' }, null)).toEqual([{ field: 'ssid', before: '"x"' }]);
  });

  it('cuts long values', () => {
    const [change] = diffEntry(null, { vlans: Array.from({ length: 50 }, (_, i) => i) });
    expect(change?.after).toHaveLength(80);
    expect(change?.after?.endsWith('…')).toBe(true);
  });
});
