// git's commit-graph (Documentation/gitformat-commit-graph.txt), read without git: the file
// `objects/info/commit-graph`, or a split chain `objects/info/commit-graphs/commit-graph-chain`
// naming `graph-<hash>.graph` layers, base first. A graph gives, for every commit it lists, its
// tree, parents, commit date and a generation number without inflating the commit object, so
// walks over long histories read a few typed arrays instead of thousands of objects.
//
// A graph is trusted only once it is whole: its trailing SHA-1 matches its content (a chain
// layer's also matches the name it is listed under), its chunks are in bounds, its object ids
// are sorted, every parent position exists, and every generation number is above each of its
// parents'. Anything else (corrupt, truncated, inconsistent, a layer missing) means the graph is
// not used at all: walks read the commit objects, exactly and more slowly, and the reason is
// returned as a one-line notice for the caller to print.

import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { DeadlineExceeded, type Deadline } from '../../deadline';
import { isOid } from '../../types';
import { hexWord, searchBucket } from '../oid-search';

const SIGNATURE = 0x43475048; // "CGPH"
const OIDF = 0x4f494446;
const OIDL = 0x4f49444c;
const CDAT = 0x43444154;
const GDA2 = 0x47444132; // corrected commit date offsets (generation number v2)
const GDO2 = 0x47444f32; // their 64-bit overflow
const EDGE = 0x45444745; // parents beyond the second of octopus merges
const BASE = 0x42415345; // the layers below this one, in a chain
const HASH_LEN = 20;
const CDAT_WIDTH = HASH_LEN + 16;
const PARENT_NONE = 0x70000000;
const EXTRA_EDGES = 0x80000000;
const LAST_EDGE = 0x80000000;
const OVERFLOW = 0x80000000;
/** A graph larger than this is not read (git/git's, with every ref, is about 13 MB). */
const MAX_GRAPH_BYTES = 1 << 30;

/** One graph file, parsed and checked. Positions are local to the layer. */
interface Layer {
  /** The file, for messages. */
  name: string;
  buf: Buffer;
  /** Commits in the layers below (this layer's first global position). */
  offset: number;
  count: number;
  fanout: number; // byte offsets of the chunks in buf
  lookup: number;
  data: number;
  edges: number;
  edgesLen: number;
  genData: number;
  genOverflow: number;
  genOverflowLen: number;
  checksum: string;
  /** The same file was checked whole on an earlier push (VerifiedGraphs). */
  known: boolean;
}

/** A trusted commit-graph (one file or a whole chain). Positions are global: a chain's base
 * layer first. */
export class CommitGraph {
  /** Commits listed. */
  readonly count: number;
  /**
   * True when every layer has generation data (GDA2): generation numbers are corrected commit
   * dates, and git orders its merge-base walk by them. Otherwise they are topological levels
   * (CDAT), and git orders that walk by commit date.
   */
  readonly correctedDates: boolean;
  /** Every commit's generation number, or null when each layer was checked whole on an earlier
   * push (VerifiedGraphs): then they are read from the file as asked for. */
  private readonly gens: Float64Array | null;

  /** @internal built by readCommitGraph once every check has passed */
  constructor(
    private readonly layers: Layer[],
    gens: Float64Array | null,
    correctedDates: boolean,
  ) {
    this.count = layers.reduce((n, l) => n + l.count, 0);
    this.gens = gens;
    this.correctedDates = correctedDates;
  }

  /** Files read, for notices and the bench. */
  get files(): string[] {
    return this.layers.map((l) => l.name);
  }

  /** The global position of a commit (40 hex), or -1 when the graph does not list it. A search
   * (oid-search.ts) on the first 32-bit word of the names in the fan-out bucket, read in place; the other
   * words are parsed and compared only on a match of the first (no Buffer or array made for the
   * key). */
  position(oid: string): number {
    if (!isOid(oid)) return -1;
    const w0 = hexWord(oid, 0);
    const first = w0 >>> 24;
    for (const l of this.layers) {
      const lo = first === 0 ? 0 : l.buf.readUInt32BE(l.fanout + 4 * (first - 1));
      const hi = l.buf.readUInt32BE(l.fanout + 4 * first);
      const k = searchBucket(l.buf, l.lookup, HASH_LEN, lo, hi, oid, w0);
      if (k >= 0) return l.offset + k;
    }
    return -1;
  }

  private layerOf(pos: number): Layer {
    const ls = this.layers;
    for (let i = ls.length - 1; i > 0; i--) if (pos >= ls[i]!.offset) return ls[i]!;
    return ls[0]!;
  }

  oid(pos: number): string {
    const l = this.layerOf(pos);
    const at = l.lookup + (pos - l.offset) * HASH_LEN;
    return l.buf.toString('hex', at, at + HASH_LEN);
  }

  tree(pos: number): string {
    const l = this.layerOf(pos);
    const at = l.data + (pos - l.offset) * CDAT_WIDTH;
    return l.buf.toString('hex', at, at + HASH_LEN);
  }

  /** Commit (committer) date, seconds since the epoch, as git stores it (34 bits). */
  commitTime(pos: number): number {
    const l = this.layerOf(pos);
    const at = l.data + (pos - l.offset) * CDAT_WIDTH + HASH_LEN + 8;
    return (l.buf.readUInt32BE(at) & 3) * 2 ** 32 + l.buf.readUInt32BE(at + 4);
  }

  /** Generation number: corrected commit date when `correctedDates`, else topological level.
   * Strictly greater than every parent's (checked when the graph was read). */
  generation(pos: number): number {
    if (this.gens) return this.gens[pos]!;
    const l = this.layerOf(pos);
    return layerGeneration(l, pos - l.offset, this.correctedDates);
  }

  /** Parent positions, in the commit's order. */
  parents(pos: number): number[] {
    const l = this.layerOf(pos);
    return layerParents(l, pos - l.offset);
  }
}

/** Parents of local position i (global positions). Bounds were checked when the layer was read. */
function layerParents(l: Layer, i: number): number[] {
  const at = l.data + i * CDAT_WIDTH + HASH_LEN;
  const p1 = l.buf.readUInt32BE(at);
  if (p1 === PARENT_NONE) return [];
  const p2 = l.buf.readUInt32BE(at + 4);
  if (p2 === PARENT_NONE) return [p1];
  if ((p2 & EXTRA_EDGES) === 0) return [p1, p2];
  const out = [p1];
  for (let e = (p2 & 0x7fffffff) >>> 0; ; e++) {
    const v = l.buf.readUInt32BE(l.edges + 4 * e);
    out.push((v & 0x7fffffff) >>> 0);
    if ((v & LAST_EDGE) !== 0) break;
  }
  return out;
}

export interface CommitGraphRead {
  /** The graph, or null when there is none or it cannot be trusted. */
  graph: CommitGraph | null;
  /** One line per graph that was found but not used (why, and what to do). */
  notices: string[];
}

class GraphError extends Error {}

/**
 * Reads the commit-graph of the object directory `objectsDir` (a repository's own
 * `<gitdir>/objects`; the quarantine never has one). As git does, a single
 * `info/commit-graph` file wins over a chain in `info/commit-graphs/`.
 */
export function readCommitGraph(objectsDir: string, deadline?: Deadline, verifiedFile?: string): CommitGraphRead {
  const verified = new VerifiedGraphs(verifiedFile);
  const read = readGraphFiles(objectsDir, verified, deadline);
  if (read.graph) verified.save();
  return read;
}

function readGraphFiles(objectsDir: string, verified: VerifiedGraphs, deadline?: Deadline): CommitGraphRead {
  const single = join(objectsDir, 'info', 'commit-graph');
  const chainFile = join(objectsDir, 'info', 'commit-graphs', 'commit-graph-chain');
  let what = single;
  try {
    if (existsSync(single)) return { graph: assemble([parseLayer(single, readGraphFile(single, verified), 0, [], deadline)], deadline), notices: [] };
    if (!existsSync(chainFile)) return { graph: null, notices: [] };
    what = chainFile;
    const hashes = readFileSync(chainFile, 'latin1').split('\n').filter((l) => l !== '');
    if (hashes.length === 0 || hashes.some((h) => !isOid(h))) throw new GraphError('the chain file does not list graph hashes');
    const layers: Layer[] = [];
    for (const h of hashes) {
      const file = join(objectsDir, 'info', 'commit-graphs', `graph-${h}.graph`);
      what = file;
      const layer = parseLayer(file, readGraphFile(file, verified), layers.reduce((n, l) => n + l.count, 0), layers, deadline);
      if (layer.checksum !== h) throw new GraphError(`its checksum is ${layer.checksum}, not the ${h} the chain names`);
      layers.push(layer);
    }
    what = chainFile;
    return { graph: assemble(layers, deadline), notices: [] };
  } catch (err) {
    if (err instanceof DeadlineExceeded) throw err;
    // Any failure to parse (a read past a chunk's end included) means the graph is not used.
    const why = err instanceof GraphError ? err.message : `it cannot be parsed: ${err instanceof Error ? err.message : String(err)}`;
    return {
      graph: null,
      notices: [`commit-graph ${what} is not used (${why}); commits are read one by one, exactly but more slowly. Rewrite it with \`git commit-graph write --reachable\`.`],
    };
  }
}

/**
 * The server's record of graph files already checked whole (`<gitdir>/receipt-gate-cache/
 * commit-graph-verified`, beside the commit cache): one line per file, naming it by path,
 * device, inode, size, modification and change times and trailing checksum, written only for a
 * file whose change time was two seconds or more before the check. Any write to a file (and
 * any `touch`) sets its change time to the clock's now, which no process can choose, so a file
 * that matches its line is the file that was checked: its checksum, ids and parents are not
 * checked again. Any other file is checked in full. Without a path (the client), every file is
 * checked every time.
 */
class VerifiedGraphs {
  private readonly known = new Set<string>();
  private readonly seen: string[] = [];
  private all = true;

  constructor(private readonly path: string | undefined) {
    if (!path) return;
    try {
      for (const line of readFileSync(path, 'utf8').split('\n')) if (line !== '') this.known.add(line);
    } catch {
      // none yet
    }
  }

  /** Whether the file with this identity was checked before; notes it for save() when it was
   * last changed at least two seconds ago (a change made after the check then gets a later
   * change time, so the same file cannot be changed in place under the same line). */
  check(key: string, settled: boolean): boolean {
    if (settled) this.seen.push(key);
    const ok = this.known.has(key);
    if (!ok) this.all = false;
    return ok;
  }

  /** Whether every file read so far was checked before. */
  get allKnown(): boolean {
    return this.all;
  }

  /** Records the files of a graph that passed every check (when any of them was new). */
  save(): void {
    if (!this.path || this.all || this.seen.length === 0) return;
    const tmp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(tmp, this.seen.join('\n') + '\n', { flag: 'wx' });
      renameSync(tmp, this.path);
    } catch {
      rmSync(tmp, { force: true });
    }
  }
}

/** A layer's bytes, and whether the very same file was checked whole before. */
type GraphFile = Buffer & { verified?: boolean };

function readGraphFile(file: string, verified: VerifiedGraphs): GraphFile {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new GraphError(`it cannot be opened: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_GRAPH_BYTES) throw new GraphError(`it is ${size} bytes, over the ${MAX_GRAPH_BYTES} bytes receipt-gate reads`);
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    if (got !== size) throw new GraphError('it was truncated while being read');
    const st = fstatSync(fd, { bigint: true });
    const key = `${file} ${st.dev} ${st.ino} ${st.size} ${st.mtimeNs} ${st.ctimeNs} ${size >= HASH_LEN ? buf.toString('hex', size - HASH_LEN) : ''}`;
    const settled = BigInt(Date.now()) * 1_000_000n - st.ctimeNs > 2_000_000_000n;
    const out: GraphFile = buf;
    out.verified = st.size === BigInt(size) && verified.check(key, settled);
    return out;
  } finally {
    closeSync(fd);
  }
}

function parseLayer(name: string, buf: GraphFile, offset: number, below: Layer[], deadline?: Deadline): Layer {
  const known = buf.verified === true;
  if (buf.length < 8 + 12 + HASH_LEN) throw new GraphError(`it is truncated (${buf.length} bytes)`);
  if (buf.readUInt32BE(0) !== SIGNATURE) throw new GraphError('it has no CGPH signature');
  if (buf[4] !== 1) throw new GraphError(`its version is ${buf[4]}, not 1`);
  if (buf[5] !== 1) throw new GraphError(`its hash version is ${buf[5]}, not 1 (SHA-1)`);
  const checksum = buf.toString('hex', buf.length - HASH_LEN);
  const sum = known ? checksum : createHash('sha1').update(buf.subarray(0, buf.length - HASH_LEN)).digest('hex');
  if (sum !== checksum) throw new GraphError(`its trailing checksum is ${checksum} but its content hashes to ${sum}: the file is corrupt`);
  deadline?.check();
  const chunkCount = buf[6]!;
  const baseCount = buf[7]!;
  if (baseCount !== below.length) throw new GraphError(`it says it has ${baseCount} base graphs, its place in the chain says ${below.length}`);
  const end = buf.length - HASH_LEN;
  const chunks = new Map<number, { start: number; len: number }>();
  if (8 + 12 * (chunkCount + 1) > end) throw new GraphError('its chunk table is truncated');
  for (let i = 0; i < chunkCount; i++) {
    const at = 8 + 12 * i;
    const id = buf.readUInt32BE(at);
    const start = Number(buf.readBigUInt64BE(at + 4));
    const next = Number(buf.readBigUInt64BE(at + 16));
    if (id === 0 || start < 8 + 12 * (chunkCount + 1) || next < start || next > end) throw new GraphError(`chunk ${i} lies outside the file`);
    if (chunks.has(id)) throw new GraphError(`chunk ${chunkName(id)} appears twice`);
    chunks.set(id, { start, len: next - start });
  }
  const need = (id: number) => {
    const c = chunks.get(id);
    if (!c) throw new GraphError(`it has no ${chunkName(id)} chunk`);
    return c;
  };
  const fanout = need(OIDF);
  if (fanout.len !== 256 * 4) throw new GraphError('its OIDF chunk is not 1024 bytes');
  let prev = 0;
  for (let i = 0; i < 256; i++) {
    const v = buf.readUInt32BE(fanout.start + 4 * i);
    if (v < prev) throw new GraphError('its OIDF fanout is not sorted');
    prev = v;
  }
  const count = prev;
  const lookup = need(OIDL);
  if (lookup.len !== count * HASH_LEN) throw new GraphError(`its OIDL chunk holds ${lookup.len / HASH_LEN} ids, the fanout says ${count}`);
  const data = need(CDAT);
  if (data.len !== count * CDAT_WIDTH) throw new GraphError(`its CDAT chunk has ${data.len} bytes for ${count} commits`);
  // Sorted ids (compared by their first four bytes, then whole when those are equal), and each
  // fanout bucket holding exactly the ids that start with its byte.
  for (let i = known ? count : 1; i < count; i++) {
    const at = lookup.start + i * HASH_LEN;
    const a = buf.readUInt32BE(at - HASH_LEN);
    const b = buf.readUInt32BE(at);
    if (a > b || (a === b && buf.compare(buf, at - HASH_LEN, at, at, at + HASH_LEN) <= 0)) throw new GraphError('its OIDL ids are not sorted');
    if ((i & 4095) === 0) deadline?.tick(1);
  }
  for (let byte = 0, lo = 0; byte < 256; byte++) {
    const hi = buf.readUInt32BE(fanout.start + 4 * byte);
    if (hi > lo && (buf[lookup.start + lo * HASH_LEN] !== byte || buf[lookup.start + (hi - 1) * HASH_LEN] !== byte)) throw new GraphError('its OIDF fanout does not match its ids');
    lo = hi;
  }
  const edges = chunks.get(EDGE);
  const genData = chunks.get(GDA2);
  const genOverflow = chunks.get(GDO2);
  if (genData && genData.len !== count * 4) throw new GraphError(`its GDA2 chunk has ${genData.len} bytes for ${count} commits`);
  if (baseCount > 0) {
    const base = need(BASE);
    if (base.len !== baseCount * HASH_LEN) throw new GraphError('its BASE chunk does not list its base graphs');
    for (let i = 0; i < baseCount; i++) {
      if (buf.toString('hex', base.start + i * HASH_LEN, base.start + (i + 1) * HASH_LEN) !== below[i]!.checksum) throw new GraphError(`its BASE chunk does not name layer ${i} of the chain`);
    }
  }
  return {
    name,
    buf,
    offset,
    count,
    fanout: fanout.start,
    lookup: lookup.start,
    data: data.start,
    edges: edges?.start ?? 0,
    edgesLen: edges?.len ?? 0,
    genData: genData?.start ?? -1,
    genOverflow: genOverflow?.start ?? -1,
    genOverflowLen: genOverflow?.len ?? 0,
    checksum,
    known,
  };
}

function chunkName(id: number): string {
  return Buffer.from([id >>> 24, (id >>> 16) & 255, (id >>> 8) & 255, id & 255]).toString('latin1');
}

/** The generation number of local position i: its corrected commit date (`corrected`, from
 * GDA2 and GDO2) or its topological level (CDAT). */
function layerGeneration(l: Layer, i: number, corrected: boolean): number {
  const { buf } = l;
  const at = l.data + i * CDAT_WIDTH + HASH_LEN + 8;
  const word = buf.readUInt32BE(at);
  if (corrected) {
    const time = (word & 3) * 2 ** 32 + buf.readUInt32BE(at + 4);
    const off = buf.readUInt32BE(l.genData + 4 * i);
    if ((off & OVERFLOW) === 0) return time + off;
    const k = (off & 0x7fffffff) >>> 0;
    if (l.genOverflow < 0 || 8 * (k + 1) > l.genOverflowLen) throw new GraphError('its GDA2 chunk points past its GDO2 overflow chunk');
    return time + Number(buf.readBigUInt64BE(l.genOverflow + 8 * k));
  }
  const level = word >>> 2;
  if (level === 0) throw new GraphError('it has no generation numbers (written by a git older than 2.19)');
  return level;
}

/**
 * Checks every commit's parents and generation across the layers, and builds the graph. A
 * graph whose every layer was checked whole on an earlier push is not walked at all: its
 * generation numbers are read as the walks ask for them.
 */
function assemble(layers: Layer[], deadline?: Deadline): CommitGraph {
  const corrected = layers.every((l) => l.genData >= 0);
  if (layers.every((l) => l.known)) return new CommitGraph(layers, null, corrected);
  const total = layers.reduce((n, l) => n + l.count, 0);
  const gens = new Float64Array(total);
  for (const l of layers) {
    for (let i = 0; i < l.count; i++) gens[l.offset + i] = layerGeneration(l, i, corrected);
    deadline?.check();
  }
  // Every parent position must exist (in this layer or below), and generation numbers must
  // grow from parent to child, or walks that stop on them would miss commits.
  for (const l of layers) {
    if (l.known) continue;
    const { buf } = l;
    const limit = l.offset + l.count;
    for (let i = 0; i < l.count; i++) {
      const own = l.offset + i;
      const g = gens[own]!;
      const at = l.data + i * CDAT_WIDTH + HASH_LEN;
      const p1 = buf.readUInt32BE(at);
      const p2 = buf.readUInt32BE(at + 4);
      if (p1 === PARENT_NONE) {
        if (p2 !== PARENT_NONE) throw inconsistent(l, i, 'has a second parent but no first');
        continue;
      }
      if (p1 >= limit) throw inconsistent(l, i, `names parent position ${p1}, past the graph`);
      if (!(gens[p1]! < g)) throw inconsistent(l, i, 'has a generation number not above its parent\'s');
      if (p2 === PARENT_NONE) continue;
      if ((p2 & EXTRA_EDGES) === 0) {
        if (p2 >= limit) throw inconsistent(l, i, `names parent position ${p2}, past the graph`);
        if (!(gens[p2]! < g)) throw inconsistent(l, i, 'has a generation number not above its parent\'s');
        continue;
      }
      for (let e = (p2 & 0x7fffffff) >>> 0; ; e++) {
        if (4 * (e + 1) > l.edgesLen) throw inconsistent(l, i, 'has parents past the EDGE chunk');
        const v = buf.readUInt32BE(l.edges + 4 * e);
        const p = (v & 0x7fffffff) >>> 0;
        if (p >= limit) throw inconsistent(l, i, `names parent position ${p}, past the graph`);
        if (!(gens[p]! < g)) throw inconsistent(l, i, 'has a generation number not above its parent\'s');
        if ((v & LAST_EDGE) !== 0) break;
      }
      if ((i & 4095) === 0) deadline?.tick(1);
    }
  }
  return new CommitGraph(layers, gens, corrected);
}

function inconsistent(l: Layer, i: number, what: string): GraphError {
  return new GraphError(`its commit ${l.buf.toString('hex', l.lookup + i * HASH_LEN, l.lookup + (i + 1) * HASH_LEN)} ${what}`);
}
