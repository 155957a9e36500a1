// REF_RESERVED: refs/receipt-gate/** belongs to the server (the signed push log lives at
// refs/receipt-gate/log, docs/push-log.md). A push that creates, moves or deletes any ref
// under it is closed for every pusher, owners included: only the server's hook appends to the
// log, locally. Reserved refs are a ref kind (src/run/ref-kind.ts): the engine's dispatch
// (src/engine.ts) calls this for every such update on the server, guarded repository or not.

import { finding, type Finding } from '../findings';
import { RESERVED_PREFIX } from '../pushlog/entry';
import { ZERO_OID, type RefUpdate } from '../types';

export function reservedRefFinding(update: RefUpdate, identity: string | null): Finding | null {
  if (!update.ref.startsWith(RESERVED_PREFIX)) return null;
  const action = update.old === ZERO_OID ? 'creates' : update.new === ZERO_OID ? 'deletes' : 'moves';
  return finding('REF_RESERVED', {
    ref: update.ref,
    commit: update.new === ZERO_OID ? update.old : update.new,
    message: `${action} ${update.ref} as ${identity ?? 'nobody'}: refs under ${RESERVED_PREFIX} are written only by the server's receipt-gate hook (the signed push log), never by a push`,
    fix: `drop ${update.ref} from the push (fetch it, never push it); nobody, owners included, may write it`,
  });
}
