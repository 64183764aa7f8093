/**
 * The public surface of each entry, read with the TypeScript compiler from the built `.d.ts`
 * (docs/architecture.md#architecture-packages): a normalised text of every export (the API report), the
 * exports without a doc comment, and the types a signature uses that neither the entry nor the
 * root entry exports.
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The entries of package.json `exports` and their built declaration files. */
export const ENTRIES: Readonly<Record<string, string>> = {
  'mcp-bridge-sdk': 'dist/src/index.d.ts',
  'mcp-bridge-sdk/operators': 'dist/operators/index.d.ts',
  'mcp-bridge-sdk/testing': 'dist/src/testing/index.d.ts',
  'mcp-bridge-sdk/node': 'dist/src/node/index.d.ts',
  'mcp-bridge-sdk/embed': 'dist/src/embed/index.d.ts',
};

export interface Surface {
  /** One block per export, sorted by name; doc comments and blank lines left out. */
  readonly report: string;
  /** Exports whose declaration has no doc comment. */
  readonly undocumented: string[];
  /** `export -> used type` for a type of this package that a signature uses and the entry lacks. */
  readonly missingTypes: string[];
}

let program: ts.Program | undefined;
function load(): ts.Program {
  program ??= ts.createProgram(
    Object.values(ENTRIES).map((file) => `${root}${file}`),
    { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true },
  );
  return program;
}

const ours = (file: ts.SourceFile): boolean =>
  file.fileName.startsWith(`${root}dist/`) && !file.fileName.includes('/node_modules/');

/** The declaration text without comments, on normalised whitespace. */
function declarationText(node: ts.Node): string {
  const printer = ts.createPrinter({ removeComments: true });
  const target = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  const text = printer.printNode(ts.EmitHint.Unspecified, target, target.getSourceFile());
  return text
    .replace(/^export declare /, '')
    .replace(/^declare /, '')
    .replace(/^export /, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n');
}

function hasDoc(node: ts.Node): boolean {
  const target = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  return ts.getJSDocCommentsAndTags(target).length > 0;
}

/** The symbols of this package that the type references inside `node` name. */
function usedSymbols(node: ts.Node, checker: ts.TypeChecker): ts.Symbol[] {
  const used: ts.Symbol[] = [];
  const visit = (child: ts.Node): void => {
    if (ts.isTypeReferenceNode(child) || ts.isExpressionWithTypeArguments(child) || ts.isTypeQueryNode(child)) {
      const name = ts.isTypeReferenceNode(child)
        ? child.typeName
        : ts.isTypeQueryNode(child)
          ? child.exprName
          : child.expression;
      let symbol = checker.getSymbolAtLocation(name);
      if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      const declaration = symbol?.declarations?.[0];
      if (
        symbol !== undefined &&
        declaration !== undefined &&
        ours(declaration.getSourceFile()) &&
        !(symbol.flags & ts.SymbolFlags.TypeParameter)
      )
        used.push(symbol);
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return used;
}

/** The symbols the root entry exports: a type of another entry may come from there. */
function rootExports(p: ts.Program, checker: ts.TypeChecker): Set<ts.Symbol> {
  const file = p.getSourceFile(`${root}${ENTRIES['mcp-bridge-sdk']}`);
  const moduleSymbol = file && checker.getSymbolAtLocation(file);
  if (moduleSymbol === undefined) throw new Error('the root entry is missing: run npm run build');
  return new Set(
    checker
      .getExportsOfModule(moduleSymbol)
      .map((symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol)),
  );
}

export function surfaceOf(entry: string): Surface {
  const p = load();
  const checker = p.getTypeChecker();
  const file = p.getSourceFile(`${root}${ENTRIES[entry]}`);
  if (file === undefined) throw new Error(`${ENTRIES[entry]} is missing: run npm run build`);
  const moduleSymbol = checker.getSymbolAtLocation(file);
  if (moduleSymbol === undefined) throw new Error(`${entry} has no exports`);
  const exported = new Map<ts.Symbol, string>();
  const blocks: string[] = [];
  const undocumented: string[] = [];
  const declarations: [string, ts.Declaration][] = [];
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    exported.set(target, symbol.name);
    for (const declaration of target.declarations ?? []) declarations.push([symbol.name, declaration]);
  }
  declarations.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const missing = new Set<string>();
  const fromRoot = rootExports(p, checker);
  for (const [name, declaration] of declarations) {
    blocks.push(`// ${name}\n${declarationText(declaration)}`);
    if (!hasDoc(declaration)) undocumented.push(name);
    for (const used of usedSymbols(declaration, checker)) {
      if (!exported.has(used) && !fromRoot.has(used)) missing.add(`${name} -> ${used.name}`);
    }
  }
  return {
    report: `## API report: ${entry}\n\n${blocks.join('\n\n')}\n`,
    undocumented: [...new Set(undocumented)],
    missingTypes: [...missing].sort(),
  };
}
