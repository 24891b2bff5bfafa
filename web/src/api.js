// Requests to the server (serve/server.cpp). Every request carries the token the page was
// opened with; the server also set it as a cookie, so a reload without it still works.
const token = new URLSearchParams(location.search).get('token') || '';

function headers() {
  const out = {'Content-Type': 'application/json'};
  if (token) out['X-MMT-Token'] = token;
  return out;
}

/** The JSON answer of `method url` with `body`; throws an Error with the server's words. */
export async function request(method, url, body) {
  const response = await fetch(url, {
    method, headers: headers(), body: body === undefined ? undefined : JSON.stringify(body),
  });
  const type = response.headers.get('Content-Type') || '';
  const answer = type.includes('json') ? await response.json() : await response.text();
  if (!response.ok) {
    const error = new Error(answer.error || (answer.failure && answer.failure.headline) || response.statusText);
    error.status = response.status;
    error.answer = answer;
    throw error;
  }
  return answer;
}

/**
 * Starts a run (POST /api/run) and calls onEvent with each event it streams ({progress},
 * then {result} or {failure}). Aborting `signal` ends the stream, and the server
 * interrupts the run. Resolves with the last event.
 */
export async function run(body, onEvent, signal) {
  const response = await fetch('/api/run', {method: 'POST', headers: headers(), body: JSON.stringify(body), signal});
  if (!response.ok) {
    const answer = await response.json().catch(() => ({}));
    return {failure: {kind: 'Busy', headline: answer.error || response.statusText}};
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  let last = null;
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    pending += decoder.decode(value, {stream: true});
    let end;
    while ((end = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (!line) continue;  // the server's heartbeat
      last = JSON.parse(line);
      onEvent(last);
    }
  }
  return last;
}

/** Asks the server to interrupt the run on `channel`. */
export function stop(channel) {
  return request('POST', '/api/stop', {channel}).catch(() => {});
}
