// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import jsdoc from 'eslint-plugin-jsdoc';
import prettier from 'eslint-config-prettier';

const NO_DEFAULT_EXPORT = {
  selector: 'ExportDefaultDeclaration',
  message: 'Use named exports only.',
};

/** Methods that read a string's text to decide something. */
const TEXT_TESTS = '/^(includes|startsWith|endsWith|match|matchAll|search|indexOf)$/';
const DECIDE_ON_TYPED_FACTS =
  'Decide from typed facts (an error code, a brand, details), never from message text: messages are for people and change.';

/**
 * Deciding on an error's message text: `x.message.includes(…)` (and its kin), `/re/.test(x.message)`,
 * and the same on a local named `message`.
 */
const NO_MESSAGE_DECISIONS = [
  `CallExpression[callee.property.name=${TEXT_TESTS}][callee.object.property.name='message']`,
  `CallExpression[callee.property.name=${TEXT_TESTS}][callee.object.name='message']`,
  "CallExpression[callee.property.name='test'][arguments.0.property.name='message']",
  "CallExpression[callee.property.name='test'][arguments.0.name='message']",
].map((selector) => ({ selector, message: DECIDE_ON_TYPED_FACTS }));

/**
 * Module-level `let`/`var` in the agent: state shared by every agent of the process (one
 * agent's construction once handed a child's runtime to the next through such a variable).
 */
const NO_MODULE_STATE = [
  "Program > VariableDeclaration[kind!='const']",
  "Program > ExportNamedDeclaration > VariableDeclaration[kind!='const']",
].map((selector) => ({
  selector,
  message:
    'No module-level let or var in src/agent: keep state on the agent, the run or a closure (util once() for a lazy import).',
}));

/**
 * A getter or setter in an object literal. V8 gives such an object a hidden class of its own
 * (the accessor sits in the class), kept in old space; until a full GC that class holds the
 * getter and everything it closes over across every young-generation GC. One in the run's
 * session claim kept every finished run alive that way (docs/performance.md).
 */
const NO_LITERAL_ACCESSORS = [
  {
    selector: "ObjectExpression > Property[kind='get']",
    message:
      'No getters in object literals: use a class (its getters live on the prototype) or a data property.',
  },
  {
    selector: "ObjectExpression > Property[kind='set']",
    message:
      'No setters in object literals: use a class (its setters live on the prototype) or a method.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      'no-restricted-syntax': ['error', NO_DEFAULT_EXPORT],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    plugins: { jsdoc },
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        NO_DEFAULT_EXPORT,
        ...NO_MESSAGE_DECISIONS,
        ...NO_LITERAL_ACCESSORS,
      ],
      'jsdoc/require-jsdoc': [
        'error',
        {
          publicOnly: { esm: true },
          require: {
            FunctionDeclaration: true,
            ClassDeclaration: true,
            MethodDefinition: false,
            ArrowFunctionExpression: true,
            FunctionExpression: true,
          },
          contexts: [
            'TSInterfaceDeclaration',
            'TSTypeAliasDeclaration',
            'ExportNamedDeclaration > VariableDeclaration',
            // public methods and getters of exported classes (private, protected and `#`
            // members are left out by publicOnly; constructors and setters need none)
            'MethodDefinition[kind="method"] > FunctionExpression',
            'MethodDefinition[kind="get"] > FunctionExpression',
          ],
        },
      ],
    },
  },
  {
    files: ['src/agent/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        NO_DEFAULT_EXPORT,
        ...NO_MESSAGE_DECISIONS,
        ...NO_LITERAL_ACCESSORS,
        ...NO_MODULE_STATE,
      ],
    },
  },
  {
    // tool configuration files must default-export their config
    files: [
      'eslint.config.js',
      'vitest.config.ts',
      'vitest.browser.config.ts',
      'vitest.replicas.config.ts',
      'vitest.faults.config.ts',
      'vitest.fleet.config.ts',
      'vitest.install.config.ts',
      'vitest.docs.config.ts',
      'studio-ui/vite.config.ts',
      '.dependency-cruiser.mjs',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  prettier,
);
