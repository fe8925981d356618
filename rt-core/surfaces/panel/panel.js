// rtcosim operator panel (rtcosim/panel.h). Live data arrives as Server-Sent Events from
// /api/stream (25 frames a second: status, I/O health, the newest recorded values; plus
// events.log lines); every control is a POST to /api/cmd, which the engine hands to the
// same session functions as the OSC control surface. window.rtcPanel exposes counters
// for the automated browser test.
'use strict';
const params = new URLSearchParams(location.search);
const token = params.get('token');
const panel = window.rtcPanel = { frames: 0, points: 0, events: 0, info: null, last: null,
                                  replies: [] };
const $ = (id) => document.getElementById(id);

function withToken(path) {
  return token ? path + (path.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token)
               : path;
}

function fmt(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  return Number(v).toPrecision(digits || 6).replace(/\.?0+(e|$)/, '$1');
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

function varRow(v, i) {
  const row = document.createElement('div');
  row.className = 'var';
  row.innerHTML = '<div class="head"><span class="name"></span><span class="live">–</span></div>' +
    '<div class="edit"><input class="val" type="number" step="any"><button>Set</button></div>' +
    '<div class="limits"></div>';
  row.querySelector('.name').textContent = v.name;
  const input = row.querySelector('input');
  input.id = 'var-' + i;
  const button = row.querySelector('button');
  button.id = 'set-' + i;
  row.querySelector('.limits').textContent = 'clamp ' + rangeText(v) + ' · rate ' +
    (v.rate === null ? 'none' : fmt(v.rate) + '/s') + ' · safe ' +
    (v.safe === null ? 'none' : fmt(v.safe));
  if (v.min !== null && v.max !== null) {
    const slider = document.createElement('input');
    Object.assign(slider, { type: 'range', min: v.min, max: v.max, step: 'any',
                            id: 'slider-' + i });
    slider.addEventListener('input', () => { input.value = slider.value; });
    slider.addEventListener('change', () => command({ op: 'set', name: v.name, value: slider.value }));
    row.querySelector('.edit').insertBefore(slider, button);
    input.addEventListener('input', () => { slider.value = input.value; });
  }
  const send = () => command({ op: 'set', name: v.name, value: input.value.trim() });
  button.addEventListener('click', send);
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') send(); });
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
  $('novars').hidden = info.vars.length > 0;
  for (const el of body.querySelectorAll('input, button')) el.disabled = !caps.includes('set');
}

// ---- live data ----

let graph = null, data = [], lastK = -1;

function plot(f) {
  if (f.k < 0 || f.k === lastK) return;  // nothing new (e.g. paused)
  lastK = f.k;
  data.push([f.t].concat(f.v));
  panel.points++;
  const span = Number($('window').value);
  while (data.length > 2 && data[0][0] < f.t - span) data.shift();
  if (!graph) {
    graph = new Dygraph($('graph'), data, {
      labels: ['t'].concat(panel.info.columns), legend: 'always', xlabel: 't (s)',
      labelsDiv: $('legend'),
      labelsSeparateLines: false, axisLineColor: '#5b6778', gridLineColor: '#2c3542',
      colors: ['#4ea1ff', '#ffb547', '#5ad58a', '#ff6b81', '#c79bff', '#43d9d9', '#f5e663'],
      strokeWidth: 1.6, animatedZooms: false });
  } else {
    graph.updateOptions({ file: data });
  }
}

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
  const list = $('io-list');
  if (f.io.length) {
    list.textContent = '';
    for (const u of f.io) {
      const li = document.createElement('li');
      const state = !u.up ? 'down' : u.stale ? 'stale' : 'up';
      li.innerHTML = '<span class="dot ' + state + '"></span><b></b> ';
      li.querySelector('b').textContent = u.name;
      li.append((u.up ? 'link up' : 'link down') + ' · ' + u.signals + ' signal(s), ' +
                u.stale + ' stale · reconnects ' + u.reconnects + ' · errors ' + u.errors);
      list.appendChild(li);
    }
  }
  panel.info.vars.forEach((v, i) => {
    const cell = $('vars').children[i].querySelector('.live');
    cell.textContent = v.column >= 0 ? 'live ' + fmt(f.v[v.column]) : 'not recorded';
  });
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
  const es = new EventSource(withToken('/api/stream'));
  es.addEventListener('frame', (e) => {
    const f = JSON.parse(e.data);
    panel.frames++;
    framesThisSecond++;
    panel.last = f;
    status(f);
    plot(f);
  });
  es.addEventListener('log', (e) => eventLine(JSON.parse(e.data)));
  es.onerror = () => {
    const st = $('state');
    st.textContent = 'DISCONNECTED';
    st.className = 'badge off';
  };
}

fetch(withToken('/api/info')).then((r) => r.json()).then((info) => {
  panel.info = info;
  setupControls(info);
  connect();
}).catch((e) => say('cannot reach the engine: ' + e, false));
