// node --import onewrite/register app.mjs
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
require('./lib/install.js').register();
