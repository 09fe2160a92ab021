// Tideline fanout client: subscribes over Server-Sent Events, checks every change's epoch and seq,
// and resumes by itself. No framework, no build step.
//
//   const sub = TidelineFanout.subscribe({
//     channels: ['shop.orders.acme'], token: '<jwt>',
//     onChange(msg) {},                    // {channel, epoch, seq, ts, at, change: {op, db, coll, id, document, wallTime}}
//     onUnrecoverable(info) {},            // {channel, epoch, seq, reason}: history lost, re-read your snapshot
//     onStatus(state, detail) {},          // connecting | live | resuming | closed
//     refreshToken: async () => '<jwt>',   // optional: called when the token expired
//   });
//   sub.close();
(function (global) {
  'use strict';

  function subscribe(options) {
    const channels = options.channels.slice();
    const base = options.url || '/sse';
    const positions = {};            // channel -> {epoch, seq}: the last change applied
    let token = options.token;
    let source = null;
    let closed = false;
    let retryMs = 500;
    let lastEventId = null;          // cursor "<epoch>:<seq>,<seq>..." of the last event received
    const status = options.onStatus || function () {};
    const stats = { changes: 0, gaps: 0, resumes: 0, unrecoverable: 0 };

    function url() {
      const q = channels.map(c => 'channel=' + encodeURIComponent(c));
      q.push('token=' + encodeURIComponent(token));
      if (lastEventId) q.push('lastEventId=' + encodeURIComponent(lastEventId));
      else if (options.from) q.push('from=' + encodeURIComponent(options.from));
      return base + '?' + q.join('&');
    }

    function connect(state) {
      if (closed) return;
      status(state || 'connecting');
      source = new EventSource(url());
      source.addEventListener('subscribed', e => {
        const info = JSON.parse(e.data);
        const known = positions[info.channel];
        if (known && known.epoch !== info.epoch) {
          // another gateway run: whatever we hold may be stale, and the server says so next
          positions[info.channel] = { epoch: info.epoch, seq: info.seq };
        } else if (!known) {
          positions[info.channel] = { epoch: info.epoch, seq: info.seq };
        }
        lastEventId = e.lastEventId || lastEventId;
        retryMs = 500;
        status('live', info);
      });
      source.addEventListener('change', e => {
        const msg = JSON.parse(e.data);
        const known = positions[msg.channel];
        if (known && known.epoch === msg.epoch && msg.seq <= known.seq) return; // replayed: already applied
        if (known && (known.epoch !== msg.epoch || msg.seq !== known.seq + 1)) {
          // a gap: never apply past it; resume from the last change we did apply
          stats.gaps++;
          resumeFrom();
          return;
        }
        positions[msg.channel] = { epoch: msg.epoch, seq: msg.seq };
        lastEventId = e.lastEventId;
        stats.changes++;
        if (options.onChange) options.onChange(msg);
      });
      source.addEventListener('unrecoverable', e => {
        const info = JSON.parse(e.data);
        positions[info.channel] = { epoch: info.epoch, seq: info.seq };
        lastEventId = e.lastEventId;
        stats.unrecoverable++;
        if (options.onUnrecoverable) options.onUnrecoverable(info);
      });
      source.addEventListener('disconnect', e => {
        const info = JSON.parse(e.data);
        source.close();
        if (info.reason === 'token-expired') {
          if (!options.refreshToken) { closed = true; status('closed', info); return; }
          Promise.resolve(options.refreshToken()).then(t => { token = t; reconnect(); },
            () => { closed = true; status('closed', info); });
        } else {
          reconnect();                   // slow-consumer or shutdown: resume where we were
        }
      });
      source.onerror = () => {
        // EventSource would retry on its own with Last-Event-ID; we do it ourselves so the cursor is ours
        source.close();
        reconnect();
      };
    }

    function cursor() {
      const epoch = channels.map(c => positions[c] && positions[c].epoch).find(Boolean);
      if (!epoch) return null;
      return epoch + ':' + channels.map(c => (positions[c] && positions[c].epoch === epoch) ? positions[c].seq : 0).join(',');
    }

    function resumeFrom() {
      if (source) source.close();
      lastEventId = cursor();
      stats.resumes++;
      setTimeout(() => connect('resuming'), 0);
    }

    function reconnect() {
      if (closed) return;
      lastEventId = cursor() || lastEventId;
      stats.resumes++;
      status('resuming');
      setTimeout(() => connect('resuming'), retryMs);
      retryMs = Math.min(retryMs * 2, 15000);
    }

    connect();
    return {
      close() { closed = true; if (source) source.close(); status('closed'); },
      positions() { return JSON.parse(JSON.stringify(positions)); },
      stats() { return Object.assign({}, stats); },
    };
  }

  global.TidelineFanout = { subscribe };
})(typeof window !== 'undefined' ? window : globalThis);
