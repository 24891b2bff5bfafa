// Line plots (uPlot) with the values under the cursor: the sweeps, the transient curves
// and the response-time distributions.
import uPlot from 'uplot';
import {shortNumber} from './format.js';

const colours = ['#c0392b', '#2471a3', '#1e8449', '#7d3c98', '#b9770e'];
const plots = new WeakMap();  // container → its plot

/**
 * Draws `series` ([{label, values, dashed?, pointsOnly?}]) against `xs` into `container`,
 * replacing what was there; `container.dataset.points` holds the number of x values.
 */
export function drawPlot(container, xs, series, {xLabel, yLabel}) {
  if (plots.has(container)) plots.get(container).destroy();
  container.replaceChildren();
  container.dataset.points = String(xs.length);
  const value = (u, v) => (v == null ? '' : shortNumber(v));
  const plot = new uPlot({
    width: Math.max(320, container.clientWidth || 520), height: 300,
    scales: {x: {time: false}},
    axes: [{label: xLabel}, {label: yLabel, size: 70}],
    series: [{label: xLabel, value}, ...series.map((s, i) => ({
      label: s.label, value, stroke: colours[i % colours.length], width: s.pointsOnly ? 0 : 2,
      dash: s.dashed ? [6, 4] : undefined, points: {show: true, size: s.pointsOnly ? 9 : 5},
      ...(s.pointsOnly ? {paths: () => null} : {}),
    }))],
  }, [xs, ...series.map((s) => s.values)], container);
  plots.set(container, plot);
  return plot;
}
