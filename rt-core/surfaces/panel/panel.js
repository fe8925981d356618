// rtcosim operator panel (rtcosim/panel.h). /api/info describes the session once (columns
// and their units, exposed variables with their current values, I/O components); live
// data arrives as Server-Sent Events from /api/stream: "frame" (25 a second: status, link
// states per direction, exposed values, every late input's estimator and its prediction
// error), "points" (the engine's history of the recorded
// columns: a new page first gets everything the engine kept, then each new point once;
// a null row marks a gap, drawn as a gap) and "log" (events.log lines). Every control is a
// POST to /api/cmd, which the engine hands to the same session functions as the OSC
// control surface. window.rtcPanel exposes what the automated browser test checks.
'use strict';
const scriptStart = performance.now();
const params = new URLSearchParams(location.search);
const token = params.get('token');
const panel = window.rtcPanel = { frames: 0, points: 0, events: 0, info: null, last: null,
                                  replies: [], data: [], resets: 0, firstFrame: null };
const $ = (id) => document.getElementById(id);

function withToken(path) {
  return token ? path + (path.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token)
               : path;
}

function fmt(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  // trailing zeros of the fraction go ("2.500" → "2.5", "1.000e+3" → "1e+3"); 0 stays "0"
  return Number(v).toPrecision(digits || 6).replace(/(\.\d*?)0+(e|$)/, '$1$2')
    .replace(/\.(e|$)/, '$1');
}

// "12.5 m": a value with its unit (none, or "1" — dimensionless: the bare number).
function withUnit(v, unit, digits) {
  const text = fmt(v, digits);
  return unit && unit !== '1' && text !== '–' ? text + ' ' + unit : text;
}

function label(name, unit) {
  return unit ? name + ' [' + unit + ']' : name;
}

function say(text, ok) {
  const m = $('msg');
  m.textContent = text;
  m.className = 'msg ' + (ok ? 'ok' : 'err');
}

// One command: the panel header marks it as ours (a cross-site page cannot send it).
async function command(args) {
  const headers = { 'X-Rtcosim-Panel': '1' };
  if (token) headers['X-Rtcosim-Token'] = token;
  let reply;
  try {
    const r = await fetch('/api/cmd?' + new URLSearchParams(args), { method: 'POST', headers });
    reply = await r.json();
  } catch (e) {
    reply = { ok: false, op: args.op, error: 'no answer from the engine (' + e + ')' };
  }
  panel.replies.push(reply);
  if (reply.ok && reply.op === 'set')
    say('set ' + reply.name + ' = ' + fmt(reply.applied) + (reply.clamped ? ' (clamped)' : ''), true);
  else if (reply.ok)
    say(reply.op + ': ok', true);
  else
    say(reply.error, false);
  return reply;
}

// ---- set-points ----

function rangeText(v) {
  if (v.min === null && v.max === null) return '–';
  return (v.min === null ? '−∞' : fmt(v.min)) + ' … ' + (v.max === null ? '∞' : fmt(v.max));
}

// Each exposed variable's field and slider show its set-point (the value it is moving to)
// from the first moment; the operator's own edit stays until it is sent (or Escape).
const edits = [];

function showVar(i, value, target) {
  const v = panel.info.vars[i], row = $('vars').children[i];
  row.querySelector('.live').textContent = withUnit(value, v.unit);
  if (edits[i] || target === null || target === undefined) return;
  $('var-' + i).value = target;
  const slider = $('slider-' + i);
  if (slider) slider.value = target;
}

function varRow(v, i) {
  const row = document.createElement('div');
  row.className = 'var';
  row.innerHTML = '<div class="head"><span class="name"></span><span class="live">–</span></div>' +
    '<div class="edit"><input class="val" type="number" step="any"><span class="unit"></span>' +
    '<button>Set</button></div><div class="limits"></div>';
  row.querySelector('.name').textContent = v.name;
  row.querySelector('.unit').textContent = v.unit || '';
  const input = row.querySelector('input');
  input.id = 'var-' + i;
  const button = row.querySelector('button');
  button.id = 'set-' + i;
  row.querySelector('.limits').textContent = 'clamp ' + rangeText(v) + ' · rate ' +
    (v.rate === null ? 'none' : fmt(v.rate) + (v.unit && v.unit !== '1' ? ' ' + v.unit : '') +
                                '/s') +
    ' · safe ' + (v.safe === null ? 'none' : withUnit(v.safe, v.unit));
  const edited = (on) => { edits[i] = on; row.classList.toggle('edited', on); };
  if (v.min !== null && v.max !== null) {
    const slider = document.createElement('input');
    Object.assign(slider, { type: 'range', min: v.min, max: v.max, step: 'any',
                            id: 'slider-' + i });
    slider.addEventListener('input', () => { input.value = slider.value; edited(true); });
    slider.addEventListener('change', () => send(slider.value));
    row.querySelector('.edit').insertBefore(slider, input);
    input.addEventListener('input', () => { slider.value = input.value; });
  }
  const send = (value) => command({ op: 'set', name: v.name, value: String(value).trim() })
    .then(() => edited(false));
  input.addEventListener('input', () => edited(true));
  button.addEventListener('click', () => send(input.value));
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') send(input.value);
    if (e.key === 'Escape') edited(false);
  });
  return row;
}

function setupControls(info) {
  const caps = info.caps.split(',');
  $('caps').textContent = info.caps + (info.has_io ? ' (system with I/O components)' : '');
  const allow = { pause: 'pause', resume: 'pause', step: 'step', stop: 'stop' };
  for (const b of document.querySelectorAll('.buttons button')) {
    b.disabled = !caps.includes(allow[b.dataset.op]);
    b.title = b.disabled ? 'not allowed (--control-allow)' : '';
    b.addEventListener('click', () => {
      const args = { op: b.dataset.op };
      if (b.dataset.op === 'step') args.n = $('step-n').value;
      command(args);
    });
  }
  $('btn-mark').disabled = !caps.includes('mark');
  $('mark-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('mark-text').value.trim();
    if (text) command({ op: 'mark', text }).then((r) => { if (r.ok) $('mark-text').value = ''; });
  });
  const body = $('vars');
  info.vars.forEach((v, i) => body.appendChild(varRow(v, i)));
  info.vars.forEach((v, i) => showVar(i, v.value, v.target));
  $('novars').hidden = info.vars.length > 0;
  for (const el of body.querySelectorAll('input, button')) el.disabled = !caps.includes('set');
  setupIo(info);
  panel.ioAtSetup = [...document.querySelectorAll('#io-list li')].map((li) => li.textContent);
}

// ---- I/O components: listed from /api/info, their links' states from every frame ----

const stateText = { up: 'up', late: 'late', lost: 'LOST', connecting: 'connecting',
                    idle: 'idle', degraded: 'degraded' };

function setupIo(info) {
  const list = $('io-list');
  list.textContent = '';
  if (!info.io.length) {
    list.innerHTML = '<li class="hint">none in this system</li>';
    return;
  }
  info.io.forEach((u, i) => {
    const li = document.createElement('li');
    li.id = 'io-' + i;
    li.innerHTML = '<b></b> <span class="counters"></span><div class="dirs"></div>';
    li.querySelector('b').textContent = u.name;
    for (const dir of ['in', 'out']) {
      if (!u[dir]) continue;
      const d = document.createElement('div');
      d.className = 'dir';
      d.dataset.dir = dir;
      d.innerHTML = '<span class="dot"></span><span class="what"></span> ' +
                    '<span class="state">–</span> <span class="detail"></span>';
      d.querySelector('.what').textContent = (dir === 'in' ? 'in ← ' : 'out → ') + u[dir] +
                                            ' signal' + (u[dir] === 1 ? '' : 's');
      li.querySelector('.dirs').appendChild(d);
    }
    list.appendChild(li);
  });
}

function showLinks(f) {
  panel.info.io.forEach((u, i) => {
    const li = $('io-' + i), h = f.io.find((x) => x.name === u.name);
    if (!li) return;
    const o = h && h.outages;
    if (h) li.querySelector('.counters').textContent = 'reconnects ' + h.reconnects +
      ' · errors ' + h.errors + (o && o.count ? ' · outages ' + o.count + ' (' +
      fmt(o.total_s, 1) + ' s, longest ' + fmt(o.longest_s, 1) + ' s)' : '');
    for (const d of li.querySelectorAll('.dir')) {
      const l = f.links.find((x) => x.name === u.name && x.dir === d.dataset.dir);
      if (!l) continue;
      d.className = 'dir ' + l.state;
      d.querySelector('.dot').className = 'dot ' + l.state;
      d.querySelector('.state').textContent = stateText[l.state] || l.state;
      d.querySelector('.detail').textContent = (l.stale ? l.stale + ' stale · ' : '') +
        (l.age_s === null ? 'nothing yet' : 'last ' + fmt(l.age_s, 2) + ' s ago');
    }
  });
}

// ---- nodes of a distributed run: every node's state, overruns and link latencies ----

function showNodes(f) {
  const nodes = f.nodes || [];
  $('nodes').hidden = !nodes.length;
  if (!nodes.length) return;
  const list = $('node-list');
  list.textContent = '';
  for (const n of nodes) {
    const li = document.createElement('li');
    li.className = 'node ' + n.state;
    li.innerHTML = '<span class="dot"></span><b></b> <span class="state"></span>' +
                   '<div class="counters"></div><div class="links"></div>';
    li.querySelector('.dot').className = 'dot ' + (n.state === 'running' ? 'up'
      : n.state === 'lost' ? 'lost' : n.state === 'stopped' ? '' : 'late');
    li.querySelector('b').textContent = n.name + (n.self ? ' (this node)' : '') +
                                        (n.leader ? ' · leader' : '');
    li.querySelector('.state').textContent = n.state;
    li.querySelector('.counters').textContent = 'tick ' + n.tick + ' · overruns ' +
      n.overruns + ' · wake-up p99 ' + fmt(n.p99_us, 1) + ' µs · clock ' +
      fmt(n.offset_ms, 3) + ' ms';
    for (const l of n.links) {
      const d = document.createElement('div');
      d.className = 'dir ' + l.state;
      d.textContent = '→ ' + l.peer + ': ' + (stateText[l.state] || l.state) + ' · latency ' +
        fmt(l.p50_ms, 3) + ' / ' + fmt(l.p99_ms, 3) + ' / ' + fmt(l.max_ms, 3) +
        ' ms (p50/p99/max) · late ' + l.late + ' · lost ' + l.lost;
      li.querySelector('.links').appendChild(d);
    }
    list.appendChild(li);
  }
}

// ---- late inputs: which estimator each one uses and how well it predicts ----

function showEstimates(f) {
  const body = $('est-table').tBodies[0], est = f.estimates || [];
  $('no-est').hidden = est.length > 0;
  $('est-table').hidden = est.length === 0;
  while (body.rows.length > est.length) body.deleteRow(-1);
  est.forEach((e, i) => {
    const row = body.rows[i] || body.insertRow();
    while (row.cells.length < 6) row.insertCell();
    const used = e.in_use === e.estimator ? e.estimator : e.estimator + ' → ' + e.in_use;
    const cells = [e.name, used, fmt(e.rms, 3), fmt(e.max, 3),
                   e.delay_p50_ms === null ? '–' : fmt(e.delay_p50_ms, 1) + ' ms', e.samples];
    cells.forEach((text, c) => {
      row.cells[c].textContent = text;
      row.cells[c].className = c >= 2 ? 'num' : '';
    });
  });
}

// ---- the plot: the engine's history, then each new point ----

let graph = null;

function span() {
  return Number($('window').value);
}

function draw() {
  const data = panel.data;
  if (!data.length) return;
  const tmax = data[data.length - 1][0];
  const opts = { file: data, dateWindow: [Math.max(data[0][0], tmax - span()), tmax] };
  if (!graph) {
    const info = panel.info;
    graph = new Dygraph($('graph'), data, Object.assign(opts, {
      labels: ['t'].concat(info.columns.map((c, i) => label(c, info.units[i]))),
      legend: 'always', xlabel: 't (s)', labelsDiv: $('legend'),
      labelsSeparateLines: false, axisLineColor: '#5b6778', gridLineColor: '#2c3542',
      colors: ['#4ea1ff', '#ffb547', '#5ad58a', '#ff6b81', '#c79bff', '#43d9d9', '#f5e663'],
      connectSeparatedPoints: false, strokeWidth: 1.6, animatedZooms: false }));
  } else {
    graph.updateOptions(opts);
  }
}

function points(p) {
  if (p.reset) {  // a new connection: what the engine kept replaces what this page drew
    panel.data = [];
    panel.resets++;
  }
  const data = panel.data;
  for (const row of p.rows) {
    data.push(row);
    if (row[1] !== null) panel.points++;
  }
  const keep = panel.info.history_s;
  if (data.length) {
    const tmax = data[data.length - 1][0];
    let drop = 0;
    while (drop < data.length - 2 && data[drop][0] < tmax - keep) drop++;
    if (drop) data.splice(0, drop);
  }
  draw();
}

// ---- status ----

function status(f) {
  const st = $('state');
  st.textContent = f.state.toUpperCase();
  st.className = 'badge ' + f.state;
  $('st-t').textContent = fmt(f.sim_t, 6) + ' s';
  $('st-tick').textContent = f.tick;
  $('st-rtf').textContent = fmt(f.rtf, 3);
  $('st-ov').textContent = f.overruns;
  $('st-lat').textContent = f.p99_us >= 1000 ? (f.p99_us / 1000).toFixed(2) + ' ms'
                                             : Math.round(f.p99_us) + ' µs';
  showLinks(f);
  showEstimates(f);
  panel.info.vars.forEach((v, i) => showVar(i, f.x[i], f.xt[i]));
}

// What the first frame showed, and when (ms since the page's script started): the
// browser test checks the page is right from its first frame.
function noteFirstFrame(f) {
  panel.firstFrame = {
    ms: performance.now() - scriptStart, navMs: performance.now(), frame: f,
    rtf: $('st-rtf').textContent,
    io: [...document.querySelectorAll('#io-list li')].map((li) => li.textContent),
    dirs: [...document.querySelectorAll('#io-list .dir')].map((d) => d.className),
    vars: panel.info.vars.map((v, i) => ({
      field: $('var-' + i).value, slider: $('slider-' + i) ? $('slider-' + i).value : null,
      live: $('vars').children[i].querySelector('.live').textContent })) };
}

function eventLine(line) {
  const feed = $('feed');
  const div = document.createElement('div');
  div.textContent = line;
  const source = line.split(' ')[3];
  if (source === 'operator' || source === 'io') div.className = source;
  if (/\b(error|warning)\b/i.test(line)) div.className = 'warn';
  const atEnd = feed.scrollTop + feed.clientHeight >= feed.scrollHeight - 4;
  feed.appendChild(div);
  while (feed.childNodes.length > 400) feed.removeChild(feed.firstChild);
  if (atEnd) feed.scrollTop = feed.scrollHeight;
  panel.events++;
}

let framesThisSecond = 0;
setInterval(() => { $('st-fps').textContent = framesThisSecond; framesThisSecond = 0; }, 1000);

function connect() {
  // EventSource reconnects by itself and sends the last event id back: the engine then
  // continues this page's plot and feed exactly where they were
  const es = new EventSource(withToken('/api/stream'));
  es.addEventListener('frame', (e) => {
    const f = JSON.parse(e.data);
    panel.frames++;
    framesThisSecond++;
    panel.last = f;
    status(f);
    showNodes(f);
    if (!panel.firstFrame) noteFirstFrame(f);
  });
  es.addEventListener('points', (e) => points(JSON.parse(e.data)));
  es.addEventListener('log', (e) => eventLine(JSON.parse(e.data)));
  es.onerror = () => {
    const st = $('state');
    st.textContent = 'DISCONNECTED';
    st.className = 'badge off';
  };
}

$('window').addEventListener('change', draw);

fetch(withToken('/api/info')).then((r) => r.json()).then((info) => {
  panel.info = info;
  setupControls(info);
  connect();
}).catch((e) => say('cannot reach the engine: ' + e, false));
