// Tideline fanout client: subscribes over Server-Sent Events and resumes by itself, exactly, after a
// dropped connection, a gateway restart or a move to another gateway behind the same address.
// No framework, no build step.
//
//   const sub = TidelineFanout.subscribe({
//     channels: ['shop.orders.acme'], token: '<jwt>',
//     from: 'earliest',                    // optional: first everything the topics still hold
//     onChange(msg) {},                    // {channel, topic, partition, offset, ts, at, change: {op, db, coll, id, document, wallTime}}
//     onUnrecoverable(info) {},            // {channel, reason}: changes were lost (past retention): reload your data
//     onStatus(state, detail) {},          // connecting | catching-up | live | resuming | closed
//     refreshToken: async () => '<jwt>',   // optional: called when the token expired
//   });
//   sub.close();
//
// The gateway's event ids are Kafka positions (topic partitions and offsets), valid on every gateway
// that reads the same topics: the client sends the last one back when it reconnects and the gateway
// sends exactly what it missed. As a safety net a change below a position already applied is skipped.
(function (global) {
  'use strict';

  function subscribe(options) {
    const channels = options.channels.slice();
    const base = options.url || '/sse';
    const positions = {};            // channel -> {"<topic>/<partition>": next offset}
    const live = {};                 // channel -> true once caught up
    let token = options.token;
    let source = null;
    let closed = false;
    let retryMs = 500;
    let lastEventId = options.lastEventId || null;   // the gateway's cursor of the last event handled
    const status = options.onStatus || function () {};
    const stats = { changes: 0, replaysSkipped: 0, resumes: 0, unrecoverable: 0 };

    function url() {
      const q = channels.map(c => 'channel=' + encodeURIComponent(c));
      q.push('token=' + encodeURIComponent(token));
      if (lastEventId) q.push('lastEventId=' + encodeURIComponent(lastEventId));
      else if (options.from) q.push('from=' + encodeURIComponent(options.from));
      return base + '?' + q.join('&');
    }

    function track(e) {
      if (e.lastEventId) lastEventId = e.lastEventId;
    }

    function connect(state) {
      if (closed) return;
      status(state || 'connecting');
      channels.forEach(c => { live[c] = false; });
      source = new EventSource(url());
      source.addEventListener('subscribed', e => {
        track(e);
        const info = JSON.parse(e.data);
        if (info.resume !== 'live') status('catching-up', info);
      });
      source.addEventListener('live', e => {
        track(e);
        const info = JSON.parse(e.data);
        live[info.channel] = true;
        if (channels.every(c => live[c])) {
          retryMs = 500;
          status('live', info);
        }
      });
      source.addEventListener('change', e => {
        const msg = JSON.parse(e.data);
        const at = positions[msg.channel] || (positions[msg.channel] = {});
        const key = msg.topic + '/' + msg.partition;
        track(e);
        if (at[key] !== undefined && msg.offset < at[key]) { stats.replaysSkipped++; return; }
        at[key] = msg.offset + 1;
        stats.changes++;
        if (options.onChange) options.onChange(msg);
      });
      source.addEventListener('position', track);
      source.addEventListener('unrecoverable', e => {
        track(e);
        const info = JSON.parse(e.data);
        stats.unrecoverable++;
        if (options.onUnrecoverable) options.onUnrecoverable(info);
      });
      source.addEventListener('disconnect', e => {
        track(e);
        const info = JSON.parse(e.data);
        source.close();
        if (info.reason === 'token-expired') {
          if (!options.refreshToken) { closed = true; status('closed', info); return; }
          Promise.resolve(options.refreshToken()).then(t => { token = t; reconnect(); },
            () => { closed = true; status('closed', info); });
        } else {
          reconnect();                   // slow-consumer, overloaded, unavailable, shutdown: resume where we were
        }
      });
      source.onerror = () => {
        // EventSource would retry on its own; we do it ourselves so that the cursor (and the token) are ours
        source.close();
        reconnect();
      };
    }

    function reconnect() {
      if (closed) return;
      stats.resumes++;
      status('resuming');
      setTimeout(() => connect('resuming'), retryMs);
      retryMs = Math.min(retryMs * 2, 15000);
    }

    connect();
    return {
      close() { closed = true; if (source) source.close(); status('closed'); },
      positions() { return JSON.parse(JSON.stringify(positions)); },
      lastEventId() { return lastEventId; },
      stats() { return Object.assign({}, stats); },
    };
  }

  global.TidelineFanout = { subscribe };
})(typeof window !== 'undefined' ? window : globalThis);
