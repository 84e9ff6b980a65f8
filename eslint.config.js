import tseslint from 'typescript-eslint';
import boundaries from './scripts/lint/module-boundaries.js';

export default tseslint.config(
  { ignores: ['node_modules/**', 'packages/sdk/dist/**', 'data/**', 'test-artifacts/**', 'bench/results/**', '.tmp/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The SDK package check's CommonJS programs load it the way CommonJS users do (.ci/sdk-package).
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Modules talk only through each other's public surface (docs/design.md).
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    rules: { 'boundaries/module-surface': 'error' },
  },
);
