// The two drawings: the system with its results (Graphviz SVG from the server; clicking a
// processor, link, actor or data node shows its numbers and marks its places and
// transitions in the net), and the net, with zoom (wheel) and pan (drag).
import {element} from './dom.js';
import {findElement} from './tables.js';
import {shortNumber} from './format.js';

function parseSvg(text) {
  const document_ = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = document_.documentElement;
  if (svg.nodeName !== 'svg') return null;
  svg.querySelectorAll('script, foreignObject').forEach((x) => x.remove());
  return document.importNode(svg, true);
}

/** The element a Graphviz title names: "cluster_P1" → P1, "link L12" → L12, "A1" → A1. */
function elementOfTitle(title) {
  if (title.startsWith('cluster_')) return title.slice(8);
  if (title.startsWith('link ')) return title.slice(5);
  if (title.startsWith('@')) return title.slice(1);
  return title;
}

function zoomable(container, svg) {
  const box = svg.viewBox.baseVal;
  if (!box || !box.width) return;
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  container.addEventListener('wheel', (event) => {
    event.preventDefault();
    const factor = event.deltaY > 0 ? 1.2 : 1 / 1.2;
    const rect = svg.getBoundingClientRect();
    const x = box.x + (event.clientX - rect.left) / rect.width * box.width;
    const y = box.y + (event.clientY - rect.top) / rect.height * box.height;
    box.x = x - (x - box.x) * factor;
    box.y = y - (y - box.y) * factor;
    box.width *= factor;
    box.height *= factor;
  }, {passive: false});
  let drag = null;
  container.addEventListener('pointerdown', (event) => { drag = {x: event.clientX, y: event.clientY}; });
  window.addEventListener('pointerup', () => { drag = null; });
  container.addEventListener('pointermove', (event) => {
    if (!drag) return;
    const rect = svg.getBoundingClientRect();
    box.x -= (event.clientX - drag.x) / rect.width * box.width;
    box.y -= (event.clientY - drag.y) / rect.height * box.height;
    drag = {x: event.clientX, y: event.clientY};
  });
}

/** Draws the system picture of `solution`; `onChoose(name)` is called when an element is clicked. */
export function renderPicture(solution, container, details, onChoose) {
  container.replaceChildren();
  details.replaceChildren();
  if (!solution.picture) {
    container.textContent = 'A raw net has no system picture: see the Net tab.';
    return;
  }
  const svg = parseSvg(solution.picture);
  if (!svg) return;
  container.append(svg);
  zoomable(container, svg);
  svg.querySelectorAll('g.node, g.cluster').forEach((g) => {
    const title = g.querySelector('title');
    if (!title) return;
    const name = elementOfTitle(title.textContent);
    const found = findElement(solution, name);
    if (!found) return;
    g.classList.add('choosable');
    g.addEventListener('click', (event) => {
      event.stopPropagation();
      svg.querySelectorAll('.chosen').forEach((x) => x.classList.remove('chosen'));
      g.classList.add('chosen');
      const [section, metrics] = found;
      details.replaceChildren();
      const heading = element('h4', `${section} ${name}`);
      const list = element('dl');
      for (const [metric, value] of Object.entries(metrics))
        list.append(element('dt', metric.replaceAll('_', ' ')), element('dd', shortNumber(value)));
      details.append(heading, list);
      onChoose(name);
    });
  });
}

/** Draws the net (SVG text) into `container`, its elements of `chosen` marked. */
export function renderNet(text, container, chosen) {
  container.replaceChildren();
  const svg = parseSvg(text);
  if (!svg) return;
  container.append(svg);
  zoomable(container, svg);
  markNet(container, chosen);
}

/** Marks the places and transitions of element `name` (and its cluster) in the net drawn. */
export function markNet(container, name) {
  container.querySelectorAll('.marked').forEach((x) => x.classList.remove('marked'));
  if (!name) return;
  container.querySelectorAll('g.node, g.cluster').forEach((g) => {
    const title = (g.querySelector('title') || {}).textContent || '';
    const node = title.replace(/^[pt]:/, '');
    if (title === `cluster_${name}` || node.startsWith(`${name}.`) || node.startsWith(`${name}->`))
      g.classList.add('marked');
  });
}
