// Runs in the demo page (FanoutBrowserIT): drives fanout-client.js with a scripted EventSource and
// records what it does on a gap, a replay, an unrecoverable event and a slow-consumer disconnect.
(() => {
  const opened = [];
  class ScriptedEventSource {
    constructor(url) { this.url = url; this.listeners = {}; this.closed = false; opened.push(this); }
    addEventListener(type, f) { this.listeners[type] = f; }
    close() { this.closed = true; }
    emit(type, data, id) { this.listeners[type]({ data: JSON.stringify(data), lastEventId: id }); }
  }
  const real = window.EventSource;
  window.EventSource = ScriptedEventSource;
  const check = window.__gapCheck = { opened, got: [], lost: [], steps: [] };
  const ch = 'd.c.t';
  TidelineFanout.subscribe({
    channels: [ch], token: 'tok',
    onChange: m => check.got.push(m.seq),
    onUnrecoverable: i => check.lost.push(i.reason),
  });
  const first = opened[0];
  first.emit('subscribed', { channel: ch, epoch: 'e1', seq: 0 }, 'e1:0');
  first.emit('change', { channel: ch, epoch: 'e1', seq: 1, change: {} }, 'e1:1');
  first.emit('change', { channel: ch, epoch: 'e1', seq: 2, change: {} }, 'e1:2');
  first.emit('change', { channel: ch, epoch: 'e1', seq: 4, change: {} }, 'e1:4'); // seq 3 is missing
  check.steps.push('gap emitted; first closed=' + first.closed);
  const waitFor = (cond, then) => { const t = setInterval(() => { if (cond()) { clearInterval(t); then(); } }, 10); };
  waitFor(() => opened.length === 2, () => {
    const second = opened[1];
    check.steps.push('resumed with ' + decodeURIComponent(second.url.split('lastEventId=')[1] || ''));
    second.emit('subscribed', { channel: ch, epoch: 'e1', seq: 4 }, 'e1:2');
    second.emit('change', { channel: ch, epoch: 'e1', seq: 3, change: {} }, 'e1:3');
    second.emit('change', { channel: ch, epoch: 'e1', seq: 4, change: {} }, 'e1:4');
    second.emit('change', { channel: ch, epoch: 'e1', seq: 4, change: {} }, 'e1:4'); // a replay: ignored
    second.emit('unrecoverable', { channel: ch, epoch: 'e1', seq: 9, reason: 'beyond-history' }, 'e1:9');
    second.emit('change', { channel: ch, epoch: 'e1', seq: 10, change: {} }, 'e1:10');
    second.emit('disconnect', { reason: 'slow-consumer' }, 'e1:10');
    waitFor(() => opened.length === 3, () => {
      check.steps.push('after disconnect resumed with ' + decodeURIComponent(opened[2].url.split('lastEventId=')[1] || ''));
      window.EventSource = real;
      check.done = true;
    });
  });
})();
