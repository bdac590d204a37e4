import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderReportFields, replaceReportFields } from '../src/ingest/report.docs.js';

describe('docs/reports.md', () => {
  it('holds the field table of the report protocol as the schema renders it (npm run schema writes it)', () => {
    const doc = readFileSync(new URL('../docs/reports.md', import.meta.url), 'utf8');
    expect(doc).toContain(renderReportFields());
    expect(replaceReportFields(doc)).toBe(doc);
  });

  it('renders a row for every field of the protocol, nested ones by their path', () => {
    const table = renderReportFields();
    for (const field of ['reportId', 'interfaces[].counters.rxBytes', 'radios[].BSSID', 'clients[].signal', 'events[].details', 'macTable[].vlanID']) {
      expect(table).toContain(`| \`${field}\` |`);
    }
    expect(table).toContain('| `interfaces[].nativeVLANID` | whole number 1 to 4094, or null |');
    expect(table).toContain('| `radios[].isActive` | boolean, default `true` |');
  });
});
