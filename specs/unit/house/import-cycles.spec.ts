/**
 * No import cycle in src/: among the imports that run when a module loads, no module of src/
 * reaches itself again. A cycle makes the load order decide which side sees the other's exports
 * still undefined, so the shared piece belongs in a module of its own that both import.
 *
 * What counts is what the compiler emits (tsconfig.json has verbatimModuleSyntax):
 * - `import type …` and `export type … from` are erased: not counted;
 * - `import { type A } from './a.js'` stays as `import {} from './a.js'`, which still loads
 *   ./a.js: counted, as is every other static import, `export … from` and `import './x.js'`;
 * - `await import('./x.js')` loads ./x.js only when it runs, after every module is initialised:
 *   not part of the load-time graph. The CLI loads its commands that way, so the one cycle such
 *   an import could close, a command importing src/cli/main.ts, is ruled out on its own below.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importsOf, resolveImport, tsFilesUnder, type ImportKind } from '../../support/imports.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SRC = join(ROOT, 'src');

/** `src/a.ts` → the modules of the tree it imports with one of `kinds`, as repository-relative paths. */
function importGraph(dir: string, kinds: readonly ImportKind[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const name = (file: string): string => relative(ROOT, file).split(sep).join('/');
  for (const file of tsFilesUnder(dir)) {
    const targets = new Set<string>();
    for (const imp of importsOf(file, readFileSync(file, 'utf8'))) {
      if (!kinds.includes(imp.kind)) continue;
      const target = resolveImport(file, imp.specifier);
      if (target?.startsWith(dir + sep)) targets.add(name(target));
    }
    graph.set(name(file), [...targets].sort());
  }
  return graph;
}

/**
 * Every cycle of `graph`, one per strongly connected set of modules (Tarjan), each written as
 * the shortest path from the set's first module (in sort order) back to itself:
 * `a.ts → b.ts → a.ts`.
 */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);

  return components
    .map((component) => {
      const members = new Set(component);
      const start = component[0]!;
      // Breadth-first from start, inside the component, until an edge leads back to start.
      const cameFrom = new Map<string, string>();
      const queue = [start];
      for (let i = 0; i < queue.length; i++) {
        const v = queue[i]!;
        for (const w of graph.get(v) ?? []) {
          if (w === start) {
            const path = [start];
            for (let at: string | undefined = v; at !== undefined && at !== start; at = cameFrom.get(at)) path.unshift(at);
            path.unshift(start);
            return path.join(' → ');
          }
          if (members.has(w) && !cameFrom.has(w)) {
            cameFrom.set(w, v);
            queue.push(w);
          }
        }
      }
      throw new Error(`no path back to ${start} inside its own component`);
    })
    .sort();
}

describe('import cycles in src/', () => {
  describe('reading imports', () => {
    it('counts what the compiler keeps and leaves out what it erases or loads later', () => {
      const text = [
        "import type { A } from './a.js';",
        "export type { B } from './b.js';",
        "import { type C } from './c.js';",
        "import { d, type D } from './d.js';",
        "import './e.js';",
        "export * from './f.js';",
        "export { g } from './g.js';",
        "import * as h from './h.js';",
        "const text = \"import x from './not-an-import.js'\";",
        '// import y from "./nor-this.js";',
        "export async function load(): Promise<unknown> { return import('./i.js'); }",
        "export type J = import('./j.js').J;",
        "import ts from 'typescript';",
      ].join('\n');
      expect(importsOf('x.ts', text).map(({ specifier, kind }) => `${kind} ${specifier}`)).to.deep.equal([
        'type ./a.js',
        'type ./b.js',
        'runtime ./c.js',
        'runtime ./d.js',
        'runtime ./e.js',
        'runtime ./f.js',
        'runtime ./g.js',
        'runtime ./h.js',
        'dynamic ./i.js',
        'type ./j.js',
        'runtime typescript',
      ]);
    });

    it('resolves a specifier to the .ts module NodeNext loads', () => {
      const main = join(SRC, 'cli', 'main.ts');
      expect(resolveImport(main, './io.js')).to.equal(join(SRC, 'cli', 'io.ts'));
      expect(resolveImport(main, '../report/html/render.js')).to.equal(join(SRC, 'report', 'html', 'render.ts'));
      expect(resolveImport(main, 'commander')).to.equal(undefined);
    });
  });

  describe('finding cycles', () => {
    it('names each cycle by the path that closes it, and nothing else', () => {
      const graph = new Map<string, string[]>([
        ['a', ['b', 'x']],
        ['b', ['c']],
        ['c', ['a', 'b']],
        ['d', ['d']],
        ['e', ['a']],
        ['x', []],
      ]);
      expect(findCycles(graph)).to.deep.equal(['a → b → c → a', 'd → d']);
      expect(findCycles(new Map([['a', ['b']], ['b', []]]))).to.deep.equal([]);
    });
  });

  describe('the source tree', () => {
    const runtime = importGraph(SRC, ['runtime']);

    it('reads every module of src/ and the imports between them', () => {
      expect(runtime.size).to.be.greaterThan(100);
      expect(runtime.get('src/cli/main.ts')).to.include('src/cli/io.ts');
      expect(runtime.get('src/report/html/render.ts')).to.include.members(['src/report/html/model.ts', 'src/report/merge.ts']);
    });

    it('has no cycle among the imports that run when a module loads', () => {
      const cycles = findCycles(runtime);
      expect(cycles, `import cycles in src/ (move what both sides share into a module of its own):\n  ${cycles.join('\n  ')}\n`).to.deep.equal([]);
    });

    it('no command module imports src/cli/main.ts, which loads the commands (not even a type, nor lazily)', () => {
      const every = importGraph(SRC, ['runtime', 'type', 'dynamic']);
      const offenders = [...every].filter(([file, targets]) => file.startsWith('src/cli/commands/') && targets.includes('src/cli/main.ts')).map(([file]) => file);
      expect(offenders, 'import CliIo from src/cli/io.ts instead').to.deep.equal([]);
    });
  });
});
