// Writing objects into a repository as git does, for receipt-gate's one writer on the server
// (the push log, src/pushlog/append.ts): a loose object is zlib-deflated `<type> <size>\0` +
// content, named by its SHA-1, written to a temporary file in its folder and renamed into
// place (a reader never sees half an object). Refs are written under their lock (ref-lock.ts).

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import type { ObjectType } from './types';

/** Where a loose object lives: objects/<first two hex digits>/<the other 38>. */
export function loosePath(objectsDir: string, oid: string): string {
  return join(objectsDir, oid.slice(0, 2), oid.slice(2));
}

/** Writes one loose object (zlib level 1) unless the repository has it loose already; its oid. */
export function writeLooseObject(objectsDir: string, type: ObjectType, content: Uint8Array): string {
  const whole = Buffer.concat([Buffer.from(`${type} ${content.length}\0`, 'latin1'), content]);
  const oid = createHash('sha1').update(whole).digest('hex');
  const file = loosePath(objectsDir, oid);
  if (existsSync(file)) return oid;
  const dir = join(objectsDir, oid.slice(0, 2));
  const tmp = join(dir, `tmp_obj_rg_${process.pid}_${Math.random().toString(36).slice(2)}`);
  const bytes = deflateSync(whole, { level: 1 });
  try {
    writeFileSync(tmp, bytes, { mode: 0o444 });
  } catch (err) {
    // (The object's folder is usually there: made when it is not.)
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, bytes, { mode: 0o444 });
  }
  renameSync(tmp, file);
  return oid;
}

/** A loose object's content when it is loose, of `type`, and hashes to `oid`; null otherwise
 * (packed: the object store reads it). */
export function readLooseObject(objectsDir: string, oid: string, type: ObjectType): Buffer | null {
  let whole: Buffer;
  try {
    whole = inflateSync(readFileSync(loosePath(objectsDir, oid)));
  } catch {
    return null;
  }
  if (createHash('sha1').update(whole).digest('hex') !== oid) return null;
  const nul = whole.indexOf(0);
  if (nul < 0 || whole.subarray(0, nul).toString('latin1') !== `${type} ${whole.length - nul - 1}`) return null;
  return whole.subarray(nul + 1);
}
