// Type-checked by test/types.js (tsc --noEmit, strict): every public API of
// onewrite used with correct types, and wrong usage that must be rejected.
// Imports the package by its name, through the "exports" map's "types".

import * as http from 'node:http';
import * as onewrite from 'onewrite';
import {
  install, uninstall, status, available, buildHead, ServerResponse, sse, ndjson,
} from 'onewrite';
import type {
  Status, Counters, BuildHeadOptions, Headers, SSEWriter, NDJSONWriter, StreamResult, InstallOptions,
} from 'onewrite';

// ---- install / uninstall / available ----------------------------------------

const installed: boolean = install();
const serverOnly: boolean = install({ client: false });
const options: InstallOptions = { client: true };
// @ts-expect-error client is a boolean
install({ client: 'no' });
const removed: boolean = uninstall();
const canRun: boolean = available;
const same: boolean = onewrite.install() && onewrite.uninstall() && onewrite.available;

// ---- status ------------------------------------------------------------------

const s: Status = status();
const active: boolean = s.active;
const isAvailable: boolean = s.available;
const reason: string | null = s.reason;
const node: string = s.node;
const tested: number[] = s.tested;
const counters: Counters = s.counters;
const total: number = counters.heads + counters.headsToNode + counters.ends +
  counters.endsToNode + counters.writes + counters.writesToNode;
const requests: number = counters.requestHeads + counters.requestHeadsToNode + counters.requestEnds +
  counters.requestEndsToNode + counters.requestFlushes + counters.requestFlushesToNode;
const clientSide: boolean = s.client;
const hexFallbacks: number | undefined = s.fallbacks['encoding hex'];
const leftOut: string | undefined = s.left.writeHead;
const mode: 'installed' | 'subclass' | 'off' = s.mode;
const binaryFile: string | null = s.binary;
const remedy: string | null = s.remedy;

// The union narrows: active implies available and no reason; unavailable
// always has a reason.
if (s.active) {
  const on: true = s.available;
  const none: null = s.reason;
  const nothingToDo: null = s.remedy;
  const how: 'installed' | 'subclass' = s.mode;
} else if (!s.available) {
  const why: string = s.reason;
  why.startsWith('the native addon could not be loaded');
  const todo: string | null = s.remedy;
} else {
  const notInstalled: 'not installed' = s.reason;
}

// ---- buildHead -----------------------------------------------------------------

const h1: Buffer = buildHead(200);
const h2: Buffer = buildHead(200, undefined, { 'Content-Type': 'text/plain' }, { body: 'hello' });
const h3: Buffer = buildHead(404, 'Not Here', ['X-A', '1', 'X-B', 2]);
const h4: Buffer = buildHead(200, 'OK', [['Set-Cookie', ['a=1', 'b=2']], ['Content-Length', 5]]);
const opts: BuildHeadOptions = {
  date: false,
  keepAlive: true,
  keepAliveTimeout: 5000,
  maxRequestsPerSocket: 0,
  contentLength: 3,
  head: false,
  body: new Uint8Array([1, 2, 3]),
  encoding: 'latin1',
};
const h5: Buffer = buildHead(200, null, null, opts);
const h6: Buffer = onewrite.buildHead(204, 'No Content', {}, { body: Buffer.from('x'), encoding: 'utf-8' });
const headers: Headers = { 'content-length': 5, 'x-list': ['a', 'b'] };
const h7: Uint8Array = buildHead(200, undefined, headers);

// ---- ServerResponse ------------------------------------------------------------

const server: http.Server = http.createServer({ ServerResponse }, (req, res) => {
  const r: ServerResponse = res;
  const plain: http.ServerResponse = res;
  const incoming: http.IncomingMessage = req;
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end('hello');
});
class Mine extends ServerResponse {
  extra = 1;
}
const mineServer = http.createServer({ ServerResponse: Mine }, (req, res) => {
  const n: number = res.extra;
  res.end();
});
const isSub: boolean = ServerResponse.prototype instanceof http.ServerResponse;

// ---- streaming writers ---------------------------------------------------------

http.createServer(async (req, res) => {
  if (req.url === '/events') {
    const events: SSEWriter<http.ServerResponse> = sse(res, {
      retry: 3000, heartbeat: 15000, status: 200, headers: { 'X-A': '1' },
    });
    const ok: boolean = events.send('hello');
    events.send({ event: 'tick', id: '7', data: { n: 1 } });
    events.send({ id: 8, retry: 1000, comment: 'c' });
    events.send([1, 2]);
    events.comment('keep-alive');
    async function* ticks() { yield 'a'; yield { data: 1 }; }
    const result: StreamResult = await events.stream(ticks());
    const counted: number = result.items;
    const aborted: boolean = result.aborted;
    const back: http.ServerResponse = events.response;
    events.close();
  } else {
    const lines: NDJSONWriter<http.ServerResponse> = onewrite.ndjson(res, { status: 201 });
    lines.write({ row: 1 });
    await lines.stream([{ row: 2 }, { row: 3 }]);
    lines.end();
  }
});

// ---- wrong usage: each line must be an error ------------------------------------

// @ts-expect-error status code must be a number
buildHead('200');
// @ts-expect-error statusMessage is a string, not a number
buildHead(200, 404);
// @ts-expect-error unknown option
buildHead(200, undefined, {}, { bodyy: 'x' });
// @ts-expect-error encodings buildHead does not render
buildHead(200, undefined, {}, { body: 'x', encoding: 'base64' });
// @ts-expect-error body is a string or bytes
buildHead(200, undefined, {}, { body: 42 });
// @ts-expect-error it returns a Buffer, not a string
const notString: string = buildHead(200);
// @ts-expect-error active is a boolean
const activeText: string = status().active;
// @ts-expect-error reason may be null
const reasonText: string = status().reason;
// @ts-expect-error no such counter
status().counters.bytes;
// @ts-expect-error counters are numbers
const headsText: string = status().counters.heads;
// @ts-expect-error fallbacks are counts
const reasonCount: string = status().fallbacks.x;
// @ts-expect-error no such mode
const badMode: 'on' = status().mode;
// @ts-expect-error install takes no argument and returns a boolean
const installText: string = install();
// @ts-expect-error available is a value, not a function
available();
// @ts-expect-error no such export
onewrite.patch();
// @ts-expect-error ServerResponse needs a request
new ServerResponse();
// @ts-expect-error sse wants a response
sse({});
// @ts-expect-error an SSE retry is a number
sse(new ServerResponse(new http.IncomingMessage(null as never)), { retry: '3000' });
