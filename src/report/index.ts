// The report layer: every human and machine form of a result comes from here (terminal lines,
// the server's `remote:` text, JSON, SARIF, GitHub workflow commands, JUnit XML, the machine
// line, progress). Entries build an Outcome and pick a format; none formats findings itself.

export { compareCodePoints } from '../code-points';
export { sortFindings, sortedUnique } from './order';
export { findingsOutcome, identitiesOf, outcomeOf, type Outcome, type ResultLike } from './outcome';
export { findingLine, findingLines, findingPlace, renderText, sentence, verdictLine } from './text';
export { humanFix, humanMessage, oneLine } from './human';
export { plural, short, shortRef } from '../wording';
export { asciiJson, blockedPaths, machineLine, recommendedAction, type MachineInput } from './machine';
export { jsonFailure, jsonFinding, renderJson, toJson, type JsonFinding, type JsonOutput } from './json';
export { pathUri, renderSarif, sarifFailure, SARIF_SCHEMA_URI, toSarif } from './sarif';
export { escapeData, escapeProperty, githubFailure, toGithub } from './github';
export { junitFailure, toJunit, xmlText } from './junit';
export { FORMATS, formatOption, isFormat, renderFailure, renderOutcome, requestedFormat, type Format } from './format';
export { SetupError, type SetupFailure } from './failure';
export { remoteAnswer, remoteFindingLines, remoteLines, remoteText, withoutServerPaths, type MessageOptions, type RemoteAnswer } from './remote';
export { clientOutcomeText } from './client';
export { progress, type Progress, type ProgressTarget } from './progress';
export { ruleHelp, type RuleHelp } from './rules';
