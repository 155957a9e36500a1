// Python-read values written back for people: json.dumps(v, indent=2) with members in their
// order (ensure_ascii, floats as Python's repr, integers of any size exact). Digests are never
// taken of this text: they are taken of the canonical form of the values it holds.

import { dumpsCanonical, type PyValue } from '../evidence/pyjson';

export function dumpsIndented(v: PyValue, indent = 2, level = 0): string {
  const pad = ' '.repeat(indent * (level + 1));
  const end = ' '.repeat(indent * level);
  if (v.t === 'list') {
    if (v.v.length === 0) return '[]';
    return `[\n${v.v.map((item) => pad + dumpsIndented(item, indent, level + 1)).join(',\n')}\n${end}]`;
  }
  if (v.t === 'dict') {
    if (v.v.size === 0) return '{}';
    const members = [...v.v].map(([key, value]) => `${pad}${dumpsCanonical({ t: 'str', v: key })}: ${dumpsIndented(value, indent, level + 1)}`);
    return `{\n${members.join(',\n')}\n${end}}`;
  }
  return dumpsCanonical(v);
}
