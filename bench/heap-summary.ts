/**
 * `node bench/heap-summary.ts <file.heapsnapshot> [--top 25]`: what a V8 heap snapshot holds, for
 * the memory row's profile (the API writes them under BENCH_HEAP_SNAPSHOT=<dir>, bench/server.ts).
 *
 * Prints the self size summed by node type and constructor, then the largest retainers: the
 * objects whose retained size (everything only reachable through them, from the dominator tree of
 * the graph without weak edges) is largest, each with its path of edges from the GC roots along
 * the dominator chain, leaving out objects that merely wrap a larger one that is listed.
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 25;
if (!file) throw new Error('usage: node bench/heap-summary.ts <file.heapsnapshot> [--top 25]');

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
    node_count: number;
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const { meta } = snap.snapshot;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const nType = meta.node_fields.indexOf('type');
const nName = meta.node_fields.indexOf('name');
const nSelf = meta.node_fields.indexOf('self_size');
const nEdges = meta.node_fields.indexOf('edge_count');
const eType = meta.edge_fields.indexOf('type');
const eName = meta.edge_fields.indexOf('name_or_index');
const eTo = meta.edge_fields.indexOf('to_node');
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const { nodes, edges, strings } = snap;
const count = nodes.length / NF;
const weak = edgeTypes.indexOf('weak');
const shortcut = edgeTypes.indexOf('shortcut');

const firstEdge = new Uint32Array(count + 1);
for (let i = 0, e = 0; i < count; i++) {
  firstEdge[i] = e;
  e += nodes[i * NF + nEdges] * EF;
  firstEdge[i + 1] = e;
}
const typeOf = (i: number) => nodeTypes[nodes[i * NF + nType]];
const nameOf = (i: number) => strings[nodes[i * NF + nName]];
const selfOf = (i: number) => nodes[i * NF + nSelf];
const label = (i: number) => {
  const type = typeOf(i);
  const name = nameOf(i);
  if (type === 'object' || type === 'closure' || type === 'native') return `${name}${type === 'closure' ? '()' : ''}`;
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return `(${type})`;
  return `(${type}) ${name.slice(0, 60)}`;
};
const edgeLabel = (e: number) => {
  const type = edgeTypes[edges[e + eType]];
  const n = edges[e + eName];
  if (type === 'element' || type === 'hidden') return `[${n}]`;
  return `.${strings[n]}`;
};
const total = (() => {
  let t = 0;
  for (let i = 0; i < count; i++) t += selfOf(i);
  return t;
})();
const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;

// 1. Self size by type and constructor.
const byName = new Map<string, { size: number; count: number }>();
for (let i = 0; i < count; i++) {
  const key = label(i);
  const entry = byName.get(key) ?? { size: 0, count: 0 };
  entry.size += selfOf(i);
  entry.count += 1;
  byName.set(key, entry);
}
console.log(`${file}: ${count.toLocaleString()} nodes, ${mb(total)} in all\n\nSelf size by constructor / type:`);
for (const [key, { size, count: n }] of [...byName].sort((a, b) => b[1].size - a[1].size).slice(0, top)) {
  console.log(`  ${mb(size).padStart(10)}  ${String(n).padStart(9)}×  ${key}`);
}

// 2. Dominator tree (Cooper, Harvey, Kennedy) over strong edges, from node 0 (the synthetic root).
const order = new Uint32Array(count); // post-order number -> node
const post = new Int32Array(count).fill(-1); // node -> post-order number
/** Depth-first from the root over strong edges: fills `order` and `post`, answers how many nodes it reached. */
function postOrder(): number {
  const stack = new Uint32Array(count);
  const next = new Uint32Array(count);
  const seen = new Uint8Array(count);
  let sp = 0;
  let n = 0;
  stack[sp++] = 0;
  seen[0] = 1;
  next[0] = firstEdge[0];
  while (sp > 0) {
    const v = stack[sp - 1];
    let pushed = false;
    while (next[v] < firstEdge[v + 1]) {
      const e = next[v];
      next[v] += EF;
      const t = edges[e + eType];
      if (t === weak || t === shortcut) continue;
      const w = edges[e + eTo] / NF;
      if (seen[w]) continue;
      seen[w] = 1;
      next[w] = firstEdge[w];
      stack[sp++] = w;
      pushed = true;
      break;
    }
    if (!pushed) {
      sp--;
      post[v] = n;
      order[n++] = v;
    }
  }
  return n;
}
const reachable = postOrder();
// Predecessors of each reachable node (strong edges).
const predCount = new Uint32Array(count + 1);
for (let v = 0; v < count; v++) {
  if (post[v] < 0) continue;
  for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) {
    const t = edges[e + eType];
    if (t === weak || t === shortcut) continue;
    predCount[edges[e + eTo] / NF + 1]++;
  }
}
for (let i = 0; i < count; i++) predCount[i + 1] += predCount[i];
const preds = new Uint32Array(predCount[count]);
const predEdge = new Uint32Array(predCount[count]);
{
  const fill = predCount.slice();
  for (let v = 0; v < count; v++) {
    if (post[v] < 0) continue;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) {
      const t = edges[e + eType];
      if (t === weak || t === shortcut) continue;
      const w = edges[e + eTo] / NF;
      preds[fill[w]] = v;
      predEdge[fill[w]++] = e;
    }
  }
}
const idom = new Int32Array(reachable).fill(-1); // by post-order number
const rootPost = post[0];
idom[rootPost] = rootPost;
for (let changed = true; changed;) {
  changed = false;
  for (let p = reachable - 2; p >= 0; p--) {
    const v = order[p];
    let dom = -1;
    for (let k = predCount[v]; k < predCount[v + 1]; k++) {
      const q = post[preds[k]];
      if (q < 0 || idom[q] < 0) continue;
      if (dom < 0) {
        dom = q;
        continue;
      }
      let a = q;
      let b = dom;
      while (a !== b) {
        while (a < b) a = idom[a];
        while (b < a) b = idom[b];
      }
      dom = a;
    }
    if (dom >= 0 && idom[p] !== dom) {
      idom[p] = dom;
      changed = true;
    }
  }
}
const retained = new Float64Array(reachable);
for (let p = 0; p < reachable; p++) retained[p] += selfOf(order[p]);
for (let p = 0; p < reachable; p++) if (p !== rootPost) retained[idom[p]] += retained[p];

/** The edge from a node's immediate dominator (or another predecessor) that names how it is held. */
function holdingEdge(v: number): number | null {
  const dom = order[idom[post[v]]];
  let any: number | null = null;
  for (let k = predCount[v]; k < predCount[v + 1]; k++) {
    if (preds[k] === dom) return predEdge[k];
    any ??= predEdge[k];
  }
  return any;
}
const step = (p: number) => {
  const e = holdingEdge(order[p]);
  return `${e === null ? '' : `${edgeLabel(e)} → `}${label(order[p])}`;
};

// 3. The dominator tree from the roots, down every branch that retains at least `floor` bytes;
// a chain of single large children is printed on one line.
const children = new Map<number, number[]>();
for (let p = 0; p < reachable; p++) {
  if (p === rootPost) continue;
  const list = children.get(idom[p]);
  if (list) list.push(p);
  else children.set(idom[p], [p]);
}
const floor = Math.max(512 * 1024, total * 0.005);
const big = (p: number) => (children.get(p) ?? []).filter((c) => retained[c] >= floor).sort((a, b) => retained[b] - retained[a]);
console.log(`\nDominator tree (retained size; branches of ${mb(floor)} or more):`);
let printed = 0;
function walk(p: number, depth: number) {
  if (printed >= top * 4 || depth > 16) return;
  const chain = [step(p)];
  let end = p;
  for (let next = big(end); next.length === 1 && retained[next[0]] >= 0.9 * retained[end] && chain.length < 8; next = big(end)) {
    end = next[0];
    chain.push(step(end));
  }
  const own = retained[end] - big(end).reduce((n, c) => n + retained[c], 0);
  console.log(
    `${'  '.repeat(depth)}${mb(retained[p]).padStart(10)}  ${chain.join(' ')}${big(end).length ? `  (${mb(own)} in smaller branches)` : ''}`,
  );
  printed++;
  for (const c of big(end)) walk(c, depth + 1);
}
for (const c of big(rootPost)) walk(c, 0);

// 4. The largest single objects (a module's source text, a big array), with how they are held.
console.log(`\nLargest single objects (self size, dominator path):`);
const sizes = [...Array(reachable).keys()].sort((a, b) => selfOf(order[b]) - selfOf(order[a])).slice(0, top);
const pathOf = (p: number) => {
  const parts: string[] = [];
  for (let q = p, guard = 0; q !== rootPost && guard < 6; q = idom[q], guard++) parts.push(step(q));
  return parts.reverse().join(' ');
};
for (const p of sizes) console.log(`  ${mb(selfOf(order[p])).padStart(10)}  ${pathOf(p)}`);

// 5. Strings by the kind of object that holds them (the first strong retainer's constructor and edge).
const stringHolders = new Map<string, number>();
for (let p = 0; p < reachable; p++) {
  const v = order[p];
  if (!typeOf(v).includes('string')) continue;
  const e = holdingEdge(v);
  const holder = order[idom[p]];
  const key = `${label(holder)}${e === null ? '' : edgeLabel(e).startsWith('[') ? '[]' : edgeLabel(e)}`;
  stringHolders.set(key, (stringHolders.get(key) ?? 0) + selfOf(v));
}
console.log(`\nStrings by holder (immediate dominator and edge):`);
for (const [key, size] of [...stringHolders].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${mb(size).padStart(10)}  ${key}`);
