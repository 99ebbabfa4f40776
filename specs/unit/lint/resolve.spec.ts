/**
 * Calls are linked to the functions they run by receiver type, enclosing class, imports and
 * package, not by bare name. A name declared in several unrelated classes (`run`, `doWork`,
 * `onDestroy`) links nothing when the receiver is unknown.
 */
import { expect } from 'chai';
import type { ParsedFile, Project, SourceText } from '../../../src/lint/model.js';
import { buildProject } from '../../../src/lint/project.js';
import { resolverOf } from '../../../src/lint/resolve.js';

function project(sources: SourceText[]): Project {
  return buildProject(sources).project;
}

/** The functions (as `Owner.name`) the call to `name` on line `line` of `path` runs. */
function targets(p: Project, path: string, line: number, name: string): string[] {
  const file = p.files.find((f) => f.path === path) as ParsedFile;
  const i = file.tokens.findIndex((t) => t.line === line && t.value === name);
  expect(i, `${name} on ${path}:${line}`).to.be.at.least(0);
  return resolverOf(p).resolveCall(file, i).map((r) => `${r.fn.owner?.name ?? '<top>'}.${r.fn.name}`).sort();
}

describe('lint call resolution', () => {
  it('links by the declared type of a field, a constructor property, a local and a parameter', () => {
    const p = project([
      {
        path: 'Worker.kt',
        text: [
          'class PollWorker(private val notifier: Notifier) {',
          '    private val store = Store()',
          '    fun doWork(cache: Cache) {',
          '        notifier.update()',
          '        store.update()',
          '        val local: Cache = cache',
          '        local.update()',
          '        cache.update()',
          '    }',
          '}',
          'class Notifier { fun update() {} }',
          'class Store { fun update() {} }',
          'class Cache { fun update() {} }',
        ].join('\n'),
      },
    ]);
    expect(targets(p, 'Worker.kt', 4, 'update')).to.deep.equal(['Notifier.update']);
    expect(targets(p, 'Worker.kt', 5, 'update')).to.deep.equal(['Store.update']);
    expect(targets(p, 'Worker.kt', 7, 'update')).to.deep.equal(['Cache.update']);
    expect(targets(p, 'Worker.kt', 8, 'update')).to.deep.equal(['Cache.update']);
  });

  it('does not link a name declared in unrelated classes when the receiver is unknown, nor a call on a library type', () => {
    const p = project([
      { path: 'A.kt', text: 'class A { fun run() {} \n fun onDestroy() {} }' },
      { path: 'B.kt', text: 'class B { fun run() {} \n fun onDestroy() {} }' },
      { path: 'C.kt', text: 'class C {\n    fun go(thread: Thread) {\n        something().run()\n        thread.run()\n    }\n}' },
    ]);
    expect(targets(p, 'C.kt', 3, 'run')).to.deep.equal([]);
    expect(targets(p, 'C.kt', 4, 'run')).to.deep.equal([]);
  });

  it('dispatches a call on an interface to the implementations (Java), and a static call to its class', () => {
    const p = project([
      { path: 'SyncProvider.java', text: 'package s;\npublic interface SyncProvider {\n    void login();\n}\n' },
      { path: 'Gpodder.java', text: 'package s;\npublic class Gpodder implements SyncProvider {\n    public void login() {}\n}\n' },
      { path: 'Nextcloud.java', text: 'package s;\npublic class Nextcloud implements SyncProvider {\n    public void login() {}\n}\n' },
      {
        path: 'Sync.java',
        text: 'package s;\nclass Sync {\n    void go() {\n        SyncProvider provider = Providers.active();\n        provider.login();\n        Providers.reset();\n    }\n}\n',
      },
      { path: 'Providers.java', text: 'package s;\nclass Providers {\n    static SyncProvider active() { return null; }\n    static void reset() {}\n}\n' },
    ]);
    expect(targets(p, 'Sync.java', 5, 'login')).to.deep.equal(['Gpodder.login', 'Nextcloud.login', 'SyncProvider.login']);
    expect(targets(p, 'Sync.java', 6, 'reset')).to.deep.equal(['Providers.reset']);
  });

  it('picks the imported class when two packages declare the same name, and follows a method\'s declared return type', () => {
    const p = project([
      { path: 'a/Repo.kt', text: 'package a\nclass Repo { fun load(): Item = Item() }\nclass Item { fun save() {} }' },
      { path: 'b/Repo.kt', text: 'package b\nclass Repo { fun load(): Item = Item() }\nclass Item { fun save() {} }' },
      { path: 'c/Use.kt', text: 'package c\nimport b.Repo\nclass Use(private val repo: Repo) {\n    fun go() {\n        repo.load().save()\n    }\n}' },
    ]);
    const [load] = targets(p, 'c/Use.kt', 5, 'load');
    expect(load).to.equal('Repo.load');
    const file = p.files.find((f) => f.path === 'c/Use.kt') as ParsedFile;
    const i = file.tokens.findIndex((t) => t.line === 5 && t.value === 'save');
    const [save] = resolverOf(p).resolveCall(file, i);
    expect(save?.file.path).to.equal('b/Repo.kt');
  });

  it('links a Kotlin extension function by its receiver type and an `object` member by the object name', () => {
    const p = project([
      { path: 'Ext.kt', text: 'fun String?.host(): String? = this\nfun Item.key(): String = ""\nobject Clock { fun now(): Long = 0L }\nclass Item' },
      { path: 'Use.kt', text: 'class Use {\n    fun go(url: String, item: Item) {\n        url.host()\n        item.key()\n        Clock.now()\n    }\n}' },
    ]);
    expect(targets(p, 'Use.kt', 3, 'host')).to.deep.equal(['<top>.host']);
    expect(targets(p, 'Use.kt', 4, 'key')).to.deep.equal(['<top>.key']);
    expect(targets(p, 'Use.kt', 5, 'now')).to.deep.equal(['Clock.now']);
  });
});
