'use strict';

// What a user sees of onewrite in a stack trace: at most one frame, where
// Node's method would stand, named as Node's method (the method the user
// called: `ServerResponse.end`, `ServerResponse.writeHead`).
//
// The fast methods call Node's own code where Node's methods would, and
// helpers of their own between: an error Node throws from inside them
// (an invalid header value, a status code out of range) would carry those
// frames, and so would an error onewrite has Node make on a scratch
// message (lib/internals.js: its stack is where it was made).  tidy()
// gives such an error the frames it would have had: Node's frames and the
// user's as they are, each run of onewrite's own frames (with Node's
// frames between them) down to its outermost, and, where the frames the
// error keeps (Error.stackTraceLimit) were spent on onewrite's, the
// user's frames taken again from where the method was called.  Events and
// callbacks are called from the method's own frame or from Node's code
// (lib/response.js), never from a helper.
//
// Only the text of `stack` changes, and only where it has onewrite's
// frames to take out: an error's class, code, message and own properties
// stay, and an error with no frame of onewrite's (or at most one) is left
// alone.  Whatever fails here (a stack that is not a string, a limit that
// is not a number, a frozen error) leaves the error as it is, and so does
// an Error.prepareStackTrace that is not Node's own (see formatsAsNode).
// Reading the stack formats it now rather than when it is first read:
// Node's own formatting runs no code of the user's.

const path = require('node:path');
const {
  ErrorCaptureStackTrace, ErrorIntrinsic, ArrayPrototypeJoin, ObjectGetOwnPropertyDescriptor, RegExpPrototypeExec,
  StringPrototypeIncludes, StringPrototypeIndexOf, StringPrototypeSlice, StringPrototypeSplit, StringPrototypeStartsWith,
  dataOf, hasLine,
  newArray, newRegExp,
} = require('./primordials');

// (Not path.join(): Node's code, which calls builtins live, at load.)
const LIB = __dirname + path.sep;
const INDEX = StringPrototypeSlice(LIB, 0, LIB.length - 'lib'.length - 1) + 'index.js';
const FRAME = '    at ';
const LOCATION = newRegExp('\\((.*)\\)$');
const BARE = newRegExp('^\\s*at (?:async )?(.*)$');

// Where a stack line's frame runs: "file:line:col", "node:...", "native"
// or "<anonymous>", from "at f (where)" or "at where".
function frameWhere(line) {
  const m = RegExpPrototypeExec(LOCATION, line) ?? RegExpPrototypeExec(BARE, line);
  return m === null ? '' : m[1];
}

function isOwn(where) {
  return StringPrototypeStartsWith(where, LIB) || StringPrototypeStartsWith(where, `${INDEX}:`);
}

function isNodes(where) {
  return StringPrototypeStartsWith(where, 'node:') || where === 'native' || where === '<anonymous>';
}

const USER = 0;
const NODE = 1;
const OWN = 2;
function kindOf(line) {
  const where = frameWhere(line);
  return isOwn(where) ? OWN : isNodes(where) ? NODE : USER;
}

// Node's own Error.prepareStackTrace, as found at load, or null.  A stack
// is only read (and so formatted) here while it is still the one: another
// (source-map-support's, an agent's) is code of the user's, which would
// run here, when and as often as it would not with stock Node.  With one,
// an error keeps the frames it has.
const NODE_PREPARE = (() => {
  const fn = ErrorIntrinsic === undefined ? undefined : dataOf(ErrorIntrinsic, 'prepareStackTrace');
  return hasLine(fn, 'return internalPrepareStackTrace(error, trace);') ? fn : null;
})();
function formatsAsNode() {
  return NODE_PREPARE !== null && dataOf(ErrorIntrinsic, 'prepareStackTrace') === NODE_PREPARE;
}

// The number of frames an error keeps, or -1 where that is not a number
// (or cannot be read without running code).
function stackLimit() {
  const d = ErrorIntrinsic === undefined ? undefined : ObjectGetOwnPropertyDescriptor(ErrorIntrinsic, 'stackTraceLimit');
  return d !== undefined && typeof d.value === 'number' && d.value >= 0 ? d.value : -1;
}

// The frame lines of `boundary`'s callers, `depth` of them (a limit that
// cannot be changed is used as it is, and put back as it was).
function callers(boundary, depth) {
  if (ErrorCaptureStackTrace === undefined) return newArray();
  const holder = { __proto__: null };
  const d = ObjectGetOwnPropertyDescriptor(ErrorIntrinsic, 'stackTraceLimit');
  const writable = d !== undefined && d.writable === true;
  if (writable) ErrorIntrinsic.stackTraceLimit = depth;
  try {
    ErrorCaptureStackTrace(holder, boundary);
  } finally {
    if (writable) ErrorIntrinsic.stackTraceLimit = d.value;
  }
  const text = holder.stack;
  return typeof text === 'string' ? framesOf(text) : newArray();
}

// A stack's frame lines.
function framesOf(text) {
  const lines = StringPrototypeSplit(text, '\n');
  const frames = newArray();
  for (let i = 0; i < lines.length; i++) {
    if (StringPrototypeStartsWith(lines[i], FRAME)) frames[frames.length] = lines[i];
  }
  return frames;
}

// `frames` with each run of onewrite's and Node's frames that has
// onewrite's in it kept as Node's frames and the run's last (outermost)
// frame of onewrite's, from `from` to `to`.
function collapse(frames, from = 0, to = frames.length, out = newArray()) {
  let i = from;
  while (i < to) {
    if (kindOf(frames[i]) === USER) {
      out[out.length] = frames[i++];
      continue;
    }
    let j = i;
    let last = -1;
    while (j < to && kindOf(frames[j]) !== USER) {
      if (kindOf(frames[j]) === OWN) last = j;
      j++;
    }
    for (let k = i; k < j; k++) {
      if (kindOf(frames[k]) !== OWN || k === last) out[out.length] = frames[k];
    }
    i = j;
  }
  return out;
}

function countOwn(frames) {
  let n = 0;
  for (let i = 0; i < frames.length; i++) if (kindOf(frames[i]) === OWN) n++;
  return n;
}

function firstUser(frames) {
  for (let i = 0; i < frames.length; i++) if (kindOf(frames[i]) === USER) return i;
  return frames.length;
}

// Node's writeHead called by onewrite's in its place is named after the
// alias Node keeps of it (20 22 24): `writeHead [as writeHeader]`.
const ALIAS = ' [as writeHeader] (node:_http_server:';
function unalias(line) {
  const at = frameWhere(line);
  return StringPrototypeIncludes(line, ALIAS) && StringPrototypeStartsWith(at, 'node:_http_server:')
    ? `${FRAME}ServerResponse.writeHead (${at})` : line;
}

// Node's end(), write(), uncork() and _storeHeader() called by onewrite's
// in their place on a ServerResponse are named after the class V8 finds
// them on, where it does not find them on the response (as it does with
// stock Node): `OutgoingMessage.write`.
const OUTGOING = newRegExp('^ {4}at OutgoingMessage\\.(end|write|uncork|_storeHeader) \\(node:_http_outgoing:', 'm');
function renamed(line) {
  return RegExpPrototypeExec(OUTGOING, line) === null ? line
    : `${FRAME}ServerResponse.${StringPrototypeSlice(line, FRAME.length + 'OutgoingMessage.'.length)}`;
}

// `err`, its stack told as above; returned, whatever happens.  `made`:
// the error was made on a scratch message (lib/internals.js), and its
// frames are not where it is thrown: they are all taken again.
// `response`: the method's receiver is a ServerResponse.
function tidy(err, made = false, response = false) {
  try {
    tidyStack(err, made, response);
  } catch {}
  return err;
}

function tidyStack(err, made, response) {
  if (typeof err !== 'object' || err === null || ErrorIntrinsic === undefined || !formatsAsNode()) return;
  const limit = stackLimit();
  if (limit <= 0) return;
  const text = err.stack;
  if (typeof text !== 'string') return;
  const start = firstFrameAt(text, err);
  if (start < 0) return;
  const frames = framesOf(StringPrototypeSlice(text, start));
  const own = countOwn(frames);
  // Nothing to take out, nothing the frame of onewrite's took the place of.
  if (!made && own <= 1 && frames.length < limit && !StringPrototypeIncludes(text, ALIAS) &&
      !(response && RegExpPrototypeExec(OUTGOING, text) !== null)) return;
  if (!made && own === 0) return;
  const head = StringPrototypeSlice(text, 0, start);
  let kept;
  if (made) {
    kept = collapse(callers(tidy, limit + 64));
  } else if (frames.length < limit) {
    // Every frame was kept: nothing to take again.
    kept = collapse(frames);
  } else {
    // The limit was reached: the frames past the method are taken again,
    // from here (here[0] is the method's frame, here[1] its caller, the
    // same line as in the error's stack).  Where the error's stack reaches
    // that caller, it is kept up to the method's frame, all of it (the
    // user's listeners and wrappers, Node's frames between), and the
    // callers follow; where it ends before, all of it is kept, the
    // method's frame and its callers after it.
    const here = callers(tidy, limit + 64);
    kept = newArray();
    let j = -1;
    for (let i = 0; i + 1 < frames.length; i++) {
      if (kindOf(frames[i]) === OWN && here.length > 1 && frames[i + 1] === here[1]) j = i;
    }
    if (j >= 0) {
      collapse(frames, 0, j + 1, kept);
      for (let i = 1; i < here.length; i++) kept[kept.length] = here[i];
    } else {
      // (onewrite's frames at the end of the error's stack stand for the
      // method's, which follows.)
      let end = frames.length;
      while (end > 0 && kindOf(frames[end - 1]) !== USER) end--;
      collapse(frames, 0, end, kept);
      for (let i = end; i < frames.length; i++) if (kindOf(frames[i]) !== OWN) kept[kept.length] = frames[i];
      collapse(here, 0, here.length, kept);
    }
  }
  // The one frame of onewrite's takes no place of the user's: the stack
  // has as many of theirs (and Node's) as it would without onewrite.
  const keep = limit + (countOwn(kept) > 0 ? 1 : 0);
  const lines = newArray();
  for (let i = 0; i < kept.length && i < keep; i++) lines[i] = response ? renamed(unalias(kept[i])) : unalias(kept[i]);
  err.stack = head + ArrayPrototypeJoin(lines, '\n');
}

// Where the first frame line starts in a stack's text, or -1: after the
// message (which may hold lines that look like frames: another error's
// stack quoted in it), where the message can be found in the text.
function firstFrameAt(text, err) {
  let from = 0;
  const d = ObjectGetOwnPropertyDescriptor(err, 'message');
  const message = d !== undefined ? d.value : undefined;
  if (typeof message === 'string' && message !== '') {
    const at = StringPrototypeIndexOf(text, message);
    if (at >= 0) from = at + message.length;
  }
  if (from === 0 && StringPrototypeStartsWith(text, FRAME)) return 0;
  const lines = StringPrototypeSplit(StringPrototypeSlice(text, from), '\n');
  let at = from;
  for (let i = 0; i < lines.length; i++) {
    if (StringPrototypeStartsWith(lines[i], FRAME)) return at;
    at += lines[i].length + 1;
  }
  return -1;
}

module.exports = { tidy, callers, frameWhere, isOwn, isNodes };
