// Writes the field table of docs/reports.md from the report protocol in src/ingest/report.protocol.ts
// (compiled to dist/ by npm run build), between its markers.
import fs from 'node:fs';
import { replaceReportFields } from '../dist/ingest/report.docs.js';

const file = new URL('../docs/reports.md', import.meta.url);
fs.writeFileSync(file, replaceReportFields(fs.readFileSync(file, 'utf8')));
console.log('wrote the field table of docs/reports.md');
