// The same package from an ES module: default and named imports.

import onewrite, { install, status, buildHead, ServerResponse } from 'onewrite';
import * as http from 'node:http';

const a: boolean = onewrite.install() === install();
const b: boolean = status().available;
const c: Buffer = buildHead(200, undefined, { 'Content-Type': 'text/plain' }, { body: 'hi' });
http.createServer({ ServerResponse }, (req, res) => res.end('x'));

// @ts-expect-error buildHead with a non-number status
buildHead(undefined);
// @ts-expect-error active is a boolean
const s: string = onewrite.status().active;
