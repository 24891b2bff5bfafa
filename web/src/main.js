// The workbench page of `mmt serve` (docs/serve.md): files, an editor checked as the user
// types, the parameters, and every view of the answer, kept current by re-solving.
import {EditorView, basicSetup} from 'codemirror';
import {EditorState} from '@codemirror/state';
import {linter, lintGutter} from '@codemirror/lint';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import * as api from './api.js';
import {element} from './dom.js';
import {languageOf} from './language.js';
import {characterOffset, seconds, shortNumber} from './format.js';
import {renderMeanField, renderTables, metricPaths} from './tables.js';
import {renderPicture, renderNet, markNet} from './pictures.js';
import {renderSweep, sweepValues} from './sweep.js';
import {evenTimes, lookup, renderComparison, renderContract, renderExploration, renderPassages,
  renderTransient} from './studies.js';

const $ = (id) => document.getElementById(id);
const page = Math.random().toString(36).slice(2);  // this page's run channels

const state = {
  path: null, version: '', savedText: '', view: null,
  parameters: [], overrides: {}, solution: null, chosen: null,
  runs: new Map(),  // channel → AbortController of the run going there
};

function status(text, kind = '') {
  $('status').textContent = text;
  $('status').className = kind;
}

function refreshStop() {
  $('stop').disabled = state.runs.size === 0;
}

// ---- runs -------------------------------------------------------------------------------

/** Starts a run on `name` (interrupting the one before it there) and resolves its last event. */
async function startRun(name, body, onProgress) {
  const channel = `${page}:${name}`;
  if (state.runs.has(channel)) state.runs.get(channel).abort();
  const controller = new AbortController();
  state.runs.set(channel, controller);
  refreshStop();
  try {
    return await api.run({...body, channel}, (event) => {
      if (event.progress) onProgress(event.progress);
    }, controller.signal);
  } catch (error) {
    if (error.name === 'AbortError') return {failure: {kind: 'InterruptedError', headline: 'stopped'}};
    return {failure: {kind: 'Error', headline: String(error.message || error)}};
  } finally {
    if (state.runs.get(channel) === controller) state.runs.delete(channel);
    refreshStop();
  }
}

function stopAll() {
  clearTimeout(solveTimer);  // a solve waiting for its debounce does not start either
  for (const [channel, controller] of state.runs) {
    api.stop(channel);
    controller.abort();
  }
  state.runs.clear();
  refreshStop();
  status('stopped', 'warning');
}

function modelBody() {
  const known = new Set(state.parameters.map((p) => p.name));
  const parameters = Object.fromEntries(Object.entries(state.overrides).filter(([name]) => known.has(name)));
  return {path: state.path, text: state.view.state.doc.toString(), parameters};
}

function showFailure(failure) {
  if (failure.kind === 'InterruptedError') return status('stopped', 'warning');
  let text = failure.headline;
  if (failure.simulate) text += failure.mean_field
    ? ' — too large to solve exactly: count its replicas (mean-field) or simulate it instead'
    : ' — too large to solve exactly: simulate it instead';
  status(text, 'error');
  $('simulate').hidden = !failure.simulate;
  $('mean-field').hidden = !failure.mean_field;
  if ((failure.data || {}).diagnostics) showDiagnostics(failure.data.diagnostics);
}

/** Runs a study of `kind` on its own channel; `render` shows its result. */
async function runStudy(name, kind, options, render) {
  if (!state.path) return;
  status(`${name}…`, 'busy');
  const last = await startRun(name, {kind, ...modelBody(), options}, (line) => status(`${name}: ${line}`, 'busy'));
  if (!last) return;
  if (last.failure) return showFailure(last.failure);
  render(last.result);
  status(`${name}: done`, 'ok');
}

/** Simulates the model (past the state limit): the tables with a half-width per number. */
function simulate() {
  $('simulate').hidden = true;
  runStudy('simulation', 'simulate', {precision: 0.02, time_limit: 30}, (result) => {
    renderTables(result, $('tab-tables'));
    const s = result.simulation;
    $('summary').textContent = `simulated: ${s.replications} replications, ${s.events} events, ` +
      `${Math.round(100 * s.confidence)} % intervals · ${seconds(s.seconds)}`;
    chooseTab('tables');
  });
}

/** The mean-field approximation (past the state limit of a model with replicas): the
 * tables at the equilibrium, and each number's distance from its reference. */
function meanField() {
  $('simulate').hidden = $('mean-field').hidden = true;
  runStudy('mean-field', 'meanfield', {}, (result) => {
    renderMeanField(result, $('tab-tables'));
    chooseTab('tables');
  });
}

let solveTimer = null;
function solveSoon(delay = 200) {
  clearTimeout(solveTimer);
  solveTimer = setTimeout(solve, delay);
}

async function solve() {
  if (!state.path) return;
  status('solving…', 'busy');
  const limit = Number($('max-states').value);
  const options = limit > 0 ? {max_states: limit} : {};
  const last = await startRun('solve', {kind: 'solve', ...modelBody(), options}, (line) => status(line, 'busy'));
  if (!last) return;
  if (last.failure) return showFailure(last.failure);
  const solution = last.result;
  state.solution = solution;
  $('simulate').hidden = $('mean-field').hidden = true;
  if (solution.parameters.length) showParameters(solution.parameters);
  status(`${solution.states.tangible} states · solved in ${seconds(solution.seconds)}`, 'ok');
  renderTables(solution, $('tab-tables'));
  renderPicture(solution, $('picture'), $('element'), (name) => {
    state.chosen = name;
    markNet($('net'), name);
  });
  $('metric-paths').replaceChildren(...metricPaths(solution).map((path) => new Option(path)));
  if (chosenTab() === 'net') drawNet();
}

async function drawNet() {
  if (!state.path) return;
  try {
    renderNet(await api.request('POST', '/api/net', modelBody()), $('net'), state.chosen);
  } catch (error) {
    $('net').textContent = error.message;
  }
}

// ---- the editor -------------------------------------------------------------------------

function showDiagnostics(diagnostics) {
  $('diagnostics').replaceChildren(...diagnostics.map((d) => {
    const item = element('li', `${d.line}:${d.column}: ${d.severity}: ${d.message}`, {class: d.severity});
    item.addEventListener('click', () => goTo(d.line, d.column));
    return item;
  }));
}

function positionOf(doc, line, column) {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines));
  return Math.min(l.to, l.from + characterOffset(l.text, column));
}

function goTo(line, column) {
  const pos = positionOf(state.view.state.doc, line, column);
  state.view.dispatch({selection: {anchor: pos}, scrollIntoView: true});
  state.view.focus();
}

/** The linter: the model checked as typed; on success its parameters and a new solve. */
async function checkSource(view) {
  if (!state.path) return [];
  let answer;
  try {
    answer = await api.request('POST', '/api/check', modelBody());
  } catch (error) {
    status(error.message, 'error');
    return [];
  }
  if (answer.ok) {
    showDiagnostics([]);
    showParameters(answer.parameters);
    solveSoon(0);
    return [];
  }
  const failure = answer.failure;
  const diagnostics = (failure.data || {}).diagnostics || [];
  showDiagnostics(diagnostics);
  status(diagnostics.length ? `${diagnostics.length} error${diagnostics.length > 1 ? 's' : ''} in the model` : failure.headline, 'error');
  const doc = view.state.doc;
  return diagnostics.filter((d) => d.line > 0).map((d) => {
    const from = positionOf(doc, d.line, d.column);
    return {from, to: Math.min(doc.line(Math.min(d.line, doc.lines)).to, from + 1), severity: d.severity, message: d.message};
  });
}

function newEditorState(path, text) {
  const language = languageOf(path);
  return EditorState.create({
    doc: text,
    extensions: [
      basicSetup, lintGutter(), linter(checkSource, {delay: 150}),
      ...(language ? [language] : []),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) markDirty();
      }),
    ],
  });
}

function markDirty() {
  const dirty = state.view.state.doc.toString() !== state.savedText;
  $('filename').textContent = state.path + (dirty ? ' •' : '');
  $('save').disabled = !dirty;
}

async function open(path) {
  const file = await api.request('GET', '/api/file?path=' + encodeURIComponent(path));
  state.path = path;
  state.version = file.version;
  state.savedText = file.text;
  state.overrides = {};
  state.parameters = [];
  state.solution = null;
  state.chosen = null;
  $('parameters').replaceChildren();
  for (const id of ['tab-tables', 'picture', 'element', 'net', 'transient-plot', 'transient-table', 'passage-plot',
    'passage-table', 'compare-result', 'contract-result', 'explore-result']) $(id).replaceChildren();
  $('simulate').hidden = $('mean-field').hidden = true;
  if (state.view) state.view.setState(newEditorState(path, file.text));
  else state.view = new EditorView({state: newEditorState(path, file.text), parent: $('editor')});
  document.querySelectorAll('#files button').forEach((b) => b.classList.toggle('chosen', b.dataset.path === path));
  markDirty();
  $('saved').textContent = '';
}

async function save() {
  const text = state.view.state.doc.toString();
  try {
    const answer = await api.request('PUT', '/api/file', {path: state.path, text, version: state.version});
    state.version = answer.version;
    state.savedText = text;
    $('saved').textContent = 'saved';
    markDirty();
  } catch (error) {
    $('saved').textContent = error.message;
    $('saved').className = 'error';
  }
}

// ---- parameters -------------------------------------------------------------------------

function sliderRange(value) {
  if (Number.isInteger(value) && value >= 0) return {min: value >= 1 ? 1 : 0, max: Math.max(2 * value, value + 8), step: 1};
  const span = Math.abs(value) || 1;
  return {min: Math.min(0, value), max: value + span, step: span / 100};
}

function showParameters(parameters) {
  const same = parameters.length === state.parameters.length &&
    parameters.every((p, i) => p.name === state.parameters[i].name);
  state.parameters = parameters;
  if (same) {
    // A parameter derived from others (`param piece = N * N / P`) follows them.
    for (const p of parameters) {
      if (p.name in state.overrides) continue;
      $(`param-${p.name}`).value = p.value;
      $(`slider-${p.name}`).value = p.value;
    }
    return;
  }
  $('parameters').replaceChildren(...parameters.map((p) => {
    const row = element('label', undefined, {class: 'parameter'});
    const name = element('span', p.name);
    const range = sliderRange(p.value);
    const slider = Object.assign(document.createElement('input'), {type: 'range', id: `slider-${p.name}`, ...range, value: p.value});
    const field = Object.assign(document.createElement('input'), {type: 'number', id: `param-${p.name}`, step: 'any', value: p.value});
    const set = (value, from) => {
      if (!Number.isFinite(value)) return;
      state.overrides[p.name] = value;
      if (from !== field) field.value = value;
      if (from !== slider) slider.value = value;
      solveSoon(250);
    };
    slider.addEventListener('input', () => set(Number(slider.value), slider));
    field.addEventListener('change', () => set(Number(field.value), field));
    row.append(name, slider, field);
    return row;
  }));
  $('sweep-parameter').replaceChildren(...parameters.map((p) => new Option(p.name)));
  $('sweep-by').replaceChildren(new Option('—', ''), ...parameters.map((p) => new Option(p.name)));
  $('contract-parameter').replaceChildren(...parameters.map((p) => new Option(p.name)));
  fillSweepRange();
}

// ---- sweeps -----------------------------------------------------------------------------

/** Fills the sweep's and the contract's ranges from their parameters' values. */
function fillSweepRange() {
  for (const form of ['sweep', 'contract']) {
    const p = state.parameters.find((x) => x.name === $(`${form}-parameter`).value);
    if (!p) continue;
    const range = sliderRange(p.value);
    $(`${form}-from`).value = range.min;
    $(`${form}-to`).value = range.max;
    $(`${form}-step`).value = range.step === 1 ? 1 : shortNumber((range.max - range.min) / 10);
  }
}

async function runSweep(event) {
  event.preventDefault();
  const values = sweepValues(Number($('sweep-from').value), Number($('sweep-to').value), Number($('sweep-step').value));
  if (!values.length) return status('the sweep has no point: check from, to and step', 'error');
  const metrics = $('sweep-metric').value.split(',').map((m) => m.trim()).filter((m) => m);
  const parameters = [{name: $('sweep-parameter').value, values}];
  const by = $('sweep-by').value;
  if (by) {
    const byValues = numbers($('sweep-by-values').value);
    if (by === parameters[0].name || !byValues.length)
      return status('the second parameter needs values, and another name than the first', 'error');
    parameters.push({name: by, values: byValues});
  }
  status('sweeping…', 'busy');
  const options = {parameters, metrics: metrics.length ? metrics : ['application.throughput']};
  const last = await startRun('sweep', {kind: 'sweep', ...modelBody(), options}, (line) => status(`sweep: ${line}`, 'busy'));
  if (!last) return;
  if (last.failure) return showFailure(last.failure);
  renderSweep(last.result, $('sweep-plot'), $('sweep-table'), $('sweep-csv'));
  status(`sweep: ${last.result.points.length} points`, 'ok');
}

// ---- studies ----------------------------------------------------------------------------

function numbers(text) {
  return text.split(',').map((x) => Number(x.trim())).filter((x) => Number.isFinite(x));
}

/** A default horizon: a few mean response times of the last solve, or 100. */
function horizon() {
  const mean = state.solution && lookup(state.solution, 'application.response_time');
  return typeof mean === 'number' && mean > 0 ? Number((4 * mean).toPrecision(3)) : 100;
}

function runTransient(event) {
  event.preventDefault();
  const times = evenTimes(Number($('transient-from').value), Number($('transient-to').value), Number($('transient-points').value));
  const metric = $('transient-metric').value.trim() || 'application.throughput';
  runStudy('transient', 'solve', {at: times, cumulative: $('transient-cumulative').checked},
    (result) => renderTransient(result, metric, $('transient-plot'), $('transient-table')));
}

function runPassage(event) {
  event.preventDefault();
  const to = Number($('passage-to').value) || horizon();
  runStudy('response time', 'solve', {percentiles: numbers($('passage-percentiles').value), cdf_at: evenTimes(0, to, 81)},
    (result) => {
      const distributions = (result.response_time_distributions || {}).distributions || [];
      const chosen = $('passage-element').value;
      $('passage-element').replaceChildren(...distributions.map((d) => new Option(`${d.section} ${d.element}`, `${d.section}.${d.element}`)));
      if (distributions.some((d) => `${d.section}.${d.element}` === chosen)) $('passage-element').value = chosen;
      state.passages = result;
      renderPassages(result, $('passage-element').value, $('passage-plot'), $('passage-table'));
    });
}

function runCompare(event) {
  event.preventDefault();
  runStudy('comparison', 'compare', {precision: Number($('compare-precision').value), time_limit: Number($('compare-time').value)},
    (result) => renderComparison(result, $('compare-result')));
}

function runContract(event) {
  event.preventDefault();
  const values = sweepValues(Number($('contract-from').value), Number($('contract-to').value), Number($('contract-step').value));
  if (!values.length) return status('the contract has no value to try: check from, to and step', 'error');
  runStudy('contract', 'contract', {require: $('contract-require').value, vary: {name: $('contract-parameter').value, values},
    search: $('contract-search').value}, (result) => renderContract(result, $('contract-result')));
}

function runExplore(event) {
  event.preventDefault();
  runStudy('exploration', 'explore', {metric: $('explore-metric').value.trim() || 'application.throughput',
    order: $('explore-order').value, top: Number($('explore-top').value) || 0},
  (result) => renderExploration(result, $('explore-result')));
}

// ---- tabs and start ---------------------------------------------------------------------

function chosenTab() {
  return document.querySelector('#tabs button.chosen').dataset.tab;
}

function chooseTab(name) {
  document.querySelectorAll('#tabs button').forEach((b) => b.classList.toggle('chosen', b.dataset.tab === name));
  document.querySelectorAll('.tab').forEach((t) => t.classList.toggle('chosen', t.id === `tab-${name}`));
  if (name === 'net') drawNet();
}

async function start() {
  document.querySelectorAll('#tabs button').forEach((b) => b.addEventListener('click', () => chooseTab(b.dataset.tab)));
  $('stop').addEventListener('click', stopAll);
  $('save').addEventListener('click', save);
  $('sweep-form').addEventListener('submit', runSweep);
  $('sweep-parameter').addEventListener('change', fillSweepRange);
  $('contract-parameter').addEventListener('change', fillSweepRange);
  $('transient-form').addEventListener('submit', runTransient);
  $('passage-form').addEventListener('submit', runPassage);
  $('passage-element').addEventListener('change', () => state.passages &&
    renderPassages(state.passages, $('passage-element').value, $('passage-plot'), $('passage-table')));
  $('compare-form').addEventListener('submit', runCompare);
  $('contract-form').addEventListener('submit', runContract);
  $('explore-form').addEventListener('submit', runExplore);
  $('simulate').addEventListener('click', simulate);
  $('mean-field').addEventListener('click', meanField);
  $('max-states').addEventListener('change', () => solveSoon(0));
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === 's') {
      event.preventDefault();
      if (!$('save').disabled) save();
    }
  });
  try {
    const listing = await api.request('GET', '/api/files');
    $('folder').textContent = listing.folder;
    $('files').replaceChildren(...listing.files.map((path) => {
      const button = element('button', path, {'data-path': path});
      button.addEventListener('click', () => open(path).catch((error) => status(error.message, 'error')));
      return button;
    }));
    status(`${listing.files.length} models`);
  } catch (error) {
    status(error.message, 'error');
  }
}

start();
