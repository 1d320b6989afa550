// Type declarations for onewrite (index.js).

/// <reference types="node" />

import * as http from 'node:http';

export interface InstallOptions {
  /**
   * `false` keeps `http.request()`'s side (ClientRequest) Node's own; the
   * responses' fast paths are on either way. Default: `true`, unless
   * `ONEWRITE_CLIENT=0` is in the environment.
   */
  client?: boolean;
}

/**
 * Puts the fast paths on Node's prototypes (responses, and requests unless
 * `client: false`). Idempotent. Returns whether they are on: `false` when
 * they cannot run here (see `status().reason`).
 */
export function install(options?: InstallOptions): boolean;

/**
 * Puts Node's own methods back on `http.ServerResponse.prototype`, exactly
 * as they were. Idempotent. Returns whether the fast paths were on.
 */
export function uninstall(): boolean;

/**
 * How often each fast path ran, and how often Node's own code did it; each
 * call counted once, the same way in every mode.
 */
export interface Counters {
  /** Heads rendered by the addon (or its cache). */
  heads: number;
  /** Heads Node rendered. */
  headsToNode: number;
  /** `end(data)` calls whose bytes left in one socket write. */
  ends: number;
  /** `end(data)` calls Node's own code sent. */
  endsToNode: number;
  /**
   * `write()` calls whose data went out in a write of onewrite's (on Node
   * 24+, the writes of one tick merged into one chunk count here when
   * onewrite sends that chunk).
   */
  writes: number;
  /** `write()` calls whose data Node's own code sent. */
  writesToNode: number;
  /** A request's heads (`http.request()`) rendered by the addon (or its cache). */
  requestHeads: number;
  /** A request's heads Node rendered. */
  requestHeadsToNode: number;
  /** A request's `end(data)`, its socket there, sent in one socket write. */
  requestEnds: number;
  /** A request's `end(data)`, its socket there, that Node's own code sent. */
  requestEndsToNode: number;
  /** A request's bytes queued before it had its socket, sent in one write when it came. */
  requestFlushes: number;
  /** The same, sent in Node's several writes (a single entry is not counted). */
  requestFlushesToNode: number;
}

interface StatusBase {
  /** `process.versions.node`. */
  node: string;
  /** The Node majors onewrite was tested on. */
  tested: number[];
  counters: Counters;
  /**
   * Every hand-over to Node's own code, counted by its reason (one name per
   * decision in the code): `'non-ascii head'`, `'encoding hex'`,
   * `'no socket'`, `'socket.write replaced'`, `'header getter or proxy'`, ...
   * (the README has more)
   */
  fallbacks: Record<string, number>;
  /**
   * Fast methods left out, and why: a method found wrapped by another
   * module (an agent loaded first) at `install()`, or replaced on
   * `http.OutgoingMessage.prototype` since onewrite loaded.
   */
  left: Record<string, string>;
  /**
   * The file of the binary loaded (a platform package's, a local build's,
   * or `ONEWRITE_BINARY`), or `null` when none was.
   */
  binary: string | null;
  /** Installed with the client side on (`http.request()` takes the fast paths too). */
  client: boolean;
}

/** Installed on `http.ServerResponse.prototype`, or the subclass in use. */
export interface StatusActive extends StatusBase {
  active: true;
  /** `'installed'`: install() or onewrite/register; `'subclass'`: `createServer({ ServerResponse })`. */
  mode: 'installed' | 'subclass';
  available: true;
  reason: null;
  remedy: null;
}

/** Could be installed, but is not. */
export interface StatusNotInstalled extends StatusBase {
  active: false;
  mode: 'off';
  available: true;
  reason: 'not installed';
  remedy: null;
}

/** Cannot run here; Node's own code is in charge. */
export interface StatusUnavailable extends StatusBase {
  active: false;
  mode: 'off';
  available: false;
  /**
   * Why not: `'disabled by ONEWRITE_DISABLE=1'`,
   * `'Node 27.0.0 is not a tested version (tested: 20, 22, 24, 26)'`,
   * `'Bun 1.4.5 is not Node.js: it lacks what onewrite relies on: ...'`,
   * `'the native addon could not be loaded: ...'`,
   * `'this Node lacks what onewrite relies on: ...'`.
   */
  reason: string;
  /**
   * What would turn onewrite on (`'... npx onewrite build ...'`), or
   * `null` where nothing is to be done (disabled on purpose, another
   * runtime).
   */
  remedy: string | null;
}

/** What `status()` returns. `active` implies `available`. */
export type Status = StatusActive | StatusNotInstalled | StatusUnavailable;

/** Whether the fast paths are on, could be, and why not. */
export function status(): Status;

/**
 * Whether the fast paths can run here (a tested Node, the addon loaded,
 * not disabled). Fixed when the package is loaded.
 */
export const available: boolean;

/**
 * `http.ServerResponse` with the fast paths on the subclass only, nothing
 * global touched (a plain subclass when they cannot run here):
 * `http.createServer({ ServerResponse }, handler)`.
 */
export class ServerResponse<
  Request extends http.IncomingMessage = http.IncomingMessage,
> extends http.ServerResponse<Request> {}

/**
 * Headers as `writeHead` takes them: an object, a flat
 * `[name, value, name, value, ...]` array or `[[name, value], ...]` pairs.
 */
export type Headers =
  | http.OutgoingHttpHeaders
  | readonly http.OutgoingHttpHeader[]
  | ReadonlyArray<readonly [string, http.OutgoingHttpHeader]>;

/** The body encodings `buildHead` renders. */
export type BodyEncoding = 'utf8' | 'utf-8' | 'latin1' | 'binary' | 'ascii';

export interface BuildHeadOptions {
  /** Send a `Date` header (default `true`). */
  date?: boolean | undefined;
  /** Keep the connection alive (default `true`). */
  keepAlive?: boolean | undefined;
  /** Milliseconds, for the `Keep-Alive: timeout=` header (default `5000`). */
  keepAliveTimeout?: number | undefined;
  /** For the `Keep-Alive: max=` header (default `0`: none). */
  maxRequestsPerSocket?: number | undefined;
  /** Default: the body's byte length; none means chunked. */
  contentLength?: number | undefined;
  /** A response to HEAD (default `false`). */
  head?: boolean | undefined;
  /** The body: the whole message Node sends for `setHeader()`s then `end(body)` is returned. */
  body?: string | Uint8Array | undefined;
  /** The body's encoding when it is a string (default `'utf8'`). */
  encoding?: BodyEncoding | undefined;
}

/**
 * What Node's `ServerResponse` sends on an HTTP/1.1 connection: without
 * `options.body`, the head `writeHead(statusCode, statusMessage, headers)`
 * renders (Node's `res._header`: chunked unless a length is given); with
 * it, the whole message of headers set with `setHeader()` and then
 * `end(body)`, `Content-Length` after `Keep-Alive` (`writeHead()` then
 * `end(body)` is sent chunked, unless `headers` has a `Content-Length`).
 * Invalid input throws Node's own errors (`ERR_HTTP_INVALID_STATUS_CODE`,
 * `ERR_INVALID_HTTP_TOKEN`, `ERR_INVALID_CHAR`, ...).
 */
export function buildHead(
  statusCode: number,
  statusMessage?: string | null | undefined,
  headers?: Headers | null | undefined,
  options?: BuildHeadOptions | null | undefined,
): Buffer;

// ---- streaming writers ------------------------------------------------------

export interface StreamOptions {
  /** Status code of the head (default `200`). */
  status?: number | undefined;
  /** Extra headers, over the writer's defaults. */
  headers?: http.OutgoingHttpHeaders | undefined;
}

export interface SSEOptions extends StreamOptions {
  /** Sent as the first `retry:` field, in milliseconds. */
  retry?: number | undefined;
  /** Milliseconds between `:` heartbeat comments (none by default). */
  heartbeat?: number | undefined;
}

/** One server-sent event: `data` that is not a string is sent as JSON. */
export interface SSEMessage {
  data?: unknown;
  event?: string | undefined;
  id?: string | number | undefined;
  /** A non-negative integer, in milliseconds. */
  retry?: number | undefined;
  comment?: string | undefined;
}

/** Resolved by `stream()`: how many items were written, and whether the client went away. */
export interface StreamResult {
  items: number;
  aborted: boolean;
}

export interface SSEWriter<Response extends http.ServerResponse = http.ServerResponse> {
  /**
   * Sends one event: a string is its data; an array, number, boolean or
   * null is sent as JSON data. Returns `res.write()`'s answer (`false`
   * once the response has ended).
   */
  send(message: string | number | boolean | null | readonly unknown[] | SSEMessage): boolean;
  /** Sends a comment (`: text`). */
  comment(text: string): boolean;
  /** Sends each item as an event, with backpressure; stops when the client goes away. */
  stream(
    iterable: Iterable<string | number | boolean | null | readonly unknown[] | SSEMessage>
      | AsyncIterable<string | number | boolean | null | readonly unknown[] | SSEMessage>,
  ): Promise<StreamResult>;
  /** Stops the heartbeat and ends the response. */
  close(): void;
  /** Same as `close()`. */
  end(): void;
  readonly response: Response;
}

export interface NDJSONWriter<Response extends http.ServerResponse = http.ServerResponse> {
  /** Writes one JSON line. Returns `res.write()`'s answer. */
  write(value: unknown): boolean;
  /** Writes each item as a line, with backpressure; stops when the client goes away. */
  stream(iterable: Iterable<unknown> | AsyncIterable<unknown>): Promise<StreamResult>;
  /** Ends the response. */
  end(): void;
  /** Same as `end()`. */
  close(): void;
  readonly response: Response;
}

/** Starts a `text/event-stream` response: one event per chunk per socket write. */
export function sse<Response extends http.ServerResponse>(
  res: Response,
  options?: SSEOptions,
): SSEWriter<Response>;

/** Starts an `application/x-ndjson` response: one JSON line per chunk per socket write. */
export function ndjson<Response extends http.ServerResponse>(
  res: Response,
  options?: StreamOptions,
): NDJSONWriter<Response>;
