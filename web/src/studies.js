// The studies beside a solve: transient curves (`mmt solve --at`), response-time
// distributions (`--percentiles`, `--cdf-at`), the exponential-versus-constant comparison
// (`mmt compare`), contracts (`mmt contract`) and mapping exploration (`mmt explore`).
import {drawPlot} from './plot.js';
import {element, table} from './dom.js';
import {shortNumber} from './format.js';

/**
 * The number at `path` of a results tree ("application.throughput",
 * "processors.P1.utilization"); element names may hold dots, the longest that fits is taken.
 */
export function lookup(tree, path) {
  const dot = path.indexOf('.');
  if (dot < 0 || !tree) return undefined;
  const section = tree[path.slice(0, dot)];
  const rest = path.slice(dot + 1);
  if (!section || typeof section !== 'object') return undefined;
  if (typeof section[rest] === 'number') return section[rest];
  let best = null;
  for (const name of Object.keys(section))
    if (rest.startsWith(name + '.') && (!best || name.length > best.length)) best = name;
  return best ? section[best][rest.slice(best.length + 1)] : undefined;
}

/** The values from..to in `count` equal steps. */
export function evenTimes(from, to, count) {
  const out = [];
  for (let i = 0; i < count; ++i) out.push(Number((from + (to - from) * i / Math.max(1, count - 1)).toPrecision(12)));
  return out;
}

/** Transient curves: `metric` at each time of `solution.transient`, its steady state dashed. */
export function renderTransient(solution, metric, plotContainer, tableContainer) {
  const points = solution.transient || [];
  const xs = points.map((p) => p.time);
  const ys = points.map((p) => lookup(p, metric) ?? null);
  const steady = lookup(solution, metric);
  const series = [{label: metric, values: ys}];
  if (typeof steady === 'number') series.push({label: 'steady state', values: xs.map(() => steady), dashed: true});
  drawPlot(plotContainer, xs, series, {xLabel: 't', yLabel: metric});
  tableContainer.replaceChildren(table(['t', metric], xs.map((t, i) => [shortNumber(t), ys[i] == null ? '' : shortNumber(ys[i])]), 'results transient'));
}

/** Response-time distributions: the CDF of the element chosen with its percentiles marked, and a table of all. */
export function renderPassages(solution, chosen, plotContainer, tableContainer) {
  const block = solution.response_time_distributions;
  const distributions = (block && block.distributions) || [];
  const d = distributions.find((x) => `${x.section}.${x.element}` === chosen) || distributions[0];
  tableContainer.replaceChildren();
  if (!d) {
    plotContainer.replaceChildren(element('p', (block && block.note) || 'no response-time distribution for this model'));
    return;
  }
  // The percentiles are points of the curve too: F(t_p) = p / 100.
  const points = [...d.cdf.map((c) => [c.time, c.probability, null]),
    ...d.percentiles.map((p) => [p.time, p.percentile / 100, p.percentile / 100])].sort((a, b) => a[0] - b[0]);
  const xs = points.map((p) => p[0]);
  drawPlot(plotContainer, xs, [{label: `F(t), ${d.section} ${d.element}`, values: points.map((p) => p[1])},
    {label: 'percentiles', values: points.map((p) => p[2]), pointsOnly: true}], {xLabel: 't', yLabel: 'P(response time ≤ t)'});
  plotContainer.dataset.points = String(d.cdf.length);
  const percentiles = d.percentiles.map((p) => p.percentile);
  tableContainer.append(table(['section', 'element', 'mean', ...percentiles.map((p) => `p${p}`)],
    distributions.map((x) => [x.section, x.element, shortNumber(x.mean),
      ...x.percentiles.map((p) => element('td', shortNumber(p.time), {'data-element': x.element, 'data-percentile': String(p.percentile)}))]),
    'results passages'));
  tableContainer.append(element('p', `${block.method}, error bound ${shortNumber(block.error_bound)}`, {class: 'summary'}));
}

function interval(x) {
  if (!x || typeof x !== 'object') return '';
  return `${shortNumber(x.mean)} ± ${shortNumber(x.half_width)}`;
}

/** `mmt compare`'s tables: each number exact, simulated with exponential and with constant delays. */
export function renderComparison(comparison, container) {
  container.replaceChildren();
  const skip = new Set(['schema', 'system', 'net', 'exact', 'simulations', 'constant_exact', 'outside_exponential_interval']);
  const kinds = Object.keys(comparison.simulations || {});
  const exactConstant = comparison.constant_exact && !comparison.constant_exact.unavailable;
  const headings = ['element', 'metric', 'exact', ...(exactConstant ? ['constant, exact'] : []), ...kinds];
  for (const [section, content] of Object.entries(comparison)) {
    if (skip.has(section) || !content || typeof content !== 'object') continue;
    const rows = [];
    const cellsOf = (name, metric, cell) => {
      const cells = [name, metric.replaceAll('_', ' '), shortNumber(cell.exact)];
      if (exactConstant) cells.push(cell.constant_exact === undefined ? '' : shortNumber(cell.constant_exact));
      for (const k of kinds) cells.push(interval(cell[k]));
      return cells;
    };
    for (const [name, value] of Object.entries(content)) {
      if (value && 'exact' in value) rows.push([cellsOf('', name, value), value.outside]);
      else for (const [metric, cell] of Object.entries(value || {})) rows.push([cellsOf(name, metric, cell), cell.outside]);
    }
    container.append(element('h3', section));
    const t = table(headings, rows.map(([cells]) => cells), 'results comparison');
    [...t.tBodies[0].rows].forEach((row, i) => row.classList.toggle('outside', !!rows[i][1]));
    container.append(t);
  }
  const unavailable = comparison.constant_exact && comparison.constant_exact.unavailable;
  if (unavailable) container.append(element('p', unavailable, {class: 'summary'}));
  container.prepend(element('p', 'Rows marked ! have an exact value outside the exponential simulation\'s interval.', {class: 'summary'}));
}

/** `mmt contract`'s answer and tries. */
export function renderContract(result, container) {
  container.replaceChildren();
  const r = result.requirement;
  const answer = result.answer
    ? `answer: ${result.parameter} = ${shortNumber(result.answer.value)} (${r.metric} = ${shortNumber(result.answer.metric)})`
    : result.impossible ? `no value of ${result.parameter} can meet ${r.metric} ${r.op} ${shortNumber(r.value)}`
      : `no value of ${result.parameter} tried meets ${r.metric} ${r.op} ${shortNumber(r.value)}`;
  container.append(element('p', answer, {id: 'contract-answer', class: 'answer'}));
  container.append(table([result.parameter, r.metric, 'method', 'markings', 'met'],
    result.tries.map((t) => [shortNumber(t.value), t.metric === undefined || t.metric === null ? (t.reason || '') : shortNumber(t.metric),
      t.method || '', t.tangible_markings === undefined ? '' : String(t.tangible_markings), t.met ? 'yes' : 'no']), 'results tries'));
  const d = result.diagnosis;
  if (d) {
    const why = element('div', undefined, {id: 'contract-diagnosis', class: 'diagnosis'});
    why.append(element('p', `why: ${d.reason}`));
    for (const b of d.bottleneck || [])
      why.append(element('p', `bottleneck: ${b.element} on ${b.processor}, ${shortNumber(b.service_time)} per item` +
        (b.shared_with && b.shared_with.length ? `, sharing it with ${b.shared_with.join(', ')}` : '')));
    if ((d.suggestions || []).length) {
      why.append(element('p', 'what would help:'));
      const list = element('ul');
      for (const s of d.suggestions) list.append(element('li', s.text));
      why.append(list);
    }
    container.append(why);
  }
}

/** `mmt explore`'s ranking. */
export function renderExploration(result, container) {
  container.replaceChildren();
  const mapping = (m) => Object.entries(m || {}).map(([task, processor]) => `${task}→${processor}`).join(' ');
  container.append(element('p', `${result.ranking.length} mappings ranked by ${result.metric} (${result.order})`, {class: 'summary'}));
  container.append(table(['rank', 'mapping', result.metric, 'markings'],
    result.ranking.map((e) => [String(e.rank), mapping(e.mapping), e.metric == null ? (e.reason || e.status || '') : shortNumber(e.metric),
      e.states ? String(e.states.tangible) : '']), 'results ranking'));
}
