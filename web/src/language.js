// Highlighting of the two text formats mmt reads: system descriptions (.hdl,
// docs/language.md) and raw nets (.gspn, docs/gspn.md), as CodeMirror stream languages.
import {StreamLanguage} from '@codemirror/language';

const hdlKeywords = new Set([
  'system', 'hardware', 'application', 'mapping', 'processor', 'link', 'actor', 'data', 'task',
  'pipeline', 'farm', 'deal', 'map', 'param', 'on', 'via', 'for', 'in', 'if', 'else', 'route',
  'placement', 'function', 'workload', 'policy', 'speed', 'kind', 'bandwidth', 'latency',
  'channels', 'demand', 'size', 'servers',
]);
const gspnKeywords = new Set([
  'net', 'place', 'timed', 'immediate', 'arc', 'in', 'out', 'inhibit', 'measure', 'rate',
  'weight', 'priority', 'guard', 'delay', 'servers', 'param', 'throughput', 'mean', 'prob',
]);
const functions = new Set([
  'abs', 'acos', 'asin', 'atan', 'ceil', 'cos', 'exp', 'floor', 'log', 'max', 'min', 'mod',
  'pow', 'round', 'sin', 'sqrt', 'tan', 'binomial', 'factorial', 'exponential', 'erlang',
  'const', 'uniform', 'closed', 'open', 'fcfs', 'ps', 'circuit', 'packet', 'bus',
]);

function language(keywords) {
  return StreamLanguage.define({
    startState: () => ({comment: false}),
    token(stream, state) {
      if (state.comment) {
        if (stream.skipTo('*/')) { stream.next(); stream.next(); state.comment = false; } else stream.skipToEnd();
        return 'comment';
      }
      if (stream.eatSpace()) return null;
      if (stream.match('//')) { stream.skipToEnd(); return 'comment'; }
      if (stream.match('/*')) { state.comment = true; return 'comment'; }
      if (stream.match(/^"([^"\\]|\\.)*"?/)) return 'string';
      if (stream.match(/^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/)) return 'number';
      if (stream.match(/^#?[A-Za-z_][\w]*/)) {
        const word = stream.current();
        if (word.startsWith('#')) return 'variableName.special';
        if (keywords.has(word)) return 'keyword';
        if (functions.has(word)) return 'function(variableName)';
        return 'variableName';
      }
      if (stream.match(/^(->|<=|>=|==|!=|&&|\|\||\.\.)/)) return 'operator';
      stream.next();
      return /[{}()[\];,:]/.test(stream.current()) ? 'punctuation' : 'operator';
    },
    languageData: {commentTokens: {line: '//', block: {open: '/*', close: '*/'}}},
  });
}

export const hdl = language(hdlKeywords);
export const gspn = language(gspnKeywords);

/** The language of a file by its extension, or null (PNML, GreatSPN: plain text). */
export function languageOf(path) {
  if (path.endsWith('.hdl')) return hdl;
  if (path.endsWith('.gspn')) return gspn;
  return null;
}
