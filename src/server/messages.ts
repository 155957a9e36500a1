// The server's `remote:` text comes from the report layer (src/report/remote.ts); this module
// keeps the names the receive path imports.

export {
  decidePush,
  refOutcome,
  remoteFindingLines as findingLines,
  remoteText,
  type MessageOptions,
  type PushDecision,
  type RefOutcome,
} from '../report/remote';
