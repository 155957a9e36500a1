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
    output: runs.find((r) => r.output)?.output ?? '',
  };
}

/** The targets for a scenario: wall (ms) and peak RSS (MB), null where none is set. */
export function targetFor(s) {
  if (s.kind === 'push') return s.commits <= 20 ? { wallMs: 200, rssMb: 100 } : { wallMs: 2500, rssMb: 150 };
  if (s.kind === 'verify-ref') return { wallMs: 2000, rssMb: null };
  return { wallMs: null, rssMb: null };
}

export function summarise(s, runs) {
  const gate = stats(runs.gate);
  const reference = stats(runs.reference);
  const target = targetFor(s);
  const hasTarget = target.wallMs !== null || target.rssMb !== null;
  const met = hasTarget
    ? gate.allAccepted &&
      (target.wallMs === null || gate.medianMs <= target.wallMs) &&
      (target.rssMb === null || gate.rssMaxMb <= target.rssMb)
    : null;
  return {
    id: s.id,
    kind: s.kind,
    repo: s.repo,
    commits: s.commits,
    curve: s.curve ?? null,
    facts: s.facts,
    gate,
    reference,
    ratio: gate.medianMs / reference.medianMs,
    target,
    met,
  };
}

const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const mb = (x) => x.toFixed(0);
const range = (st) => `${ms(st.medianMs)} (${ms(st.minMs)}–${ms(st.maxMs)})`;
const mbytes = (b) => (b >= 1e9 ? `${(b / 1e9).toFixed(2)} GB` : `${(b / 1e6).toFixed(1)} MB`);

function targetText(t) {
  const parts = [];
  if (t.wallMs !== null) parts.push(`≤ ${t.wallMs} ms`);
  if (t.rssMb !== null) parts.push(`≤ ${t.rssMb} MB`);
  return parts.length ? parts.join(', ') : '—';
}

function verdictText(st) {
  if (st.allAccepted) return 'accepted';
  return `REJECTED (exit ${st.exits.join('/')})`;
}

function scenarioText(r) {
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
  out.push('### Hook wall time and peak RSS (gate vs. git CLI reference)');
  out.push('');
  out.push('| scenario | repository | gate ms, median (min–max) | gate MB, median (max) | reference ms, median (min–max) | reference MB, median | gate / reference | target | met | gate verdict |');
  out.push('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |');
  for (const r of report.scenarios) {
    out.push(
      `| ${scenarioText(r)} | ${r.repo} | ${range(r.gate)} | ${mb(r.gate.rssMedianMb)} (${mb(r.gate.rssMaxMb)}) | ${range(r.reference)} | ${mb(r.reference.rssMedianMb)} | ${r.ratio.toFixed(2)} | ${targetText(r.target)} | ${r.met === null ? '—' : r.met ? 'yes' : 'no'} | ${verdictText(r.gate)} |`,
    );
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
  const rejected = report.scenarios.filter((r) => !r.gate.allAccepted);
  if (rejected.length) {
    out.push('');
    out.push('### Rejections (the gate should accept every benchmark push: a non-owner touching no protected path)');
    out.push('');
    for (const r of rejected) out.push(`- ${r.id}: ${r.gate.output.split('\n').join(' / ')}`);
  }
  out.push('');
  return out.join('\n');
}
