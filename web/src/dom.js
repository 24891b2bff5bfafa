// Elements and tables of the page, built from data.

/** A `tag` element with `text` (when given) and `attributes`. */
export function element(tag, text, attributes = {}) {
  const out = document.createElement(tag);
  if (text !== undefined) out.textContent = text;
  for (const [name, value] of Object.entries(attributes)) out.setAttribute(name, value);
  return out;
}

/** A table of `headings` and `rows` (each a list of texts or cells) of class `className`. */
export function table(headings, rows, className) {
  const out = element('table', undefined, {class: className});
  const head = out.createTHead().insertRow();
  for (const h of headings) head.append(element('th', h));
  const body = out.createTBody();
  for (const cells of rows) {
    const row = body.insertRow();
    for (const c of cells) row.append(c instanceof Node ? c : element('td', c));
  }
  return out;
}
