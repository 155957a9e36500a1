// What each finding code means, for formats that describe their rules (SARIF's
// tool.driver.rules, JUnit's test names) and for `explain`. Wording follows docs/contract.md §2.

export interface RuleHelp {
  /** One line: what the rule closes on. */
  summary: string;
  /** What an owner or the author does about it. */
  help: string;
}

const RULES: Record<string, RuleHelp> = {
  PATH_PROTECTED: {
    summary: 'A non-owner changes a protected path (or the policy file).',
    help: 'Drop the change from every new commit (rewrite the branch rather than revert on top), or ask one of the policy\'s owners to make it.',
  },
  PATH_UNSAFE: {
    summary: 'A tree entry no checkout can write safely, or one git reads differently than a checkout would.',
    help: 'Remove the entry (a .git segment, ".", "..", an empty name, "\\" or NUL, a duplicate or misordered entry, a mode git fsck refuses); it is refused for every pusher.',
  },
  OBJECT_INVALID: {
    summary: 'A pushed commit or tag git cannot read, or one git fsck reports an error for (a second or misplaced tree line, a malformed parent, author, committer or tagger line, a NUL in the header, a tag whose type is not its object\'s).',
    help: 'Rewrite the object with git itself (commit or tag it again); it is refused for every pusher, owners too.',
  },
  POLICY_INVALID: {
    summary: 'The policy at the base, or the one the change leaves behind, fails its schema.',
    help: 'An owner commits a valid .receipt-gate.json (schemas/policy.schema.json) to the base branch.',
  },
  REF_PROTECTED: {
    summary: 'A non-owner deletes or rewrites (non-fast-forward) a protected ref, points it at something that is not a commit, or updates it through a protected symbolic ref.',
    help: 'Push a fast-forward (merge or rebase onto the protected ref); only an owner may rewrite or delete it.',
  },
  EPOCH_MISSING: { summary: 'The epoch pin, or the generator it names, is absent.', help: 'An owner restores the pin (receipt-gate epoch pin).' },
  EPOCH_INVALID: { summary: 'The epoch pin fails its schema.', help: 'An owner rewrites the pin with receipt-gate epoch pin.' },
  EPOCH_MISMATCH: {
    summary: 'The SHA-256 of the generator blob differs from the pin\'s generator_sha256.',
    help: 'Restore the generator, or have an owner pin a new epoch (receipt-gate epoch pin --id NEW).',
  },
  EPOCH_REWRITTEN: {
    summary: 'The pin keeps an epoch_id of the base but changes its digest.',
    help: 'A changed generator needs a new epoch_id; an owner pins one.',
  },
  MANIFEST_INVALID: { summary: 'The property manifest fails its schema.', help: 'An owner redraws it with receipt-gate manifest sample.' },
  MANIFEST_DIGEST: {
    summary: 'manifest_sha256 does not match the canonical digest of seed and properties.',
    help: 'An owner redraws the manifest with receipt-gate manifest sample.',
  },
  MANIFEST_SAMPLE: {
    summary: 'The manifest\'s properties are not the sampler\'s draw for its seed.',
    help: 'An owner redraws the manifest with receipt-gate manifest sample.',
  },
  FREEZE_INVALID: { summary: 'The freeze file fails its schema.', help: 'An owner fixes the freeze file (receipt-gate freeze list).' },
  FREEZE_REASON: { summary: 'A freeze gives a reason outside the policy\'s closed set.', help: 'An owner uses one of the policy\'s freeze reasons.' },
  FREEZE_WINDOW: {
    summary: 'A freeze window is longer than maxDays, or added is after expires.',
    help: 'An owner shortens the freeze to at most the policy\'s maxDays.',
  },
  FREEZE_EXPIRED: {
    summary: 'A freeze is expired (closes every push until an owner removes it).',
    help: 'An owner runs receipt-gate freeze prune, or fixes the test.',
  },
  FREEZE_ACTIVE: { summary: 'A valid, unexpired freeze.json row (listed, not blocking).', help: 'Nothing to do before it expires.' },
  FREEZE_HELD: {
    summary: 'A witnessed flake is frozen by a valid keyed freeze: protected refs wait for an owner.',
    help: 'An owner merges to the protected ref, or the flake is fixed.',
  },
  OBSERVATION_FAILED: { summary: 'An observation has status fail.', help: 'Fix the code so the property passes on the recorded seed.' },
  OBSERVATION_INVALID: {
    summary: 'An observation record is not valid (not JSON, schema problems, an id that is not its file name), or its folder is not a folder.',
    help: 'An owner records the observation again with receipt-gate observe.',
  },
  PROPERTIES_FAILED: {
    summary: 'receipt: the property command failed (a non-zero exit, a timeout, a signal) on the recorded seed.',
    help: 'Fix the code so the properties hold on the recorded seed; the properties and the seed stay as they are.',
  },
  OBSERVATION_EPOCH: {
    summary: 'An observation or keyed freeze names another epoch than the pin.',
    help: 'An owner re-observes on the pinned epoch.',
  },
  WITNESS_MISSING: { summary: 'An observation\'s witness (.bin) is absent.', help: 'An owner records the observation again with receipt-gate observe.' },
  WITNESS_MISMATCH: {
    summary: 'The SHA-256 of a witness differs from its observation\'s witness_sha256.',
    help: 'Restore the recorded witness bytes, or an owner records the observation again with receipt-gate observe.',
  },
  FREEZE_UNWITNESSED: {
    summary: 'A keyed freeze cites no observation, or one without rerun_passed.',
    help: 'An owner cites an observation that re-ran green on the pinned epoch (not an archived one).',
  },
  FLAKE_UNFROZEN: {
    summary: 'An observation with status flake that no valid keyed freeze cites.',
    help: 'An owner writes a keyed freeze with receipt-gate freeze add --observation ID --expires-on DATE --reason TEXT, or the flake is fixed.',
  },
  OBSERVATION_ARCHIVED: {
    summary: 'An observation whose keyed freeze was lifted (freeze lift): kept with its witness, hashed, not blocking.',
    help: 'Nothing to do; a new flake of the same test is recorded as a new observation.',
  },
  FIXTURE_INVALID: {
    summary: 'A fixture record is not a record: not JSON, not a regular file, or schema problems.',
    help: 'An owner rewrites it as {"id", "input", "sha256"} (schemas/fixture-record.schema.json).',
  },
  FIXTURE_PLACEHOLDER: { summary: 'A fixture record\'s digest is not a real SHA-256.', help: 'An owner records the real digest.' },
  FIXTURE_DIGEST: { summary: 'The bytes a fixture produces differ from its record.', help: 'Fix the code, or an owner re-records the fixture.' },
  LIMIT_EXCEEDED: {
    summary: 'An evidence file or blob is over its size limit, or the run passed limits.timeoutMs.',
    help: 'Push fewer commits at once, shrink the file, or an owner raises the limit in the policy.',
  },
  REF_NO_COMMIT: {
    summary: 'The ref names a tree or a blob: it brings no commit, so nothing is touched (not blocking).',
    help: 'Nothing to do.',
  },
  TRIALS_TOO_FEW: {
    summary: 'receipt: PROPERTY_TRIALS asks for fewer trials than the base policy\'s grader.minTrials; nothing is run.',
    help: 'Unset PROPERTY_TRIALS or raise it to the minimum; only an owner may lower grader.minTrials.',
  },
  REF_RESERVED: {
    summary: 'A push creates, moves or deletes a ref under refs/receipt-gate/ (the signed push log), which only the server writes.',
    help: 'Drop the ref from the push; nobody, owners included, pushes it (docs/push-log.md).',
  },
  LOG_GAP: {
    summary: 'A protected ref moved with no push-log entry: a gap between entries, or a tip the last entry does not name.',
    help: 'Find who moved the ref outside the gate (a direct update-ref, a push without the hook, a restored backup); restore the logged state or have an owner push it through the gate.',
  },
  LOG_FORKED: {
    summary: 'The push log is not one chain: a rewound, forked or re-sequenced log, or one that does not extend the last verified checkpoint.',
    help: 'Compare the log with a mirror that fetched it earlier; the server\'s log ref was rewritten outside the hook.',
  },
  LOG_SIGNATURE: {
    summary: 'A push-log entry whose signature fails with the given public key, or that is not a well-formed entry.',
    help: 'Never trust the entry; check the key (docs/push-log.md, key rotation) and how the log ref was written.',
  },
  LOG_UNGATED: {
    summary: 'A push-log entry records a move of a protected ref that the gate did not allow (an ungated update, or a verdict that rejects it).',
    help: 'The ref moved outside the gate: an owner reviews the commits and pushes the ref back through the gate.',
  },
  INTERNAL_ERROR: {
    summary: 'Something unexpected; the gate failed closed.',
    help: 'Fix the repository problem the message names, or report it with RECEIPT_GATE_DEBUG=1 output.',
  },
};

export function ruleHelp(code: string): RuleHelp {
  return RULES[code] ?? { summary: `receipt-gate rule ${code}.`, help: 'See the finding\'s fix.' };
}
