// Every file below a folder, as full paths: what a benchmark lists before a push (objects,
// refs) so it can remove what the push added and measure the next push on the same repository.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function filesBelow(dir) {
  const out = new Set();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.add(p);
    }
  };
  walk(dir);
  return out;
}
