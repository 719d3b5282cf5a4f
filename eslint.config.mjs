// ESLint: typescript-eslint's recommended rules over the TypeScript sources, with Prettier owning the layout.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "test-output/**", "coverage/**", "**/*.min.js"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      // `_name` marks an argument or binding kept for its position in a signature.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      // `ready && go()` and `a ? b() : c()` as statements are idioms here; a bare expression that does nothing is still an error.
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true }],
    },
  },
  {
    // Node scripts and the webpack configuration are CommonJS.
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // custom-functions-metadata reads a parameter typed `any` as Excel's any-type argument (a number, text or a cell).
    files: ["excel/functions/functions.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Tests reach into the Excel stand-in, the Apps Script harness and the browser's globals, which have no types.
    files: ["test/**"],
    // Tests assert that text carries no control characters, or carries letters outside ASCII: the patterns say so.
    rules: { "@typescript-eslint/no-explicit-any": "off", "no-control-regex": "off" },
  },
  {
    // A file of the add-ins, the sandbox or the Excel and Sheets stand-ins holds one purpose that a maintainer reads
    // whole: at most 500 lines, counted as `wc -l` counts.
    files: [
      "core/**/*.ts",
      "excel/**/*.ts",
      "gsheets/**/*.ts",
      "sandbox/**/*.ts",
      "test/excel/standin/*.js",
      "test/gsheets/harness/*.ts",
    ],
    ignores: ["core/demo/demo-data.ts"],
    rules: { "max-lines": ["error", { max: 500, skipBlankLines: false, skipComments: false }] },
  },
  prettier,
);
