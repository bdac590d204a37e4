import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readMigrationFolder } from '../src/db/migrate.js';

/**
 * A migration is a file of src/db/migrations/ and nothing else: the migrator
 * reads the folder (test/cli.test.ts checks that every file of the real
 * folder is applied once, in name order). These are the folder's rules.
 */
describe('the migrations folder', () => {
  const folders: string[] = [];
  afterEach(() => {
    for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
  });

  /** A folder of the given files, each a module whose up() records its name unless its text is given. */
  function folderOf(files: Record<string, string | null>): URL {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'netgraph-migrations-'));
    folders.push(folder);
    for (const [file, text] of Object.entries(files)) {
      fs.writeFileSync(path.join(folder, file), text ?? `export async function up() { globalThis.ran = [...(globalThis.ran ?? []), '${file}']; }\n`);
    }
    return pathToFileURL(`${folder}/`);
  }

  it('holds every module named NNNN-what-it-does, by name, and skips what the build puts beside them', async () => {
    const folder = folderOf({
      '0002-second-step.js': null,
      '0001-initial.js': null,
      '0001-initial.d.ts': 'export declare function up(): Promise<void>;\n',
      '0001-initial.js.map': '{}',
      '0010-after-a-gap.js': null,
    });
    const migrations = await readMigrationFolder(folder);
    expect(Object.keys(migrations)).toEqual(['0001-initial', '0002-second-step', '0010-after-a-gap']);
    await migrations['0002-second-step']!.up(undefined as never, undefined as never);
    expect((globalThis as { ran?: string[] }).ran).toEqual(['0002-second-step.js']);
  });

  it('refuses a file that is not named as a migration, two migrations of one number, and a module without up()', async () => {
    await expect(readMigrationFolder(folderOf({ '0001-initial.js': null, 'add-column.js': null }))).rejects.toThrow(
      'add-column.js in the migrations folder is not named NNNN-what-it-does.ts',
    );
    await expect(readMigrationFolder(folderOf({ '0038-vlan-notes.js': null, '0038-device-tags.js': null }))).rejects.toThrow(
      'migrations 0038-device-tags and 0038-vlan-notes share the number 0038: give the newer one the next free number',
    );
    await expect(readMigrationFolder(folderOf({ '0001-initial.js': 'export const down = 1;\n' }))).rejects.toThrow(
      'migration 0001-initial.js exports no up(db, dialect) function',
    );
  });
});
