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
const ADAPTERS = ['./src/graphql', './src/web', './src/cli', './src/http'];
const COMPOSITION = ['./src/app.ts', './src/server.ts', './src/runtime.ts', './src/services.ts', './src/main.ts'];

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
  // Layers point one way: adapters (cli, web, graphql, http) -> features (modules) -> db. No cycles.
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
              target: './src/modules',
              from: [...ADAPTERS, ...COMPOSITION],
              message: 'Features do not know their adapters: move what both need into src/modules/ (or pass it in).',
            },
            {
              target: './src/db',
              from: ['./src/modules', ...ADAPTERS, ...COMPOSITION],
              message: 'src/db/ is the bottom layer: it knows tables and dialects, never features or adapters.',
            },
            {
              target: './src/graphql',
              from: ['./src/web', './src/cli'],
              message: 'GraphQL does not know the other adapters: move what both need into src/modules/ or src/graphql/.',
            },
            {
              target: './src/http',
              from: ['./src/graphql', './src/web', './src/cli', ...COMPOSITION],
              message: 'src/http/ is what every route answers with: it knows no route, so graphql/ and web/ can both use it.',
            },
          ],
        },
      ],
    },
  },
);
