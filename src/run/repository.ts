// Opening the repository a command names (`--repo`, else the working directory).

import { ObjectStore } from '../git/store';
import { UsageError } from '../io';

/** A work tree, a .git directory or a bare repository. One that cannot be opened (none there,
 * SHA-256, reftable) is a setup error: exit 2, nothing was checked. */
export async function openRepository(dir: string, env: NodeJS.ProcessEnv): Promise<ObjectStore> {
  try {
    return await ObjectStore.discover(dir, env);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}
