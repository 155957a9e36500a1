// OBJECT_INVALID: a commit or a tag that git itself cannot read, or one git fsck reports an
// error for (src/git/parse/). Such an object can be read one way by one reader and another way
// by the next, so the push is refused for every pusher, owners too. Only objects the push
// brings are judged by fsck (those already in the repository were accepted before); one that
// git cannot read at all is refused wherever a ref update meets it.

import { finding, type Finding } from '../findings';
import type { ObjectInvalidError, ObjectMessage } from '../git/store';

const FIX = 'write the object again with git itself (commit or tag it again) and push that history instead; such an object is refused for every pusher, owners too';

/** The finding for a new commit or tag whose fsck messages include an error; null when none. */
export function objectFsckFinding(objectType: 'commit' | 'tag', oid: string, messages: readonly ObjectMessage[], at: { ref?: string }): Finding | null {
  const errors = messages.filter((m) => m.severity === 'error');
  if (errors.length === 0) return null;
  const said = errors.map((m) => `${m.id}: ${m.text}`).join('; ');
  return finding('OBJECT_INVALID', {
    ...at,
    commit: oid,
    message: `the ${objectType} ${oid} is malformed (git fsck: ${said}); git and other readers may read it differently`,
    fix: FIX,
  });
}

/** The finding for a commit or tag git refuses to read (ObjectInvalidError). */
export function objectUnreadableFinding(err: ObjectInvalidError, at: { ref?: string }): Finding {
  return finding('OBJECT_INVALID', {
    ...at,
    commit: err.oid,
    message: `${err.message.replace(/\.$/, '')}`,
    fix: FIX,
  });
}
