// One zlib inflate engine for the many small streams of a pack and of loose objects.
//
// `zlib.inflateSync` builds a new stream object (Inflate, with its Transform and Duplex state,
// and a native engine initialised for it) for every call, and closes it at the end. A 20-commit
// push inflates some 340 pack entries, most of them deltas of a few dozen bytes, and half the
// time of each call went to that set-up. `Inflater` keeps one engine per object store and
// resets it between streams (`reset()`, as zlib's inflateReset).
//
// node:zlib has no public call that inflates into a caller's buffer without a new stream, so
// the engine is driven the way `inflateSync` drives it itself: the native handle's `writeSync`
// with Z_FINISH, and the two counters it leaves in `_writeState`. These are node's internals;
// they are looked for when the engine is made, and without them (another node) every call
// answers null. `exact` never throws and answers only the plain case: a stream that inflates to
// exactly the size the pack entry's header gives. For anything else (an error, more bytes, fewer
// bytes) it answers null, and the caller inflates the same bytes with `inflateSync`, whose
// answer and message are then the ones given, as before. Every object read is also checked by
// its SHA-1 (objects.ts), so an engine in a wrong state could refuse an object, never change it.

import { constants, createInflate, type Inflate } from 'node:zlib';

/** The parts of node's zlib engine that `inflateSync` uses (lib/zlib.js processChunkSync). */
interface NativeZlib {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
}

interface Engine {
  stream: Inflate;
  handle: NativeZlib;
  /** [bytes of output space left, bytes of input left] after a write. */
  state: Uint32Array;
}

export class Inflater {
  /** undefined: not made yet; null: this node's zlib cannot be driven this way. */
  private engine: Engine | null | undefined = undefined;

  /** The `size` bytes the zlib stream at the start of `input` holds, or null when it does not
   * hold exactly that many (or cannot be inflated here): then ask `inflateSync`. */
  exact(input: Uint8Array, size: number): Buffer | null {
    // One byte more than wanted: a stream that holds more fills it.
    const done = this.run(input, size + 1);
    return done !== null && done.got === size ? done.out.subarray(0, size) : null;
  }

  /** As exact(), and how many bytes of `input` the stream took, for entries read one after
   * the other (src/git/history/pack-commits.ts): null unless the stream ended before the end of
   * `input` (so that an input cut short is never taken for a whole stream). The bytes are
   * written into `scratch` when it is large enough (the caller's, reused: they are only good
   * until its next call). */
  exactTaking(input: Uint8Array, size: number, scratch?: Buffer): { data: Buffer; used: number } | null {
    const done = this.run(input, size + 1, scratch);
    return done !== null && done.got === size && done.inputLeft > 0 ? { data: done.out.subarray(0, size), used: input.length - done.inputLeft } : null;
  }

  /**
   * The whole zlib stream that `input` holds, when it inflates to at most `room` bytes and ends
   * exactly at the end of `input` (a loose object's file, whose size is only known once
   * inflated); else null (more bytes than `room`, bytes after the stream, an error): then ask
   * `inflateSync`.
   */
  whole(input: Uint8Array, room: number): Buffer | null {
    const done = this.run(input, room + 1);
    // Output space left under Z_FINISH without an error: the stream ended (a cut one is an error).
    return done !== null && done.got <= room && done.inputLeft === 0 ? done.out.subarray(0, done.got) : null;
  }

  /** One stream through the engine into `space` bytes, with Z_FINISH: what it wrote and what of
   * the input it left; null on an error (the engine is then let go). */
  private run(input: Uint8Array, space: number, scratch?: Buffer): { out: Buffer; got: number; inputLeft: number } | null {
    const engine = this.engine === undefined ? (this.engine = makeEngine()) : this.engine;
    if (engine === null) return null;
    const out = scratch !== undefined && scratch.length >= space ? scratch.subarray(0, space) : Buffer.allocUnsafe(space);
    try {
      engine.handle.writeSync(constants.Z_FINISH, input, 0, input.length, out, 0, out.length);
    } catch {
      this.close();
      return null;
    }
    // A zlib error destroys the stream (its onerror handler); the engine is not used again.
    if (engine.stream.destroyed) {
      this.close();
      return null;
    }
    const got = out.length - engine.state[0]!;
    const inputLeft = engine.state[1]!;
    engine.stream.reset();
    return { out, got, inputLeft };
  }

  /** Releases the engine (a store's close, or after a failed stream); the next call makes a new one. */
  close(): void {
    if (this.engine) this.engine.stream.close();
    this.engine = undefined;
  }
}

function makeEngine(): Engine | null {
  const stream = createInflate();
  // zlib reports an error by destroying the stream, which then emits 'error': listened to, so
  // that it is never an uncaught exception (the failed call has answered null by then).
  stream.on('error', () => {});
  const internals = stream as unknown as { _handle?: Partial<NativeZlib>; _writeState?: unknown };
  const handle = internals._handle;
  const state = internals._writeState;
  if (typeof handle?.writeSync !== 'function' || !(state instanceof Uint32Array) || state.length !== 2) {
    stream.close();
    return null;
  }
  return { stream, handle: handle as NativeZlib, state };
}
