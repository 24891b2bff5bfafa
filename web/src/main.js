// The workbench page of `mmt serve` (docs/serve.md): files, an editor checked as the user
// types, the parameters, and every view of the answer, kept current by re-solving.
import {EditorView, basicSetup} from 'codemirror';
import {EditorState} from '@codemirror/state';
import {linter, lintGutter} from '@codemirror/lint';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import * as api from './api.js';
import {languageOf} from './language.js';
import {characterOffset, seconds, shortNumber} from './format.js';
import {renderTables, metricPaths} from './tables.js';
import {renderPicture, renderNet, markNet} from './pictures.js';
import {renderSweep, sweepValues} from './sweep.js';

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
  if (failure.simulate) text += ' — too large to solve exactly; simulate it instead (mmt simulate)';
  status(text, 'error');
  if (failure.diagnostics) showDiagnostics(failure.diagnostics);
}

let solveTimer = null;
function solveSoon(delay = 200) {
  clearTimeout(solveTimer);
  solveTimer = setTimeout(solve, delay);
}

async function solve() {
  if (!state.path) return;
  status('solving…', 'busy');
  const last = await startRun('solve', {kind: 'solve', ...modelBody()}, (line) => status(line, 'busy'));
  if (!last) return;
  if (last.failure) return showFailure(last.failure);
  const solution = last.result;
  state.solution = solution;
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
    const item = document.createElement('li');
    item.className = d.severity;
    item.textContent = `${d.line}:${d.column}: ${d.severity}: ${d.message}`;
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
  const diagnostics = failure.diagnostics || [];
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
  for (const id of ['tab-tables', 'picture', 'element', 'net']) $(id).replaceChildren();
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
    const row = document.createElement('label');
    row.className = 'parameter';
    const name = document.createElement('span');
    name.textContent = p.name;
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
  fillSweepRange();
}

// ---- sweeps -----------------------------------------------------------------------------

function fillSweepRange() {
  const p = state.parameters.find((x) => x.name === $('sweep-parameter').value);
  if (!p) return;
  const range = sliderRange(p.value);
  $('sweep-from').value = range.min;
  $('sweep-to').value = range.max;
  $('sweep-step').value = range.step === 1 ? 1 : shortNumber((range.max - range.min) / 10);
}

async function runSweep(event) {
  event.preventDefault();
  const values = sweepValues(Number($('sweep-from').value), Number($('sweep-to').value), Number($('sweep-step').value));
  if (!values.length) return status('the sweep has no point: check from, to and step', 'error');
  const metric = $('sweep-metric').value.trim() || 'application.throughput';
  status(`sweeping ${values.length} points…`, 'busy');
  const options = {parameters: [{name: $('sweep-parameter').value, values}], metrics: [metric]};
  const last = await startRun('sweep', {kind: 'sweep', ...modelBody(), options}, (line) => status(`sweep: ${line}`, 'busy'));
  if (!last) return;
  if (last.failure) return showFailure(last.failure);
  renderSweep(last.result, $('sweep-plot'), $('sweep-table'), $('sweep-csv'));
  status(`sweep: ${last.result.points.length} points`, 'ok');
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
      const button = document.createElement('button');
      button.textContent = path;
      button.dataset.path = path;
      button.addEventListener('click', () => open(path).catch((error) => status(error.message, 'error')));
      return button;
    }));
    status(`${listing.files.length} models`);
  } catch (error) {
    status(error.message, 'error');
  }
}

start();
