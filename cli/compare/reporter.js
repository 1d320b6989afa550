'use strict';

// Preloaded into the app beside onewrite/register by `onewrite compare`
// (node -r register.js -r reporter.js app.js): answers the comparison's
// questions about onewrite's status over the IPC channel it was started
// with.  Every message either way carries TAG, so an app listening to
// process.on('message') can tell them from its own; the channel is unref'd,
// so it never keeps the app alive.  Without a channel (run by hand) it does
// nothing.  When the comparison dies, the channel closes and the app is
// sent SIGTERM, so that no app is left behind.

const TAG = 'onewrite-compare'; // app.js has the same

if (typeof process.send === 'function') {
  const onewrite = require('../../index.js'); // the copy register.js installed
  const send = (message) => {
    try {
      process.send({ [TAG]: true, ...message });
    } catch {} // the comparison went away: nothing to tell
  };
  process.on('message', (m) => {
    if (m && m[TAG] === true && m.type === 'status') send({ type: 'status', id: m.id, status: onewrite.status() });
  });
  // The comparison gone (killed): the app goes too, by its own SIGTERM handling.
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  if (process.channel && typeof process.channel.unref === 'function') process.channel.unref();
  send({ type: 'hello', status: onewrite.status() });
}
