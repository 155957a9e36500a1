// Turns measured runs into the benchmark's summary rows and its Markdown table.

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function stats(runs) {
  const wall = runs.map((r) => r.wallMs);
  const rss = runs.map((r) => r.rssKb / 1024);
  const push = runs.map((r) => r.pushMs).filter((x) => x !== null);
  return {
    runs,
    medianMs: median(wall),
    minMs: Math.min(...wall),
    maxMs: Math.max(...wall),
    rssMedianMb: median(rss),
    rssMaxMb: Math.max(...rss),
    cpuMedianMs: median(runs.map((r) => r.cpuMs)),
    pushMedianMs: push.length ? median(push) : null,
    exits: [...new Set(runs.map((r) => r.exit))],
    allAccepted: runs.every((r) => r.accepted),
    verdict: mostCommon(runs.map((r) => r.verdict ?? (r.accepted ? 'accepted' : 'rejected'))),
    verdicts: [...new Set(runs.map((r) => r.verdict ?? (r.accepted ? 'accepted' : 'rejected')))],
    output: runs.find((r) => r.output)?.output ?? '',
  };
}

function mostCommon(xs) {
  const counts = new Map();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

/**
 * The targets for a scenario (issue 12, set for the 100,000-file repository and applied to
 * every one): wall (ms), wall above the node-only hook (ms), ratio to the git CLI reference,
 * peak RSS (MB); null where none is set.
 */
export function targetFor(s) {
  const none = { wallMs: null, overNodeMs: null, ratio: null, rssMb: null };
  if (s.adversarial) return none;
  if (s.kind === 'push' && s.commits <= 1) return { ...none, overNodeMs: 50, ratio: 4.5, rssMb: 100 };
  if (s.kind === 'push' && s.commits <= 20) return { ...none, overNodeMs: 80, ratio: 4.5, rssMb: 100 };
  if (s.kind === 'push') return { ...none, wallMs: 1200 };
  if (s.kind === 'verify-ref') return { ...none, wallMs: 1000 };
  return none;
}

export function summarise(s, runs) {
  const gate = stats(runs.gate);
  const reference = stats(runs.reference);
  const node = stats(runs.node);
  const target = targetFor(s);
  const overNodeMs = gate.medianMs - node.medianMs;
  const ratio = gate.medianMs / reference.medianMs;
  const hasTarget = Object.values(target).some((x) => x !== null);
  const met = hasTarget
    ? gate.allAccepted &&
      (target.wallMs === null || gate.medianMs <= target.wallMs) &&
      (target.overNodeMs === null || overNodeMs <= target.overNodeMs) &&
      (target.ratio === null || ratio <= target.ratio) &&
      (target.rssMb === null || gate.rssMaxMb <= target.rssMb)
    : null;
  // Adversarial pushes: the verdict must come within limits.timeoutMs + 250 ms of the start.
  const limitMs = s.adversarial ? s.timeoutMs + 250 : null;
  return {
    id: s.id,
    kind: s.kind,
    adversarial: Boolean(s.adversarial),
    label: s.label ?? null,
    repo: s.repo,
    commits: s.commits,
    curve: s.curve ?? null,
    facts: s.facts,
    gate,
    reference,
    node,
    overNodeMs,
    ratio,
    target,
    met,
    timeoutMs: s.timeoutMs ?? null,
    limitMs,
    inTime: limitMs === null ? null : gate.runs.every((r) => r.wallMs <= limitMs),
  };
}

/** A JSON scenario's row: pyjson against CPython, medians of cold runs. */
export function summariseJson(s, runs) {
  const side = (rs) => ({
    runs: rs,
    medianMs: median(rs.map((r) => r.totalMs)),
    parseMedianMs: median(rs.map((r) => r.parseMs)),
    dumpMedianMs: median(rs.map((r) => r.dumpMs)),
    minMs: Math.min(...rs.map((r) => r.totalMs)),
    maxMs: Math.max(...rs.map((r) => r.totalMs)),
  });
  const pyjson = side(runs.pyjson);
  const python = side(runs.python);
  const digests = new Set([...runs.pyjson, ...runs.python].map((r) => r.sha256));
  return { id: s.id, label: s.label, bytes: s.bytes ?? null, pyjson, python, ratio: pyjson.medianMs / python.medianMs, sameDigest: digests.size === 1, targetMs: 150, met: digests.size === 1 && pyjson.medianMs < 150 };
}

const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const mb = (x) => x.toFixed(0);
const range = (st) => `${ms(st.medianMs)} (${ms(st.minMs)}–${ms(st.maxMs)})`;
const mbytes = (b) => (b >= 1e9 ? `${(b / 1e9).toFixed(2)} GB` : `${(b / 1e6).toFixed(1)} MB`);

function targetText(t) {
  const parts = [];
  if (t.wallMs !== null) parts.push(`≤ ${t.wallMs} ms`);
  if (t.overNodeMs !== null) parts.push(`node + ${t.overNodeMs} ms`);
  if (t.ratio !== null) parts.push(`≤ ${t.ratio}× ref`);
  if (t.rssMb !== null) parts.push(`≤ ${t.rssMb} MB`);
  return parts.length ? parts.join(', ') : '—';
}

function verdictText(st) {
  const v = st.verdicts.join(' / ');
  if (st.allAccepted) return `accepted${v && v !== 'accepted' ? ` (${v})` : ''}`;
  return `REJECTED (${v}; exit ${st.exits.join('/')})`;
}

/** A table cell's text: a `|` would end the cell. */
const cell = (text) => text.replace(/\|/g, '\\|');

function scenarioText(r) {
  if (r.label) return cell(r.label);
  if (r.kind === 'push') return `push ${r.commits} commit${r.commits === 1 ? '' : 's'}`;
  if (r.kind === 'verify-ref') return `verify-ref ${r.commits} commits`;
  return 'pre-commit (3 staged files)';
}

export function renderMarkdown(report) {
  const m = report.machine;
  const out = [];
  out.push(`## receipt-gate benchmark${report.smoke ? ' (smoke)' : ''}, ${report.date.slice(0, 16).replace('T', ' ')} UTC`);
  out.push('');
  out.push(`Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.kernel}; Node ${m.node}; ${m.git}; ${m.python}.`);
  out.push(`Command: \`${report.command}\` (${report.runs} measured runs per hook and scenario, interleaved; seed ${report.seed}; clock ${report.today}; ${report.seconds} s in all).`);
  out.push('');
  out.push('### Repositories');
  out.push('');
  out.push('| repository | commits | refs | files at HEAD | objects | pack |');
  out.push('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of report.repos) {
    const f = r.facts;
    out.push(`| ${r.name} | ${f.commits} | ${f.refs} | ${f.trackedFiles} | ${f.objects} | ${mbytes(f.packBytes)} |`);
  }
  out.push('');
  const regular = report.scenarios.filter((r) => !r.adversarial);
  if (regular.length) {
    out.push('### Hook wall time and peak RSS (gate vs. git CLI reference and a node-only hook)');
    out.push('');
    out.push('| scenario | repository | gate ms, median (min–max) | gate MB, median (max) | node-only ms, median | gate − node ms | gate − node, CPU ms | reference ms, median (min–max) | reference MB, median | gate / reference | target | met | gate verdict |');
    out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |');
    for (const r of regular) {
      out.push(
        `| ${scenarioText(r)} | ${r.repo} | ${range(r.gate)} | ${mb(r.gate.rssMedianMb)} (${mb(r.gate.rssMaxMb)}) | ${ms(r.node.medianMs)} | ${ms(r.overNodeMs)} | ${ms(r.gate.cpuMedianMs - r.node.cpuMedianMs)} | ${range(r.reference)} | ${mb(r.reference.rssMedianMb)} | ${r.ratio.toFixed(2)} | ${targetText(r.target)} | ${r.met === null ? '—' : r.met ? 'yes' : 'no'} | ${verdictText(r.gate)} |`,
      );
    }
  }
  const adversarial = report.scenarios.filter((r) => r.adversarial);
  if (adversarial.length) {
    out.push('');
    out.push('### Adversarial pushes (the verdict must come within limits.timeoutMs + 250 ms)');
    out.push('');
    out.push('| id | scenario | timeoutMs | gate ms, median (min–max) | gate MB, median (max) | node-only ms | gate − node ms | reference ms, median | gate verdict | within timeoutMs + 250 |');
    out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
    for (const r of adversarial) {
      out.push(
        `| ${r.id} | ${scenarioText(r)} | ${r.timeoutMs} | ${range(r.gate)} | ${mb(r.gate.rssMedianMb)} (${mb(r.gate.rssMaxMb)}) | ${ms(r.node.medianMs)} | ${ms(r.overNodeMs)} | ${ms(r.reference.medianMs)} | ${cell(r.gate.verdicts.join(' / '))} | ${r.inTime ? 'yes' : `**no** (limit ${r.limitMs} ms)`} |`,
      );
    }
  }
  const jsonRows = report.json ?? [];
  if (jsonRows.length) {
    out.push('');
    out.push('### Python-exact JSON (src/evidence/pyjson.ts) against CPython, parse + canonical dump, cold process per run');
    out.push('');
    out.push('| document | pyjson ms, median (min–max) | parse / dump ms | CPython ms, median | parse / dump ms | pyjson / CPython | same SHA-256 of the dump | < 150 ms |');
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |');
    for (const r of jsonRows) {
      out.push(
        `| ${r.label} | ${ms(r.pyjson.medianMs)} (${ms(r.pyjson.minMs)}–${ms(r.pyjson.maxMs)}) | ${ms(r.pyjson.parseMedianMs)} / ${ms(r.pyjson.dumpMedianMs)} | ${ms(r.python.medianMs)} | ${ms(r.python.parseMedianMs)} / ${ms(r.python.dumpMedianMs)} | ${r.ratio.toFixed(2)} | ${r.sameDigest ? 'yes' : '**NO**'} | ${r.met ? 'yes' : 'no'} |`,
      );
    }
  }
  const curve = (kind, title, col) => {
    const rows = report.scenarios.filter((r) => r.curve === kind || (kind === 'refs' && r.curve === 'size' && report.scenarios.some((x) => x.curve === 'refs' && x.repo.startsWith(r.repo))));
    if (rows.length < 2) return;
    rows.sort((a, b) => col(a) - col(b));
    out.push('');
    out.push(title);
    out.push('');
    out.push('| repository | objects | pack | refs | gate ms, median | gate MB, median | reference ms, median |');
    out.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const r of rows) {
      out.push(`| ${r.repo} | ${r.facts.objects} | ${mbytes(r.facts.packBytes)} | ${r.facts.refs} | ${ms(r.gate.medianMs)} | ${mb(r.gate.rssMedianMb)} | ${ms(r.reference.medianMs)} |`);
    }
  };
  curve('size', '### The same 1-commit push, by repository size', (r) => r.facts.packBytes);
  curve('refs', '### The same 1-commit push, by ref count', (r) => r.facts.refs);
  const rejected = report.scenarios.filter((r) => !r.adversarial && !r.gate.allAccepted);
  if (rejected.length) {
    out.push('');
    out.push('### Rejections (the gate should accept every benchmark push: a non-owner touching no protected path)');
    out.push('');
    for (const r of rejected) out.push(`- ${r.id}: ${r.gate.output.split('\n').join(' / ')}`);
  }
  out.push('');
  return out.join('\n');
}
