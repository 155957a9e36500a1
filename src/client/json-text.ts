// Edits a JSON document's text in place, keeping everything it does not change byte for byte:
// its indentation (spaces or tabs, and how wide), its members' order, one-line or spread-out
// objects. Used by `policy enable` on a policy that already parsed (a valid document): a member
// is set by replacing its value's text, or inserted beside its siblings in their layout.

export interface JsonNode {
  kind: 'object' | 'array' | 'scalar';
  start: number;
  end: number;
  members: { key: string; keyStart: number; value: JsonNode }[];
  items: JsonNode[];
}

/** The document's top-level value and its members' spans. Throws on text that is not JSON. */
export function parseSpans(text: string): JsonNode {
  let at = 0;
  const ws = () => {
    while (at < text.length && /[ \t\r\n]/.test(text[at]!)) at++;
  };
  const str = (): string => {
    const start = at;
    at++;
    while (text[at] !== '"') {
      if (at >= text.length) throw new Error('unterminated string');
      at += text[at] === '\\' ? 2 : 1;
    }
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (): JsonNode => {
    ws();
    const start = at;
    const node: JsonNode = { kind: 'scalar', start, end: start, members: [], items: [] };
    const c = text[at];
    if (c === '{' || c === '[') {
      node.kind = c === '{' ? 'object' : 'array';
      at++;
      ws();
      const close = c === '{' ? '}' : ']';
      while (text[at] !== close) {
        if (at >= text.length) throw new Error('unterminated container');
        if (node.kind === 'object') {
          ws();
          const keyStart = at;
          const key = str();
          ws();
          if (text[at] !== ':') throw new Error(`expected ':' at ${at}`);
          at++;
          node.members.push({ key, keyStart, value: value() });
        } else {
          node.items.push(value());
        }
        ws();
        if (text[at] === ',') at++;
        ws();
      }
      at++;
    } else if (c === '"') {
      str();
    } else {
      while (at < text.length && !/[\s,\]}]/.test(text[at]!)) at++;
      if (at === start) throw new Error(`unexpected character at ${at}`);
    }
    node.end = at;
    return node;
  };
  return value();
}

/** The last member named `key` (the one Python's json.loads keeps), or undefined. */
export function memberOf(node: JsonNode, key: string): { key: string; keyStart: number; value: JsonNode } | undefined {
  return [...node.members].reverse().find((m) => m.key === key);
}

/** The whitespace at the start of the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** One indentation step of the document: its first indented line's, else two spaces. */
function indentUnit(text: string): string {
  return /\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
}

/** `value` written as the document writes its siblings: spread out with the document's
 * indentation when `object` spreads its members over lines, else on one line (`{"a": 1}`, or
 * `{ "a": 1 }` when the document pads its braces). */
function valueText(text: string, object: JsonNode, value: unknown, memberIndent: string): string {
  const spread = object.members.length === 0 ? text.slice(object.start, object.end).includes('\n') : text.slice(object.start, object.members[0]!.keyStart).includes('\n');
  if (spread) {
    // A sibling object written on one line sets the style for small objects.
    const oneLine = object.members.find((m) => m.value.kind === 'object' && !text.slice(m.value.start, m.value.end).includes('\n'));
    if (oneLine === undefined) return JSON.stringify(value, null, indentUnit(text)).split('\n').join(`\n${memberIndent}`);
    return compact(value, /^\{ /.test(text.slice(oneLine.value.start, oneLine.value.end)));
  }
  return compact(value, /^\{ /.test(text.slice(object.start, object.end)));
}

function compact(value: unknown, padded: boolean): string {
  if (Array.isArray(value)) return `[${value.map((v) => compact(v, padded)).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${JSON.stringify(k)}: ${compact(v, padded)}`);
    if (members.length === 0) return '{}';
    return padded ? `{ ${members.join(', ')} }` : `{${members.join(', ')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Sets member `key` of `object` to `value`: its value's text is replaced when the member is
 * there; else the member is inserted before the first sibling that `order` places after it
 * (at the end when none), with the separator and indentation its siblings have.
 */
export function setMember(text: string, object: JsonNode, key: string, value: unknown, order: readonly string[] = []): string {
  const existing = memberOf(object, key);
  if (existing !== undefined) {
    const indent = lineIndent(text, existing.keyStart);
    return text.slice(0, existing.value.start) + valueText(text, object, value, indent) + text.slice(existing.value.end);
  }
  const rank = (k: string) => (order.indexOf(k) < 0 ? order.length : order.indexOf(k));
  const before = object.members.find((m) => rank(m.key) > rank(key) && rank(key) < order.length);
  if (object.members.length === 0) {
    const inner = `${JSON.stringify(key)}: ${valueText(text, object, value, '')}`;
    return text.slice(0, object.start + 1) + inner + text.slice(object.end - 1);
  }
  if (before !== undefined) {
    const i = object.members.indexOf(before);
    const prevEnd = i === 0 ? object.start + 1 : object.members[i - 1]!.value.end;
    // The separator before `before` (", " or ",\n  "), without its comma.
    const sep = text.slice(prevEnd, before.keyStart).replace(/^\s*,/, '');
    const indent = lineIndent(text, before.keyStart);
    const member = `${JSON.stringify(key)}: ${valueText(text, object, value, indent)}`;
    return `${text.slice(0, before.keyStart)}${member},${sep}${text.slice(before.keyStart)}`;
  }
  const last = object.members[object.members.length - 1]!;
  const prevEnd = object.members.length > 1 ? object.members[object.members.length - 2]!.value.end : object.start + 1;
  const sep = text.slice(prevEnd, last.keyStart).replace(/^\s*,/, '');
  const indent = lineIndent(text, last.keyStart);
  const member = `${JSON.stringify(key)}: ${valueText(text, object, value, indent)}`;
  return `${text.slice(0, last.value.end)},${sep === '' ? ' ' : sep}${member}${text.slice(last.value.end)}`;
}
