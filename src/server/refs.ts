// Reads refs of the repository the hook runs in, as they stand before the push (git updates
// refs only after pre-receive accepts). Plain files: HEAD, loose refs, packed-refs. No git
// binary is needed (a GitHub Enterprise pre-receive environment has none).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const OID = /^[0-9a-f]{40}$/;

/** The branch HEAD names (`refs/heads/main`), or null for a detached HEAD. */
export async function headTarget(gitdir: string): Promise<string | null> {
  const text = (await readFile(join(gitdir, 'HEAD'), 'utf8')).trim();
  const m = /^ref:\s*(\S+)$/.exec(text);
  return m ? m[1]! : null;
}

/** The oid `ref` points at, or null when the ref does not exist (an unborn branch). Follows
 * symbolic refs. */
export async function resolveRef(gitdir: string, ref: string, depth = 0): Promise<string | null> {
  if (depth > 5) throw new Error(`symbolic ref loop at ${ref}`);
  if (ref === 'HEAD') {
    const text = (await readFile(join(gitdir, 'HEAD'), 'utf8')).trim();
    if (OID.test(text)) return text;
    const target = await headTarget(gitdir);
    return target === null ? null : resolveRef(gitdir, target, depth + 1);
  }
  if (!/^refs\/[^\0]+$/.test(ref) || ref.split('/').some((s) => s === '..' || s === '.' || s === '')) {
    throw new Error(`not a valid ref name: ${JSON.stringify(ref)}`);
  }
  const loose = await readOptional(join(gitdir, ref));
  if (loose !== null) {
    const text = loose.trim();
    if (OID.test(text)) return text;
    const m = /^ref:\s*(\S+)$/.exec(text);
    if (m) return resolveRef(gitdir, m[1]!, depth + 1);
    throw new Error(`ref ${ref} holds neither an oid nor a symbolic ref`);
  }
  const packed = await readOptional(join(gitdir, 'packed-refs'));
  if (packed !== null) {
    for (const line of packed.split('\n')) {
      if (line.startsWith('#') || line.startsWith('^')) continue;
      const [oid, name] = line.split(' ');
      if (name === ref && oid && OID.test(oid)) return oid;
    }
  }
  return null;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw err;
  }
}
