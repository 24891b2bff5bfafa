// A sweep of one parameter: its points plotted (values on hover), listed, and offered as
// CSV, as `mmt sweep` writes it.
import {drawPlot} from './plot.js';
import {shortNumber} from './format.js';

/** The values from..to by step (at most 10,000), as `mmt sweep -p x=a..b:s` takes them. */
export function sweepValues(from, to, step) {
  const out = [];
  if (!(step > 0) || !(to >= from)) return out;
  for (let k = 0; from + k * step <= to + step * 1e-9 && out.length <= 10000; ++k)
    out.push(Number((from + k * step).toPrecision(12)));
  return out;
}

function csvOf(result) {
  const names = Object.keys(result.parameters);
  const lines = [[...names, 'status', ...result.metrics].join(',')];
  for (const point of result.points)
    lines.push([...names.map((n) => point.parameters[n]), point.status,
      ...result.metrics.map((m) => (point.results || {})[m] ?? '')].join(','));
  return lines.join('\n') + '\n';
}

/** Shows `result` (the JSON of `mmt sweep`) in the plot, the table and the CSV link. */
export function renderSweep(result, plotContainer, table, csvLink) {
  const name = Object.keys(result.parameters)[0];
  const metric = result.metrics[0];
  const xs = result.points.map((p) => p.parameters[name]);
  const ys = result.points.map((p) => (p.status === 'ok' ? (p.results || {})[metric] ?? null : null));
  drawPlot(plotContainer, xs, [{label: metric, values: ys}], {xLabel: name, yLabel: metric});
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const title of [name, 'status', metric]) head.insertCell().textContent = title;
  const body = table.createTBody();
  result.points.forEach((point, i) => {
    const row = body.insertRow();
    row.className = 'point';
    row.insertCell().textContent = shortNumber(xs[i]);
    row.insertCell().textContent = point.status === 'ok' ? 'ok' : point.reason || point.status;
    row.insertCell().textContent = ys[i] == null ? '' : shortNumber(ys[i]);
  });
  if (csvLink.href) URL.revokeObjectURL(csvLink.href);
  csvLink.href = URL.createObjectURL(new Blob([csvOf(result)], {type: 'text/csv'}));
  csvLink.hidden = false;
}
