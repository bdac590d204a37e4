// @ts-check
import tseslint from 'typescript-eslint';

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
);
