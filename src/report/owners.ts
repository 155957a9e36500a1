// Who may change what the policy protects, said the same way everywhere.

/** The owners as one phrase; a policy with none says so. */
export function ownersText(owners: readonly string[] | null | undefined): string {
  return owners && owners.length ? owners.join(', ') : 'nobody (the policy lists no owners)';
}
