/*
 * reference.c - the slow model of head.c used as the fuzzing oracle.
 * See reference.h.
 *
 * Written from the specification, not from head.c:
 *   - Node's lib/_http_outgoing.js (_storeHeader, processHeader,
 *     storeHeader, matchHeader) and lib/_http_server.js (writeHead's
 *     status code and status message checks), followed statement by
 *     statement with one C variable per JavaScript field;
 *   - Node's regular expressions spelled out as character lists
 *     (_http_common.js tokenRegExp and headerCharRegex);
 *   - the contract of head.h: the first line is either given whole or
 *     made of status and reason; every byte >= 0x80 in the first line /
 *     reason / names / values is declined, validated or not; Date and
 *     Keep-Alive values are the caller's (ASCII-checked by the caller,
 *     head.h) and copied as given, an empty one is a refusal when the line
 *     is needed; fields == NULL with nfields > 0 is declined; anything Node
 *     would throw for is declined.
 *
 * What the builder hands back instead of changing state itself: a user
 * Content-Length header sets Node's _contentLength to +value; the builder
 * reports the pair's index (ow_plan.cl_field) and the caller assigns
 * _contentLength, so OW_HAS_CL in the output state is left as it came in.
 */
#include "reference.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* A growable string: the JavaScript `header += ...`.                  */

typedef struct strbuf {
  char *buf;
  size_t len;
  size_t cap;
} strbuf;

static void sb_append(strbuf *s, const char *p, size_t n) {
  if (s->len + n + 1 > s->cap) {
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->len + n + 1) cap *= 2;
    char *grown = realloc(s->buf, cap);
    if (grown == NULL) abort();
    s->buf = grown;
    s->cap = cap;
  }
  for (size_t i = 0; i < n; i++) s->buf[s->len + i] = p[i];
  s->len += n;
  s->buf[s->len] = '\0';
}

static void sb_text(strbuf *s, const char *z) { sb_append(s, z, strlen(z)); }
static void sb_slice(strbuf *s, ow_slice x) { sb_append(s, x.ptr, x.len); }

/* ------------------------------------------------------------------ */
/* Character classes, from Node's regular expressions.                 */

static const char LETTERS_DIGITS[] =
    "abcdefghijklmnopqrstuvwxyz"
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "0123456789";
/* The punctuation of tokenRegExp = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/ */
static const char TOKEN_PUNCTUATION[] = "^_`-!#$%&'*+.|~";

/* c is one of the characters of list (the list's terminating NUL is not). */
static bool in_list(unsigned char c, const char *list) {
  for (size_t i = 0; list[i] != '\0'; i++) {
    if ((unsigned char)list[i] == c) return true;
  }
  return false;
}

int ref_is_token_char(unsigned char c) {
  return in_list(c, LETTERS_DIGITS) || in_list(c, TOKEN_PUNCTUATION);
}

/* headerCharRegex = /[^\t\x20-\x7e\x80-\xff]/ finds an invalid character;
 * a valid one is a tab or 0x20..0x7e (the ASCII part; 0x80..0xff are valid
 * for Node but never reach a check here: they are declined first). */
int ref_is_value_char(unsigned char c) {
  if (c == '\t') return 1;
  if (c >= 0x20 && c <= 0x7e) return 1;
  return 0;
}

int ref_is_ascii(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c > 127) return 0;
  }
  return 1;
}

/* \w of a JavaScript regular expression without the u flag: [A-Za-z0-9_]. */
static bool is_js_word_char(unsigned char c) {
  return in_list(c, LETTERS_DIGITS) || c == '_';
}

static unsigned char ascii_lower(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return (unsigned char)(c - 'A' + 'a');
  return c;
}

/* /(?:^|\W)word(?:$|\W)/i for a lowercase word made of \w characters only
 * ("close", "chunked").  Such a word can only match a whole run of \w
 * characters (the characters around it must be \W or an end), so: cut the
 * value into maximal runs of \w characters and compare each with the word,
 * ignoring ASCII case. */
static bool has_word_run(ow_slice value, const char *word) {
  size_t wlen = strlen(word);
  size_t i = 0;
  while (i < value.len) {
    if (!is_js_word_char((unsigned char)value.ptr[i])) {
      i++;
      continue;
    }
    size_t start = i;
    while (i < value.len && is_js_word_char((unsigned char)value.ptr[i])) i++;
    if (i - start != wlen) continue;
    bool same = true;
    for (size_t k = 0; k < wlen; k++) {
      if (ascii_lower((unsigned char)value.ptr[start + k]) != (unsigned char)word[k]) same = false;
    }
    if (same) return true;
  }
  return false;
}

/* field.toLowerCase() === lit, for a lowercase literal. */
static bool lower_equals(ow_slice field, const char *lit) {
  if (field.len != strlen(lit)) return false;
  for (size_t k = 0; k < field.len; k++) {
    if (ascii_lower((unsigned char)field.ptr[k]) != (unsigned char)lit[k]) return false;
  }
  return true;
}

/* ------------------------------------------------------------------ */
/* Numbers.                                                            */

size_t ref_u64_text(uint64_t n, char *buf) {
  int w = snprintf(buf, 32, "%" PRIu64, n);
  return (size_t)w;
}

size_t ref_chunk_line_text(uint64_t n, char *buf) {
  int w = snprintf(buf, 32, "%" PRIx64 "\r\n", n);
  return (size_t)w;
}

/* ------------------------------------------------------------------ */
/* The response, one field per JavaScript property.                    */

typedef struct response {
  bool validate;                       /* headers from writeHead() */
  bool sendDate;
  bool shouldKeepAlive;
  bool useChunkedEncodingByDefault;
  bool _hasBody;
  bool _removedConnection;
  bool _removedContLen;
  bool _removedTE;
  bool maxRequestsOnConnectionReached;
  bool _defaultKeepAlive;
  bool agent;
  bool chunkedEncoding;
  bool _last;
  bool contentLengthIsNumber;          /* typeof _contentLength === 'number' */
  bool _keepAliveTimeout;              /* truthy */
  uint32_t other_bits;                 /* bits of state this model does not know: kept */
} response;

static bool has_bit(uint32_t state, uint32_t bit) { return (state & bit) == bit; }

static const uint32_t KNOWN_BITS =
    OW_VALIDATE | OW_SEND_DATE | OW_KEEP_ALIVE | OW_CHUNKED_DEFAULT | OW_HAS_BODY |
    OW_REMOVED_CONN | OW_REMOVED_CL | OW_REMOVED_TE | OW_MAX_REACHED | OW_DEFAULT_KA |
    OW_AGENT | OW_CHUNKED | OW_LAST | OW_HAS_CL | OW_KA_TIMEOUT;

static response response_from_bits(uint32_t s) {
  response r;
  r.validate = has_bit(s, OW_VALIDATE);
  r.sendDate = has_bit(s, OW_SEND_DATE);
  r.shouldKeepAlive = has_bit(s, OW_KEEP_ALIVE);
  r.useChunkedEncodingByDefault = has_bit(s, OW_CHUNKED_DEFAULT);
  r._hasBody = has_bit(s, OW_HAS_BODY);
  r._removedConnection = has_bit(s, OW_REMOVED_CONN);
  r._removedContLen = has_bit(s, OW_REMOVED_CL);
  r._removedTE = has_bit(s, OW_REMOVED_TE);
  r.maxRequestsOnConnectionReached = has_bit(s, OW_MAX_REACHED);
  r._defaultKeepAlive = has_bit(s, OW_DEFAULT_KA);
  r.agent = has_bit(s, OW_AGENT);
  r.chunkedEncoding = has_bit(s, OW_CHUNKED);
  r._last = has_bit(s, OW_LAST);
  r.contentLengthIsNumber = has_bit(s, OW_HAS_CL);
  r._keepAliveTimeout = has_bit(s, OW_KA_TIMEOUT);
  r.other_bits = s & ~KNOWN_BITS;
  return r;
}

static uint32_t response_to_bits(const response *r) {
  uint32_t s = r->other_bits;
  if (r->validate) s |= OW_VALIDATE;
  if (r->sendDate) s |= OW_SEND_DATE;
  if (r->shouldKeepAlive) s |= OW_KEEP_ALIVE;
  if (r->useChunkedEncodingByDefault) s |= OW_CHUNKED_DEFAULT;
  if (r->_hasBody) s |= OW_HAS_BODY;
  if (r->_removedConnection) s |= OW_REMOVED_CONN;
  if (r->_removedContLen) s |= OW_REMOVED_CL;
  if (r->_removedTE) s |= OW_REMOVED_TE;
  if (r->maxRequestsOnConnectionReached) s |= OW_MAX_REACHED;
  if (r->_defaultKeepAlive) s |= OW_DEFAULT_KA;
  if (r->agent) s |= OW_AGENT;
  if (r->chunkedEncoding) s |= OW_CHUNKED;
  if (r->_last) s |= OW_LAST;
  if (r->contentLengthIsNumber) s |= OW_HAS_CL;
  if (r->_keepAliveTimeout) s |= OW_KA_TIMEOUT;
  return s;
}

/* _storeHeader's local `state`. */
typedef struct store_state {
  bool connection;
  bool contLen;
  bool te;
  bool date;
  bool expect;
  bool trailer;
  strbuf header;
} store_state;

/* matchHeader(self, state, field, value) */
static void match_header(response *self, store_state *state, ow_slice field, ow_slice value,
                         size_t index, ref_result *out) {
  if (field.len < 4 || field.len > 17) return;
  if (lower_equals(field, "connection")) {
    state->connection = true;
    self->_removedConnection = false;
    if (has_word_run(value, "close"))
      self->_last = true;
    else
      self->shouldKeepAlive = true;
  } else if (lower_equals(field, "transfer-encoding")) {
    state->te = true;
    self->_removedTE = false;
    if (has_word_run(value, "chunked")) self->chunkedEncoding = true;
  } else if (lower_equals(field, "content-length")) {
    state->contLen = true;
    /* self._contentLength = +value: handed back as the pair's index. */
    out->cl_field = index;
    self->_removedContLen = false;
  } else if (lower_equals(field, "date")) {
    state->date = true;
  } else if (lower_equals(field, "expect")) {
    state->expect = true;
  } else if (lower_equals(field, "trailer")) {
    state->trailer = true;
  } else if (lower_equals(field, "keep-alive")) {
    self->_defaultKeepAlive = false;
  }
}

static void decline(ref_result *out, store_state *state, const char *why) {
  free(state->header.buf);
  state->header.buf = NULL;
  out->accepted = 0;
  out->why = why;
  out->head = NULL;
  out->head_len = 0;
  out->state = 0;
  out->seen = 0;
  out->cl_field = 0;
}

void ref_head(const ow_head_in *in, ref_result *out) {
  response self = response_from_bits(in->state);
  store_state state;
  memset(&state, 0, sizeof state);
  memset(out, 0, sizeof *out);

  if (in->nfields > 0 && in->fields == NULL) {
    decline(out, &state, "fields missing");
    return;
  }

  /* The first line: given whole, or writeHead()'s
   * `HTTP/1.1 ${statusCode} ${this.statusMessage}\r\n`. */
  if (in->first_line.len != 0) {
    if (!ref_is_ascii(in->first_line.ptr, in->first_line.len)) {
      decline(out, &state, "first line not ASCII");
      return;
    }
    sb_slice(&state.header, in->first_line);
  } else {
    if (in->status < 100 || in->status > 999) {
      decline(out, &state, "ERR_HTTP_INVALID_STATUS_CODE");
      return;
    }
    if (!ref_is_ascii(in->reason.ptr, in->reason.len)) {
      decline(out, &state, "reason not ASCII");
      return;
    }
    for (size_t k = 0; k < in->reason.len; k++) {
      if (!ref_is_value_char((unsigned char)in->reason.ptr[k])) {
        decline(out, &state, "ERR_INVALID_CHAR statusMessage");
        return;
      }
    }
    char status_text[32];
    snprintf(status_text, sizeof status_text, "HTTP/1.1 %u ", in->status);
    sb_text(&state.header, status_text);
    sb_slice(&state.header, in->reason);
    sb_text(&state.header, "\r\n");
  }

  /* processHeader() for each pair, in order. */
  for (size_t i = 0; i < in->nfields; i++) {
    ow_slice key = in->fields[2 * i];
    ow_slice value = in->fields[2 * i + 1];
    if (!ref_is_ascii(key.ptr, key.len) || !ref_is_ascii(value.ptr, value.len)) {
      decline(out, &state, "header not ASCII");
      return;
    }
    if (self.validate) {
      /* validateHeaderName(key) */
      if (key.len == 0) {
        decline(out, &state, "ERR_INVALID_HTTP_TOKEN (empty)");
        return;
      }
      for (size_t k = 0; k < key.len; k++) {
        if (!ref_is_token_char((unsigned char)key.ptr[k])) {
          decline(out, &state, "ERR_INVALID_HTTP_TOKEN");
          return;
        }
      }
      /* storeHeader: validateHeaderValue(key, value) */
      for (size_t k = 0; k < value.len; k++) {
        if (!ref_is_value_char((unsigned char)value.ptr[k])) {
          decline(out, &state, "ERR_INVALID_CHAR header content");
          return;
        }
      }
    }
    /* state.header += key + ': ' + value + '\r\n'; */
    sb_slice(&state.header, key);
    sb_text(&state.header, ": ");
    sb_slice(&state.header, value);
    sb_text(&state.header, "\r\n");
    match_header(&self, &state, key, value, i, out);
  }

  /* if (this.sendDate && !state.date) header += 'Date: ' + utcDate() + '\r\n'; */
  if (self.sendDate && !state.date) {
    if (in->date.len == 0) {
      decline(out, &state, "Date value refused by the caller");
      return;
    }
    sb_text(&state.header, "Date: ");
    sb_slice(&state.header, in->date);
    sb_text(&state.header, "\r\n");
  }

  /* 204 / 304 with chunkedEncoding: no chunking, close. */
  if (self.chunkedEncoding && (in->status == 204 || in->status == 304)) {
    self.chunkedEncoding = false;
    self.shouldKeepAlive = false;
  }

  /* keep-alive logic */
  if (self._removedConnection) {
    self._last = !self.shouldKeepAlive;
  } else if (!state.connection) {
    bool shouldSendKeepAlive =
        self.shouldKeepAlive && (state.contLen || self.useChunkedEncodingByDefault || self.agent);
    if (shouldSendKeepAlive && self.maxRequestsOnConnectionReached) {
      sb_text(&state.header, "Connection: close\r\n");
    } else if (shouldSendKeepAlive) {
      sb_text(&state.header, "Connection: keep-alive\r\n");
      if (self._keepAliveTimeout && self._defaultKeepAlive) {
        /* `Keep-Alive: timeout=${timeoutSeconds}${max}\r\n`, made by the caller */
        if (in->keep_alive.len == 0) {
          decline(out, &state, "Keep-Alive line refused by the caller");
          return;
        }
        sb_slice(&state.header, in->keep_alive);
      }
    } else {
      self._last = true;
      sb_text(&state.header, "Connection: close\r\n");
    }
  }

  if (!state.contLen && !state.te) {
    if (!self._hasBody) {
      self.chunkedEncoding = false;
    } else if (!self.useChunkedEncodingByDefault) {
      self._last = true;
    } else if (!state.trailer && !self._removedContLen && self.contentLengthIsNumber) {
      char digits[32];
      ref_u64_text(in->content_length, digits);
      sb_text(&state.header, "Content-Length: ");
      sb_text(&state.header, digits);
      sb_text(&state.header, "\r\n");
    } else if (!self._removedTE) {
      sb_text(&state.header, "Transfer-Encoding: chunked\r\n");
      self.chunkedEncoding = true;
    } else {
      self._last = true;
    }
  }

  if (self.chunkedEncoding != true && state.trailer) {
    decline(out, &state, "ERR_HTTP_TRAILER_INVALID");
    return;
  }

  /* this._header = header + '\r\n'; */
  sb_text(&state.header, "\r\n");

  out->accepted = 1;
  out->why = NULL;
  out->head = state.header.buf;
  out->head_len = state.header.len;
  out->state = response_to_bits(&self);
  out->seen = 0;
  if (state.connection) out->seen |= OW_SEEN_CONNECTION;
  if (state.te) out->seen |= OW_SEEN_TE;
  if (state.contLen) out->seen |= OW_SEEN_CL;
  if (state.date) out->seen |= OW_SEEN_DATE;
  if (state.expect) out->seen |= OW_SEEN_EXPECT;
  if (state.trailer) out->seen |= OW_SEEN_TRAILER;
  if (!state.contLen) out->cl_field = 0;
}

void ref_free(ref_result *out) {
  free(out->head);
  out->head = NULL;
}
