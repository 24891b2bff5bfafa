// The tables of `mmt solve` from its JSON (docs/json.md): a line of states and solver, then
// a table per section, one row per element and a column per metric, sortable by any column.
import {element} from './dom.js';
import {shortNumber, seconds} from './format.js';

const notSections = new Set(['schema', 'system', 'net', 'states', 'solver', 'parameters', 'picture', 'seconds', 'notes',
  'simulation', 'transient', 'response_time_distributions', 'deterministic', 'phases', 'absorption', 'no_steady_state',
  'population', 'meanfield', 'reference']);

/** A number, or a simulated one: {mean, half_width}. */
function isLeaf(value) {
  return typeof value !== 'object' || value === null || ('mean' in value && 'half_width' in value);
}

/** Rows of a section: [[element, {metric: value}]]; the application's one row has no name. */
function rowsOf(section) {
  const entries = Object.entries(section);
  if (entries.every(([, value]) => isLeaf(value))) return [['', section]];
  return entries;
}

function sortable(table, rows, metrics, section) {
  let order = {column: -1, ascending: true};
  const body = table.tBodies[0];
  const fill = () => {
    body.replaceChildren();
    const sorted = rows.slice();
    if (order.column >= 0) {
      const key = order.column === 0 ? ([name]) => name : ([, values]) => values[metrics[order.column - 1]];
      sorted.sort((a, b) => {
        const x = key(a), y = key(b);
        const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), undefined, {numeric: true});
        return order.ascending ? c : -c;
      });
    }
    for (const [name, values] of sorted) {
      const row = body.insertRow();
      row.append(element('th', name));
      for (const metric of metrics) {
        const value = values[metric];
        const text = value === undefined ? '' : typeof value === 'object' && value !== null ? shortNumber(value.mean) + ' ± ' + shortNumber(value.half_width) : shortNumber(value);
        row.append(element('td', text, {'data-section': section, 'data-element': name, 'data-metric': metric, title: String(value)}));
      }
    }
  };
  table.tHead.querySelectorAll('th').forEach((th, column) => th.addEventListener('click', () => {
    order = {column, ascending: order.column === column ? !order.ascending : true};
    table.tHead.querySelectorAll('th').forEach((h, c) => h.dataset.order = c === column ? (order.ascending ? 'up' : 'down') : '');
    fill();
  }));
  fill();
}

/** A table per section of the results tree `tree`, under headings `title(section)`; the
 * cells' data-section is `prefix` + the section. */
function renderSections(tree, container, prefix = '', title) {
  for (const [section, content] of Object.entries(tree)) {
    if (notSections.has(section) || typeof content !== 'object' || content === null) continue;
    const rows = rowsOf(content);
    if (!rows.length) continue;
    const metrics = [...new Set(rows.flatMap(([, values]) => Object.keys(values)))];
    // A heading that names a marking keeps its case.
    container.append(title ? element('h3', title(section), {class: 'named'}) : element('h3', section));
    const table = element('table', undefined, {class: 'results', 'data-section': prefix + section});
    const head = table.createTHead().insertRow();
    head.append(element('th', section === 'application' ? '' : 'element'));
    for (const metric of metrics) head.append(element('th', metric.replaceAll('_', ' ')));
    table.createTBody();
    container.append(table);
    sortable(table, rows, metrics, prefix + section);
  }
}

/** A chain that ends (docs/json.md, `absorption`): why, the time to absorption, the ends
 * with their probabilities, each bottom component's own steady state and the totals until
 * absorption. */
function renderAbsorption(absorption, container) {
  const time = absorption.time;
  container.append(element('p', `the chain ends: ${absorption.structure}. Time to absorption: mean ` +
    `${shortNumber(time.mean)}, standard deviation ${shortNumber(time.standard_deviation)}.`,
  {class: 'summary', id: 'absorption'}));
  const ends = {};
  for (const c of absorption.components)
    ends[`{${c.marking}}`] = {probability: c.probability, markings: c.markings, dead: c.dead ? 'yes' : 'no'};
  renderSections({ends}, container);
  absorption.components.forEach((c, i) => {
    if (c.results)
      renderSections(c.results, container, `component ${i + 1} `,
        (section) => `${section} in the bottom component of {${c.marking}}`);
  });
  if (absorption.accumulated)
    renderSections(absorption.accumulated, container, 'until absorption ', (section) => `${section} until absorption`);
}

/** Renders `solution` into `container`. */
export function renderTables(solution, container) {
  container.replaceChildren();
  const states = solution.states || {};
  const solver = solution.solver || {};
  const summary = element('p', solution.states ? `${states.tangible} tangible markings, ${states.edges} edges · ` +
    `${solver.method ?? (solver.absorption ? solver.absorption.method : '')}, residual ` +
    `${shortNumber(solver.residual ?? (solver.absorption ? solver.absorption.residual : 0), 3)} · ` +
    `${seconds(solution.seconds || 0)}` : '',
  {class: 'summary', id: 'summary'});
  container.append(summary);
  if (solution.absorption) renderAbsorption(solution.absorption, container);
  // A batch's metrics are averages over its run; a raw net's, each end weighted by its probability.
  const over = solution.application && 'makespan' in solution.application ? 'over the run' : 'in the long run';
  renderSections(solution, container, '', solution.absorption ? (section) => `${section} ${over}` : undefined);
}

/** The mean-field approximation's reference (docs/json.md, `reference`): each number's
 * distance from the exact answer at each size compared (or from the simulated mean), its
 * trend's exponent and its estimate at the asked size. */
function renderReference(reference, container) {
  if (!reference.method) {
    container.append(element('p', `no reference: ${reference.unavailable}`, {class: 'summary', id: 'reference'}));
    return;
  }
  const sizeName = (size) => Object.entries(size.parameters).map(([n, v]) => `${n} = ${shortNumber(v)}`).join(', ');
  const sizes = reference.method === 'exact at smaller sizes'
    ? ` at ${reference.sizes.map(sizeName).join('; ')}` : '';
  const farthest = reference.farthest.path
    ? `; farthest: ${reference.farthest.path}, ${shortNumber(100 * reference.farthest.distance, 3)} %` : '';
  container.append(element('p', `reference: ${reference.method}${sizes}${farthest}`, {class: 'summary', id: 'reference'}));
  const distances = {};
  for (const n of reference.numbers) {
    const row = {mean_field: n.mean_field};
    n.distances.forEach((d, i) => {
      const label = reference.sizes.length > 1 ? `distance at ${sizeName(reference.sizes[i])}` : 'distance';
      row[label] = d;
    });
    if (reference.sizes.length > 1) Object.assign(row, {exponent: n.exponent, estimate: n.estimate});
    distances[n.path] = row;
  }
  renderSections({distances}, container);
}

/** Renders a mean-field solution (`mmt solve --method mean-field --format json`) into
 * `container`: how the model became counts, the results, and the reference. */
export function renderMeanField(solution, container) {
  container.replaceChildren();
  const p = solution.population;
  const counts = p.replicas.map((r) => `${r.count} ${r.replica}`).join(', ');
  const m = solution.meanfield;
  container.append(element('p', `mean-field approximation of ${counts} beside ${p.discrete_markings} markings ` +
    `of the rest · residual ${shortNumber(m.residual, 3)}${m.kinks.length ? ' · at a critical load' : ''} · ` +
    `${seconds(solution.seconds || 0)}`, {class: 'summary', id: 'summary'}));
  for (const line of p.stands_for) container.append(element('p', line, {class: 'summary'}));
  renderSections(solution, container);
  if (solution.reference) renderReference(solution.reference, container);
}

/** Every number's path in `solution` ("application.throughput", "processors.P1.utilization"). */
export function metricPaths(solution) {
  const out = [];
  for (const [section, content] of Object.entries(solution)) {
    if (notSections.has(section) || typeof content !== 'object' || content === null) continue;
    for (const [name, value] of Object.entries(content)) {
      if (typeof value === 'number') out.push(`${section}.${name}`);
      else if (value && typeof value === 'object')
        for (const metric of Object.keys(value)) out.push(`${section}.${name}.${metric}`);
    }
  }
  return out;
}

/** The element named `name` in any section, with its section: [section, metrics] or null. */
export function findElement(solution, name) {
  for (const [section, content] of Object.entries(solution)) {
    if (notSections.has(section) || !content || typeof content !== 'object') continue;
    if (content[name] && typeof content[name] === 'object') return [section, content[name]];
  }
  return null;
}
