// The TypeScript parser for import-x's reading of imported files, with every
// import and re-export counted as a value import: import-x/no-cycle has no
// option to follow `import type` (it skips type-only imports by design), and
// a cycle closed by one is still a cycle of the design (issue 27).
// import-x loads its parsers with require(), so this file is CommonJS
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parser = require('@typescript-eslint/parser');

/** Marks the module's type-only imports and re-exports as value ones. */
function countTypeImports(ast) {
  for (const node of ast.body) {
    if (node.type !== 'ImportDeclaration' && node.type !== 'ExportNamedDeclaration' && node.type !== 'ExportAllDeclaration') continue;
    if (node.importKind === 'type') node.importKind = 'value';
    if (node.exportKind === 'type') node.exportKind = 'value';
    for (const specifier of node.specifiers ?? []) {
      if (specifier.importKind === 'type') specifier.importKind = 'value';
      if (specifier.exportKind === 'type') specifier.exportKind = 'value';
    }
  }
  return ast;
}

module.exports = {
  meta: { name: 'typescript-parser-counting-type-imports' },
  parseForESLint(code, options) {
    const result = parser.parseForESLint(code, options);
    countTypeImports(result.ast);
    return result;
  },
};
