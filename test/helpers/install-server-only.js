'use strict';

// Preloaded by test/client.js: onewrite with the client side kept Node's.
require('../..').install({ client: false });
