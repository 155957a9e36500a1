// The client hooks' outcome (pre-commit, pre-push): the terminal form on stderr, where git
// shows hook output, and the machine line last, so an agent can adapt to a rejection, a hold
// or a notice without parsing prose.

import { machineLine, type MachineInput } from './machine';
import { renderText } from './text';

export function clientOutcomeText(result: MachineInput, header: string): string {
  return `${renderText({ verdict: result.verdict, findings: result.findings, header })}${machineLine(result)}\n`;
}
