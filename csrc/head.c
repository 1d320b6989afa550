/*
 * head.c - the response head builder.  See head.h.
 *
 * The rules below follow Node's lib/_http_outgoing.js (_storeHeader,
 * processHeader, storeHeader, matchHeader), which are the same on Node
 * 20, 22, 24 and 26 for everything this file renders.  Where Node's
 * bytes would depend on something outside the head (the encoding of the
 * first body write decides how a byte >= 0x80 goes out), the builder
 * declines and Node renders the head itself.
 */
#include "head.h"

#include <string.h>

/* Character classes, one table: Node's tokenRegExp
 * (/^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/) and the ASCII part of its
 * headerCharRegex (/[^\t\x20-\x7e\x80-\xff]/ marks the invalid ones;
 * bytes >= 0x80 never pass here: the builder declines them first). */
enum { C_TOKEN = 1, C_VALUE = 2, C_ASCII = 4 };

#define V (C_VALUE | C_ASCII)
#define T (C_TOKEN | C_VALUE | C_ASCII)
#define A C_ASCII
static const unsigned char cls[256] = {
  /* 0x00 */ A, A, A, A, A, A, A, A, A, V, A, A, A, A, A, A,
  /* 0x10 */ A, A, A, A, A, A, A, A, A, A, A, A, A, A, A, A,
  /* 0x20  sp !  "  #  $  %  &  '  (  )  *  +  ,  -  .  / */
             V, T, V, T, T, T, T, T, V, V, T, T, V, T, T, V,
  /* 0x30  0  1  2  3  4  5  6  7  8  9  :  ;  <  =  >  ? */
             T, T, T, T, T, T, T, T, T, T, V, V, V, V, V, V,
  /* 0x40  @  A  ...                                      */
             V, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T,
  /* 0x50  P  ...                    Z  [  \  ]  ^  _    */
             T, T, T, T, T, T, T, T, T, T, T, V, V, V, T, T,
  /* 0x60  `  a  ...                                      */
             T, T, T, T, T, T, T, T, T, T, T, T, T, T, T, T,
  /* 0x70  p  ...                    z  {  |  }  ~  DEL   */
             T, T, T, T, T, T, T, T, T, T, T, V, T, V, T, A,
  /* 0x80 - 0xff: zero */
};
#undef V
#undef T
#undef A

int ow_is_token_char(unsigned char c) {
  return (cls[c] & C_TOKEN) != 0;
}

int ow_is_value_char(unsigned char c) {
  return (cls[c] & C_VALUE) != 0;
}

int ow_is_ascii(const char *p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, sizeof w);
    if (w & UINT64_C(0x8080808080808080)) return 0;
  }
  for (; i < n; i++) {
    if ((unsigned char)p[i] & 0x80) return 0;
  }
  return 1;
}

/* Every byte of p[0, n) in the class: no branch per byte, the classes of
 * eight bytes at a time are ANDed and the mask tested once.  The last
 * eight bytes of a span of eight or more are taken as one more word, which
 * may overlap the one before: a byte looked at twice changes nothing. */
static unsigned char word_class(const unsigned char *p) {
  unsigned char a = cls[p[0]] & cls[p[1]] & cls[p[2]] & cls[p[3]];
  unsigned char b = cls[p[4]] & cls[p[5]] & cls[p[6]] & cls[p[7]];
  return a & b;
}

static int all_in_n(const unsigned char *p, size_t n, unsigned char mask) {
  unsigned char m = mask;
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) m &= word_class(p + i);
    m &= word_class(p + n - 8);
  } else {
    for (size_t i = 0; i < n; i++) m &= cls[p[i]];
  }
  return m == mask;
}

static int all_in(ow_slice s, unsigned char mask) {
  return all_in_n((const unsigned char *)s.ptr, s.len, mask);
}

/* Eight bytes at a time: a word whose bytes are all in 0x20..0x7e (the
 * common case of a header value) passes without a table lookup; any other
 * word, which may hold a tab, is checked byte by byte. */
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
static int word_printable(uint64_t w) {
  uint64_t below = (w - ONES * 0x20) & ~w & HIGHS;     /* a byte < 0x20 */
  uint64_t above = ((w + ONES * (127 - 0x7e)) | w) & HIGHS; /* a byte > 0x7e */
  return (below | above) == 0;
}

static int value_word(const unsigned char *p) {
  uint64_t w;
  memcpy(&w, p, sizeof w);
  return word_printable(w) || (word_class(p) & C_VALUE) != 0;
}

/* Every byte of s a value character (as all_in(s, C_VALUE)), by words. */
static int is_value(ow_slice s) {
  const unsigned char *p = (const unsigned char *)s.ptr;
  if (s.len < 8) return all_in(s, C_VALUE);
  for (size_t i = 0; i + 8 < s.len; i += 8) {
    if (!value_word(p + i)) return 0;
  }
  return value_word(p + s.len - 8);
}

static unsigned char lower(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? (unsigned char)(c | 0x20) : c;
}

/* Case-insensitive equality with a lowercase literal of the same length. */
static int ieq(ow_slice s, const char *lit, size_t len) {
  if (s.len != len) return 0;
  for (size_t i = 0; i < len; i++) {
    if (lower((unsigned char)s.ptr[i]) != (unsigned char)lit[i]) return 0;
  }
  return 1;
}

/* \w of a JavaScript regular expression without the u flag. */
static int is_word(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/* The test /(?:^|\W)word(?:$|\W)/i, for a lowercase word. */
static int has_word(ow_slice s, const char *word, size_t wlen) {
  if (s.len < wlen) return 0;
  for (size_t p = 0; p + wlen <= s.len; p++) {
    if (p > 0 && is_word((unsigned char)s.ptr[p - 1])) continue;
    size_t end = p + wlen;
    if (end < s.len && is_word((unsigned char)s.ptr[end])) continue;
    ow_slice at = { s.ptr + p, wlen };
    if (ieq(at, word, wlen)) return 1;
  }
  return 0;
}

/* size_t addition that reports overflow instead of wrapping. */
static int add(size_t *acc, size_t n) {
  if (n > SIZE_MAX - *acc) return 0;
  *acc += n;
  return 1;
}

size_t ow_u64_len(uint64_t n) {
  size_t len = 1;
  while (n >= 10) {
    n /= 10;
    len++;
  }
  return len;
}

size_t ow_u64_write(uint64_t n, char *dst, size_t cap) {
  size_t len = ow_u64_len(n);
  if (len > cap) return 0;
  for (size_t i = len; i > 0; i--) {
    dst[i - 1] = (char)('0' + n % 10);
    n /= 10;
  }
  return len;
}

size_t ow_chunk_line_len(uint64_t n) {
  size_t digits = 1;
  while (n >= 16) {
    n >>= 4;
    digits++;
  }
  return digits + 2;
}

size_t ow_chunk_line(uint64_t n, char *dst, size_t cap) {
  static const char hex[] = "0123456789abcdef";
  size_t len = ow_chunk_line_len(n);
  if (len > cap) return 0;
  size_t digits = len - 2;
  for (size_t i = digits; i > 0; i--) {
    dst[i - 1] = hex[n & 0xf];
    n >>= 4;
  }
  dst[digits] = '\r';
  dst[digits + 1] = '\n';
  return len;
}

#define LIT(s) s, (sizeof(s) - 1)

static const char k_date[] = "Date: ";
static const char k_conn_close[] = "Connection: close\r\n";
static const char k_conn_ka[] = "Connection: keep-alive\r\n";
static const char k_cl[] = "Content-Length: ";
static const char k_te[] = "Transfer-Encoding: chunked\r\n";

/* matchHeader(): what one (name, value) pair changes in the response.
 * Returns the pair's OW_ROLE_*. */
static int match_header(ow_slice name, ow_slice value, size_t index,
                        uint32_t *state, ow_plan *plan) {
  if (name.len < 4 || name.len > 17) return OW_ROLE_PLAIN;
  switch (name.len) {
    case 4:
      if (!ieq(name, LIT("date"))) return OW_ROLE_PLAIN;
      plan->seen |= OW_SEEN_DATE;
      return OW_ROLE_SPECIAL;
    case 6:
      if (!ieq(name, LIT("expect"))) return OW_ROLE_PLAIN;
      plan->seen |= OW_SEEN_EXPECT;
      return OW_ROLE_SPECIAL;
    case 7:
      if (!ieq(name, LIT("trailer"))) return OW_ROLE_PLAIN;
      plan->seen |= OW_SEEN_TRAILER;
      return OW_ROLE_SPECIAL;
    case 10:
      if (ieq(name, LIT("connection"))) {
        plan->seen |= OW_SEEN_CONNECTION;
        *state &= ~(uint32_t)OW_REMOVED_CONN;
        if (has_word(value, LIT("close")))
          *state |= OW_LAST;
        else
          *state |= OW_KEEP_ALIVE;
        return OW_ROLE_SPECIAL;
      }
      if (!ieq(name, LIT("keep-alive"))) return OW_ROLE_PLAIN;
      *state &= ~(uint32_t)OW_DEFAULT_KA;
      return OW_ROLE_SPECIAL;
    case 14:
      if (!ieq(name, LIT("content-length"))) return OW_ROLE_PLAIN;
      plan->seen |= OW_SEEN_CL;
      plan->cl_field = index;
      *state &= ~(uint32_t)OW_REMOVED_CL;
      return OW_ROLE_LENGTH;
    case 17:
      if (!ieq(name, LIT("transfer-encoding"))) return OW_ROLE_PLAIN;
      plan->seen |= OW_SEEN_TE;
      *state &= ~(uint32_t)OW_REMOVED_TE;
      if (has_word(value, LIT("chunked"))) *state |= OW_CHUNKED;
      return OW_ROLE_SPECIAL;
    default:
      return OW_ROLE_PLAIN;
  }
}

int ow_head_plan(const ow_head_in *in, ow_plan *plan) {
  uint32_t st = in->state;
  size_t len = 0;

  memset(plan, 0, sizeof *plan);
  plan->bad_field = SIZE_MAX;
  if (in->nfields > 0 && in->fields == NULL) return OW_BAIL_SHAPE;

  /* The first line. */
  if (in->first_line.len > 0) {
    if (!ow_is_ascii(in->first_line.ptr, in->first_line.len)) return OW_BAIL_NON_ASCII;
    len = in->first_line.len;
  } else {
    if (in->status < 100 || in->status > 999) return OW_BAIL_REASON;
    if (!ow_is_ascii(in->reason.ptr, in->reason.len)) return OW_BAIL_NON_ASCII;
    if (!all_in(in->reason, C_VALUE)) return OW_BAIL_REASON;
    len = sizeof("HTTP/1.1 200 ") - 1;
    if (!add(&len, in->reason.len) || !add(&len, 2)) return OW_BAIL_TOO_LARGE;
  }

  /* The user's headers, in order. */
  for (size_t i = 0; i < in->nfields; i++) {
    ow_slice name = in->fields[2 * i];
    ow_slice value = in->fields[2 * i + 1];
    int rc = OW_OK;
    plan->bad_field = i;
    if (st & OW_VALIDATE) {
      /* Token and value characters are all ASCII: one pass checks both. */
      if (name.len == 0 || !all_in(name, C_TOKEN))
        rc = ow_is_ascii(name.ptr, name.len) ? OW_BAIL_NAME : OW_BAIL_NON_ASCII;
      else if (!is_value(value))
        rc = ow_is_ascii(value.ptr, value.len) ? OW_BAIL_VALUE : OW_BAIL_NON_ASCII;
    } else if (!ow_is_ascii(name.ptr, name.len) || !ow_is_ascii(value.ptr, value.len)) {
      rc = OW_BAIL_NON_ASCII;
    }
    if (rc == OW_OK && (!add(&len, name.len) || !add(&len, value.len) || !add(&len, 4)))
      rc = OW_BAIL_TOO_LARGE;
    if (rc != OW_OK) return rc;
    size_t last_cl = plan->cl_field;
    int had_cl = (plan->seen & OW_SEEN_CL) != 0;
    int role = match_header(name, value, i, &st, plan);
    if (in->roles != NULL) {
      in->roles[i] = (uint8_t)role;
      /* Only the last Content-Length gives _contentLength. */
      if (role == OW_ROLE_LENGTH && had_cl) in->roles[last_cl] = OW_ROLE_SPECIAL;
    }
  }
  plan->bad_field = SIZE_MAX;

  /* Date. */
  if ((st & OW_SEND_DATE) && !(plan->seen & OW_SEEN_DATE)) {
    if (in->date.len == 0) return OW_BAIL_SHAPE;
    plan->emit |= OW_EMIT_DATE;
    if (!add(&len, sizeof(k_date) - 1) || !add(&len, in->date.len) || !add(&len, 2))
      return OW_BAIL_TOO_LARGE;
  }

  /* 204 and 304 never carry a chunked body: close instead. */
  if ((st & OW_CHUNKED) && (in->status == 204 || in->status == 304))
    st &= ~(uint32_t)(OW_CHUNKED | OW_KEEP_ALIVE);

  /* Keep-alive. */
  if (st & OW_REMOVED_CONN) {
    if (st & OW_KEEP_ALIVE)
      st &= ~(uint32_t)OW_LAST;
    else
      st |= OW_LAST;
  } else if (!(plan->seen & OW_SEEN_CONNECTION)) {
    int send_ka = (st & OW_KEEP_ALIVE) &&
                  ((plan->seen & OW_SEEN_CL) || (st & (OW_CHUNKED_DEFAULT | OW_AGENT)));
    if (send_ka && (st & OW_MAX_REACHED)) {
      plan->emit |= OW_EMIT_CONN_CLOSE;
    } else if (send_ka) {
      plan->emit |= OW_EMIT_CONN_KA;
      if ((st & OW_KA_TIMEOUT) && (st & OW_DEFAULT_KA)) {
        if (in->keep_alive.len == 0) return OW_BAIL_SHAPE;
        plan->emit |= OW_EMIT_KA_LINE;
      }
    } else {
      st |= OW_LAST;
      plan->emit |= OW_EMIT_CONN_CLOSE;
    }
  }
  if (plan->emit & OW_EMIT_CONN_CLOSE) len += sizeof(k_conn_close) - 1;
  if (plan->emit & OW_EMIT_CONN_KA) len += sizeof(k_conn_ka) - 1;
  if ((plan->emit & OW_EMIT_KA_LINE) && !add(&len, in->keep_alive.len)) return OW_BAIL_TOO_LARGE;

  /* Framing, when the user gave neither Content-Length nor Transfer-Encoding. */
  if (!(plan->seen & (OW_SEEN_CL | OW_SEEN_TE))) {
    if (!(st & OW_HAS_BODY)) {
      st &= ~(uint32_t)OW_CHUNKED;
    } else if (!(st & OW_CHUNKED_DEFAULT)) {
      st |= OW_LAST;
    } else if (!(plan->seen & OW_SEEN_TRAILER) && !(st & OW_REMOVED_CL) && (st & OW_HAS_CL)) {
      plan->emit |= OW_EMIT_CL;
      if (!add(&len, sizeof(k_cl) - 1 + ow_u64_len(in->content_length) + 2))
        return OW_BAIL_TOO_LARGE;
    } else if (!(st & OW_REMOVED_TE)) {
      plan->emit |= OW_EMIT_TE;
      st |= OW_CHUNKED;
      len += sizeof(k_te) - 1;
    } else {
      st |= OW_LAST;
    }
  }

  /* Node throws ERR_HTTP_TRAILER_INVALID here; let it. */
  if (!(st & OW_CHUNKED) && (plan->seen & OW_SEEN_TRAILER)) return OW_BAIL_TRAILER;

  if (!add(&len, 2)) return OW_BAIL_TOO_LARGE;
  plan->state = st;
  plan->head_len = len;
  return OW_OK;
}

/* Copy helper: the plan guarantees the room, so no check per copy. */
static char *put(char *d, const char *s, size_t n) {
  if (n > 0) memcpy(d, s, n);
  return d + n;
}

/* The same for a length known only at run time: from 4 to 32 bytes (a
 * usual header name or value) by two overlapping moves of k bytes, the
 * first k and the last k, with k a constant in each call, which the
 * compiler makes plain loads and stores rather than a call (both loads
 * first: the compiler cannot know that d and s never overlap).  Every
 * byte read is in s[0, n) and every byte written in d[0, n) (k <= n <=
 * 2k); the two moves write the same bytes where they overlap. */
static inline char *put_ends(char *d, const char *s, size_t n, size_t k) {
  char first[16], last[16];
  memcpy(first, s, k);
  memcpy(last, s + n - k, k);
  memcpy(d, first, k);
  memcpy(d + n - k, last, k);
  return d + n;
}

static inline char *put_var(char *d, const char *s, size_t n) {
  if (n >= 16 && n <= 32) return put_ends(d, s, n, 16);
  if (n >= 8 && n < 16) return put_ends(d, s, n, 8);
  if (n >= 4 && n < 8) return put_ends(d, s, n, 4);
  return put(d, s, n);
}

size_t ow_head_write(const ow_head_in *in, const ow_plan *plan, char *dst, size_t cap) {
  if (dst == NULL || cap < plan->head_len) return 0;
  char *d = dst;

  if (in->first_line.len > 0) {
    d = put(d, in->first_line.ptr, in->first_line.len);
  } else {
    d = put(d, LIT("HTTP/1.1 "));
    d[0] = (char)('0' + in->status / 100);
    d[1] = (char)('0' + in->status / 10 % 10);
    d[2] = (char)('0' + in->status % 10);
    d[3] = ' ';
    d += 4;
    d = put_var(d, in->reason.ptr, in->reason.len);
    d = put(d, LIT("\r\n"));
  }

  for (size_t i = 0; i < in->nfields; i++) {
    ow_slice name = in->fields[2 * i];
    ow_slice value = in->fields[2 * i + 1];
    d = put_var(d, name.ptr, name.len);
    d = put(d, LIT(": "));
    d = put_var(d, value.ptr, value.len);
    d = put(d, LIT("\r\n"));
  }

  if (plan->emit & OW_EMIT_DATE) {
    d = put(d, LIT(k_date));
    d = put(d, in->date.ptr, in->date.len);
    d = put(d, LIT("\r\n"));
  }
  if (plan->emit & OW_EMIT_CONN_CLOSE) d = put(d, LIT(k_conn_close));
  if (plan->emit & OW_EMIT_CONN_KA) d = put(d, LIT(k_conn_ka));
  if (plan->emit & OW_EMIT_KA_LINE) d = put(d, in->keep_alive.ptr, in->keep_alive.len);
  if (plan->emit & OW_EMIT_CL) {
    d = put(d, LIT(k_cl));
    d += ow_u64_write(in->content_length, d, OW_U64_DIGITS);
    d = put(d, LIT("\r\n"));
  }
  if (plan->emit & OW_EMIT_TE) d = put(d, LIT(k_te));
  d = put(d, LIT("\r\n"));

  return (size_t)(d - dst);
}
