// Writes schema.graphql and docs/schema.md from the schema in src/ (compiled to dist/ by npm run build).
import fs from 'node:fs';
import { createSchema, printSchemaReference } from '../dist/engine/schema.js';
import { renderSchemaReference } from '../dist/engine/reference.js';

const schema = createSchema();
fs.writeFileSync(new URL('../schema.graphql', import.meta.url), printSchemaReference(schema));
fs.writeFileSync(new URL('../docs/schema.md', import.meta.url), renderSchemaReference(schema));
console.log('wrote schema.graphql and docs/schema.md');
