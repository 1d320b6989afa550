'use strict';

// node -r onewrite/register app.js
require('./lib/install').register();
