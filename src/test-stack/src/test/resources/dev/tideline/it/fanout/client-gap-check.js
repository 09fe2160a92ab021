// Runs in the demo page (FanoutBrowserIT): drives fanout-client.js with a scripted EventSource and
// records what it does with a replayed change, a position event, an unrecoverable event and a
// slow-consumer disconnect: it must resume with the last event id it handled.
(() => {
  const opened = [];
  class ScriptedEventSource {
    constructor(url) { this.url = url; this.listeners = {}; this.closed = false; opened.push(this); }
    addEventListener(type, f) { this.listeners[type] = f; }
    close() { this.closed = true; }
    emit(type, data, id) { if (this.listeners[type]) this.listeners[type]({ data: JSON.stringify(data), lastEventId: id }); }
  }
  const real = window.EventSource;
  window.EventSource = ScriptedEventSource;
  const check = window.__gapCheck = { opened, got: [], lost: [], steps: [], states: [] };
  const ch = 'd.c.t';
  const change = (offset) => ({ channel: ch, topic: 'x.d.c', partition: 0, offset, change: {} });
  const sub = TidelineFanout.subscribe({
    channels: [ch], token: 'tok',
    onChange: m => check.got.push(m.offset),
    onUnrecoverable: i => check.lost.push(i.reason),
    onStatus: s => check.states.push(s),
  });
  const first = opened[0];
  first.emit('subscribed', { channel: ch, resume: 'live' }, 'c0');
  first.emit('live', { channel: ch }, 'c0');
  first.emit('change', change(5), 'c6');
  first.emit('change', change(9), 'c10');
  first.emit('change', change(9), 'c10');        // sent twice: applied once
  first.emit('position', {}, 'c20');             // a quiet channel's position moves on
  check.steps.push('last id ' + sub.lastEventId());
  first.emit('disconnect', { reason: 'slow-consumer' }, 'c20');
  check.steps.push('first closed=' + first.closed);
  const waitFor = (cond, then) => { const t = setInterval(() => { if (cond()) { clearInterval(t); then(); } }, 10); };
  waitFor(() => opened.length === 2, () => {
    const second = opened[1];
    check.steps.push('resumed with ' + decodeURIComponent(second.url.split('lastEventId=')[1] || ''));
    second.emit('subscribed', { channel: ch, resume: 'kafka' }, 'c20');
    second.emit('change', change(21), 'c22');
    second.emit('unrecoverable', { channel: ch, reason: 'beyond-retention' }, 'c40');
    second.emit('live', { channel: ch }, 'c40');
    second.onerror();                            // the connection drops
    waitFor(() => opened.length === 3, () => {
      check.steps.push('after error resumed with ' + decodeURIComponent(opened[2].url.split('lastEventId=')[1] || ''));
      sub.close();
      window.EventSource = real;
      check.done = true;
    });
  });
})();
