import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

describe("the dashboard's typed documents", () => {
  it('are typed against the committed schema.graphql: src/web/graphql-env.d.ts is what gql.tada generates from it (run `npm run schema`)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-tada-'));
    try {
      const output = path.join(dir, 'graphql-env.d.ts');
      // the documented command, with the schema and settings of tsconfig.json's gql.tada plugin entry, written elsewhere
      await promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules/gql.tada/bin/cli.js'), 'generate', 'output', '--output', output], { cwd: ROOT });
      expect(fs.readFileSync(path.join(ROOT, 'src/web/graphql-env.d.ts'), 'utf8')).toBe(fs.readFileSync(output, 'utf8'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
