'use strict';

// The numbers shared with csrc/binding.c and csrc/head.h.  They must stay in
// step with the enums there; test/native.js checks them against the addon.

// Int32 slots of the shared memory.
const S_STATE = 0;
const S_STATUS = 1;
const S_NPARTS = 2;
const S_TEXT_LEN = 3;
const S_LINE_MODE = 4;
const S_BODY_KIND = 5;
const S_FRAME = 6;
const S_WANT_ROLES = 7;
const S_RESULT = 8;
const S_OUT_STATE = 9;
const S_SEEN = 10;
const S_HEAD_LEN = 11;
const S_CL_PAIR = 12;
const S_CL_SIMPLE = 13;
const S_BAD_PAIR = 14;
const INT_SLOTS = 16;

// Float64 slots (the doubles start at byte 64).
const D_CONTENT_LENGTH = 0;
const D_BODY_LEN = 1;
const D_USER_CL = 2;
const DOUBLES_OFFSET = 64;
const DOUBLE_SLOTS = 8;

// One byte per header pair: its role (OW_ROLE_*), from byte 128, for up to
// MAX_PAIRS pairs; then the Int32 lengths of the text's parts.
const ROLES_OFFSET = 128;
const MAX_PAIRS = 1024;
const MAX_ROLES = MAX_PAIRS;
const LENGTHS_OFFSET = ROLES_OFFSET + MAX_PAIRS;
const ROLE_PLAIN = 0;
const ROLE_LENGTH = 1;
const ROLE_SPECIAL = 2;

// Body kinds.
const BODY_NONE = 0;
const BODY_ONE_BYTE = 1;
const BODY_BYTES = 2;

// Response state bits (head.h, OW_*).
const VALIDATE = 1 << 0;
const SEND_DATE = 1 << 1;
const KEEP_ALIVE = 1 << 2;
const CHUNKED_DEFAULT = 1 << 3;
const HAS_BODY = 1 << 4;
const REMOVED_CONN = 1 << 5;
const REMOVED_CL = 1 << 6;
const REMOVED_TE = 1 << 7;
const MAX_REACHED = 1 << 8;
const DEFAULT_KA = 1 << 9;
const AGENT = 1 << 10;
const CHUNKED = 1 << 11;
const LAST = 1 << 12;
const HAS_CL = 1 << 13;
const KA_TIMEOUT = 1 << 14;

// Header names seen (OW_SEEN_*).
const SEEN_CONNECTION = 1 << 0;
const SEEN_TE = 1 << 1;
const SEEN_CL = 1 << 2;
const SEEN_DATE = 1 << 3;
const SEEN_EXPECT = 1 << 4;
const SEEN_TRAILER = 1 << 5;

// Results (OW_OK, OW_BAIL_*), as fallback reasons.
const RESULTS = ['ok', 'non-ascii head', 'invalid header name', 'invalid header value',
  'invalid status message', 'trailer without chunked', 'head too large', 'head shape'];

module.exports = {
  S_STATE, S_STATUS, S_NPARTS, S_TEXT_LEN, S_LINE_MODE, S_BODY_KIND, S_FRAME, S_WANT_ROLES,
  S_RESULT, S_OUT_STATE, S_SEEN, S_HEAD_LEN, S_CL_PAIR, S_CL_SIMPLE, S_BAD_PAIR, INT_SLOTS,
  D_CONTENT_LENGTH, D_BODY_LEN, D_USER_CL, DOUBLES_OFFSET, DOUBLE_SLOTS,
  ROLES_OFFSET, MAX_PAIRS, MAX_ROLES, LENGTHS_OFFSET, ROLE_PLAIN, ROLE_LENGTH, ROLE_SPECIAL,
  BODY_NONE, BODY_ONE_BYTE, BODY_BYTES,
  VALIDATE, SEND_DATE, KEEP_ALIVE, CHUNKED_DEFAULT, HAS_BODY, REMOVED_CONN, REMOVED_CL,
  REMOVED_TE, MAX_REACHED, DEFAULT_KA, AGENT, CHUNKED, LAST, HAS_CL, KA_TIMEOUT,
  SEEN_CONNECTION, SEEN_TE, SEEN_CL, SEEN_DATE, SEEN_EXPECT, SEEN_TRAILER,
  RESULTS,
};
