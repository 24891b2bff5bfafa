// Numbers as the command line prints them: six significant digits, as C's %g.
export function shortNumber(x, digits = 6) {
  if (typeof x !== 'number') return String(x);
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  const exponent = Math.floor(Math.log10(Math.abs(x)));
  if (exponent < -4 || exponent >= digits) {
    const [mantissa, power] = x.toExponential(digits - 1).split('e');
    const p = Number(power);
    return trim(mantissa) + 'e' + (p < 0 ? '-' : '+') + String(Math.abs(p)).padStart(2, '0');
  }
  return trim(x.toFixed(Math.max(0, digits - 1 - exponent)));
}

function trim(text) {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

export function seconds(s) {
  if (s < 1e-3) return shortNumber(s * 1e3, 3) + ' ms';
  if (s < 1) return shortNumber(s * 1e3, 3) + ' ms';
  return shortNumber(s, 3) + ' s';
}

/** A byte column of `lineText` (1-based, as the compiler gives it) as a character offset. */
export function characterOffset(lineText, column) {
  const bytes = new TextEncoder().encode(lineText);
  return new TextDecoder().decode(bytes.slice(0, Math.max(0, column - 1))).length;
}
