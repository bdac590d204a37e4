// @ts-check
import path from 'node:path';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * import-x/no-cycle, counting `import type` too: it skips type-only imports by
 * design and has no option not to, but a cycle closed by one is still a cycle
 * of the design (issue 27). This rule sees each import of the file it lints
 * as a value import, and the parser below reads the imported files alike.
 */
const noCycleWithTypes = {
  meta: importX.rules['no-cycle'].meta,
  create(context) {
    const visitors = importX.rules['no-cycle'].create(context);
    const asValue = (node) => ({ ...node, importKind: 'value', exportKind: 'value', specifiers: node.specifiers?.map((s) => ({ ...s, importKind: 'value', exportKind: 'value' })) });
    const declaration = /^(Import|Export(Named|All))Declaration$/;
    return Object.fromEntries(Object.entries(visitors).map(([type, visit]) => [type, declaration.test(type) ? (node) => visit(asValue(node)) : visit]));
  },
};

/** Folders and files of src/ by layer, for the import directions below. */
const COMPOSITION = ['./src/app.ts', './src/server.ts', './src/runtime.ts', './src/services.ts', './src/main.ts'];
/** What takes requests or runs as a program of its own: nothing below it knows it. */
const EDGES = ['./src/http', './src/dashboard', './src/cli', './src/tools', './src/collector', ...COMPOSITION];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/node_modules/**', 'coverage/**', 'web/vendor/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.ts', 'bench/*.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // SQL lives in repositories and db/: the query builder and drivers are imported nowhere else
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'kysely', message: 'SQL belongs in a *.repository.ts or in src/db/; call the repository instead.', allowTypeImports: true },
            { name: 'pg', message: 'Drivers are opened in src/db/ only.' },
            { name: 'better-sqlite3', message: 'Drivers are opened in src/db/ only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.repository.ts', 'src/db/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  // A feature calls another feature's service, never its repository (docs/ARCHITECTURE.md): from src/features/<name>/
  // and src/platform/<name>/, a *.repository.js outside the file's own folder is refused, `import type` included. The
  // rule is typescript-eslint's copy of no-restricted-imports, because a second block of the core rule would replace
  // the SQL bans above instead of adding to them. (src/ingest/ is no feature folder and is not held to this.)
  {
    files: ['src/features/**/*.ts', 'src/platform/**/*.ts'],
    ignores: [
      // the request log is a day-partitioned series like ingest's: it shares ingest's partition upkeep (SQL helpers, no service to call)
      'src/features/request-log/**',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./.*\\.repository\\.js$',
              message: "Another folder's repository: call its service instead (add a small exported function to its *.service.ts taking your transaction).",
            },
          ],
        },
      ],
    },
  },
  // netgraph/client ships to browsers and other people's programs: it imports its own folder, the generated
  // schema types and gql.tada, never the server's code or Node.js (tsconfig.client.json checks the types too)
  {
    files: ['src/client/**/*.ts'],
    ignores: ['src/client/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'The client runs in browsers too: use fetch and the web platform, not Node.js.' },
            { regex: '^\\.\\./(?!\\.\\./graphql-env\\.js$)', message: 'The client is self-contained: it imports only src/client/, graphql-env.d.ts and gql.tada.' },
          ],
        },
      ],
    },
  },
  // No import cycles, `import type` included (noCycleWithTypes above)
  {
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX, cycles: { rules: { 'no-cycle': noCycleWithTypes } } },
    settings: {
      // import-x reads the imported .ts files itself (to follow cycles), with the TypeScript parser
      'import-x/extensions': ['.ts', '.js'],
      // imported files are read with every import counted as a value one (eslint-type-imports-parser.cjs)
      'import-x/parsers': { [path.join(import.meta.dirname, 'eslint-type-imports-parser.cjs')]: ['.ts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'cycles/no-cycle': 'error' },
  },
  {
    // tests wire features together through services.ts, so only the code itself is held to the directions
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src/kernel',
              from: ['./src/db', './src/engine', './src/features', './src/ingest', './src/platform', './src/observability', ...EDGES],
              message: 'src/kernel/ holds the shared words: it imports nothing else of netgraph.',
            },
            {
              target: './src/db',
              from: ['./src/engine', './src/observability', ...EDGES],
              message: 'src/db/ knows tables and dialects, never features, the engine or what serves them.',
            },
            // db/tables.ts is the union of the folders' *.tables.ts, which hold table types only (the next zone)
            {
              target: './src/db',
              from: ['./src/features/**', './src/ingest/**', './src/platform/**'],
              except: ['**/*.tables.ts'],
              message: 'src/db/ knows tables and dialects, never features, the engine or what serves them.',
            },
            {
              target: './src/{features,ingest,platform}/**/*.tables.ts',
              from: ['./src/engine', './src/features', './src/ingest', './src/platform', './src/observability', ...EDGES],
              message: 'A *.tables.ts holds table types for db/tables.ts: it imports kysely and src/db/ only.',
            },
            {
              target: ['./src/features', './src/platform'],
              from: EDGES,
              message: 'Features and platform services do not know who calls them: move what both need into src/kernel/ (or pass it in).',
            },
            {
              target: './src/engine',
              from: EDGES.filter((edge) => !edge.endsWith('services.ts')),
              message: 'The engine runs documents for any caller: it does not know the routes, the dashboard or the tools.',
            },
            {
              target: './src/ingest',
              from: ['./src/engine', ...EDGES],
              message: 'Ingest turns reports into rows: it does not know the read side or what serves it.',
            },
            {
              // a feature's table types are the store's (db/tables.ts joins them), not the read side
              target: './src/ingest',
              from: ['./src/features/**'],
              except: ['**/*.tables.ts'],
              message: 'Ingest turns reports into rows: it does not know the read side or what serves it.',
            },
            {
              target: './src/http/*.ts',
              from: ['./src/engine', './src/ingest', './src/http/routes', './src/dashboard', './src/cli', './src/tools', './src/collector', ...COMPOSITION],
              message: 'src/http/ holds the steps every route shares (auth, limits, body, request log, errors): it knows no route.',
            },
            {
              target: './src/http/routes',
              from: ['./src/dashboard', './src/cli', './src/tools', './src/collector', ...COMPOSITION],
              message: 'A route knows its steps and what it calls, never the dashboard or the tools.',
            },
            {
              target: './src/collector',
              from: ['./src/db', './src/engine', './src/features', './src/platform', './src/http', './src/dashboard', './src/cli', ...COMPOSITION],
              message: 'The collector is a sender like any device: it speaks the report protocol (src/ingest/report.protocol.ts) over HTTP, nothing else.',
            },
          ],
        },
      ],
    },
  },
);
