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

/** Shows `result` (the JSON of `mmt sweep`): against its first parameter, a curve per metric
 * and per value of the second parameter (if any); the points in a table, and as CSV. */
export function renderSweep(result, plotContainer, table, csvLink) {
  const names = Object.keys(result.parameters);
  const [x, by] = names;
  const xs = result.parameters[x];
  const series = [];
  for (const metric of result.metrics) {
    for (const b of by ? result.parameters[by] : [null]) {
      const values = xs.map((v) => {
        const p = result.points.find((q) => q.parameters[x] === v && (b === null || q.parameters[by] === b));
        return p && p.status === 'ok' ? (p.results || {})[metric] ?? null : null;
      });
      series.push({label: b === null ? metric : `${metric}, ${by} = ${shortNumber(b)}`, values});
    }
  }
  drawPlot(plotContainer, xs, series, {xLabel: x, yLabel: result.metrics.join(', ')});
  plotContainer.dataset.points = String(result.points.length);
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const title of [...names, 'status', ...result.metrics]) head.insertCell().textContent = title;
  const body = table.createTBody();
  for (const point of result.points) {
    const row = body.insertRow();
    row.className = 'point';
    for (const n of names) row.insertCell().textContent = shortNumber(point.parameters[n]);
    row.insertCell().textContent = point.status === 'ok' ? 'ok' : point.reason || point.status;
    for (const m of result.metrics) {
      const v = (point.results || {})[m];
      row.insertCell().textContent = v == null ? '' : shortNumber(v);
    }
  }
  if (csvLink.href) URL.revokeObjectURL(csvLink.href);
  csvLink.href = URL.createObjectURL(new Blob([csvOf(result)], {type: 'text/csv'}));
  csvLink.hidden = false;
}
