/*
 * head.h - render an HTTP/1.1 response head the way Node's
 * OutgoingMessage#_storeHeader does, in two passes: size, then copy.
 *
 * Pure C11: no Node-API types, no allocation.  The caller owns every
 * buffer.  On anything this code may not render byte-identically to
 * Node (a character >= 0x80, an invalid name or value, a Trailer header
 * without chunked framing, ...) it answers with an OW_BAIL_* code and
 * writes nothing: the caller then runs Node's own JavaScript, which
 * produces the bytes or throws Node's own error.
 */
#ifndef ONEWRITE_HEAD_H
#define ONEWRITE_HEAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct ow_slice {
  const char *ptr;
  size_t len;
} ow_slice;

/*
 * Response state bits.  As input they are the fields Node consults while
 * building the head; as output (ow_plan.state) they are the same fields
 * after the head has been built, so the caller can copy back the ones
 * that changed.  The JS names are given for each.
 */
enum {
  OW_VALIDATE        = 1u << 0,  /* headers came from writeHead(): check them */
  OW_SEND_DATE       = 1u << 1,  /* sendDate */
  OW_KEEP_ALIVE      = 1u << 2,  /* shouldKeepAlive */
  OW_CHUNKED_DEFAULT = 1u << 3,  /* useChunkedEncodingByDefault */
  OW_HAS_BODY        = 1u << 4,  /* _hasBody */
  OW_REMOVED_CONN    = 1u << 5,  /* _removedConnection */
  OW_REMOVED_CL      = 1u << 6,  /* _removedContLen */
  OW_REMOVED_TE      = 1u << 7,  /* _removedTE */
  OW_MAX_REACHED     = 1u << 8,  /* maxRequestsOnConnectionReached */
  OW_DEFAULT_KA      = 1u << 9,  /* _defaultKeepAlive */
  OW_AGENT           = 1u << 10, /* agent (truthy) */
  OW_CHUNKED         = 1u << 11, /* chunkedEncoding */
  OW_LAST            = 1u << 12, /* _last */
  OW_HAS_CL          = 1u << 13, /* typeof _contentLength === 'number' */
  OW_KA_TIMEOUT      = 1u << 14  /* _keepAliveTimeout truthy: keep_alive line applies */
};

/* Header names seen while processing (ow_plan.seen), as matchHeader() notes them. */
enum {
  OW_SEEN_CONNECTION = 1u << 0,
  OW_SEEN_TE         = 1u << 1,
  OW_SEEN_CL         = 1u << 2,
  OW_SEEN_DATE       = 1u << 3,
  OW_SEEN_EXPECT     = 1u << 4,
  OW_SEEN_TRAILER    = 1u << 5
};

/* Lines the builder adds after the user's headers (ow_plan.emit). */
enum {
  OW_EMIT_DATE       = 1u << 0,
  OW_EMIT_CONN_CLOSE = 1u << 1,
  OW_EMIT_CONN_KA    = 1u << 2,
  OW_EMIT_KA_LINE    = 1u << 3,
  OW_EMIT_CL         = 1u << 4,
  OW_EMIT_TE         = 1u << 5
};

/* Results.  0 is success; every other value means "hand it back to Node". */
enum {
  OW_OK = 0,
  OW_BAIL_NON_ASCII = 1,     /* a byte >= 0x80: Node's bytes depend on the body's encoding */
  OW_BAIL_NAME = 2,          /* invalid header name (Node throws ERR_INVALID_HTTP_TOKEN) */
  OW_BAIL_VALUE = 3,         /* invalid header value (Node throws ERR_INVALID_CHAR) */
  OW_BAIL_REASON = 4,        /* invalid status message or status code */
  OW_BAIL_TRAILER = 5,       /* Trailer without chunked (Node throws ERR_HTTP_TRAILER_INVALID) */
  OW_BAIL_TOO_LARGE = 6,     /* sizes that would overflow */
  OW_BAIL_SHAPE = 7          /* malformed input from the caller */
};

typedef struct ow_head_in {
  /* Either a complete first line ("HTTP/1.1 200 OK\r\n") in first_line,
   * or first_line.len == 0 and the line is made of status and reason. */
  ow_slice first_line;
  unsigned status;           /* 100..999; also drives the 204/304 rule */
  ow_slice reason;
  const ow_slice *fields;    /* name0, value0, name1, value1, ... */
  size_t nfields;            /* number of (name, value) pairs */
  uint32_t state;            /* OW_* bits above */
  uint64_t content_length;   /* used with OW_HAS_CL */
  ow_slice date;             /* Date value, e.g. "Sun, 06 Nov 1994 08:49:37 GMT";
                                ASCII, checked by the caller; empty = refuse */
  ow_slice keep_alive;       /* whole line, e.g. "Keep-Alive: timeout=5\r\n";
                                ASCII, checked by the caller; empty = refuse */
  uint8_t *roles;            /* optional (NULL: none): nfields bytes, each pair's OW_ROLE_* */
} ow_head_in;

/* What a header's value does besides appearing in the head (ow_head_in.roles):
 * nothing; it gives _contentLength (the last Content-Length); or more
 * (Connection, Transfer-Encoding, Date, Expect, Trailer, Keep-Alive, a
 * Content-Length that a later one overrides).  A head whose values differ
 * only in OW_ROLE_PLAIN values is the same head with those values replaced. */
enum { OW_ROLE_PLAIN = 0, OW_ROLE_LENGTH = 1, OW_ROLE_SPECIAL = 2 };

typedef struct ow_plan {
  uint32_t state;            /* response state after the head is built */
  uint32_t seen;             /* OW_SEEN_* */
  uint32_t emit;             /* OW_EMIT_* */
  size_t cl_field;           /* index of the last Content-Length pair (valid with OW_SEEN_CL) */
  size_t head_len;           /* exact bytes of the head, blank line included */
  size_t bad_field;          /* on a bail: the pair it is about, or SIZE_MAX */
} ow_plan;

/* Character classes, as Node's regular expressions define them. */
int ow_is_token_char(unsigned char c);   /* tokenRegExp */
int ow_is_value_char(unsigned char c);   /* headerCharRegex, ASCII part */

/* First pass: check everything, decide the framing, add up the size.
 * Returns OW_OK or an OW_BAIL_* code; plan is valid only on OW_OK. */
int ow_head_plan(const ow_head_in *in, ow_plan *plan);

/* Second pass: copy the head into dst.  Returns the bytes written
 * (plan->head_len), or 0 when cap is smaller than that. */
size_t ow_head_write(const ow_head_in *in, const ow_plan *plan, char *dst, size_t cap);

/* Chunked framing.  The size line of a chunk is lowercase hex and CRLF. */
#define OW_CHUNK_LINE_MAX 18     /* 16 hex digits + CRLF */
size_t ow_chunk_line_len(uint64_t n);
size_t ow_chunk_line(uint64_t n, char *dst, size_t cap);

/* Decimal formatting of an unsigned number; returns digits written or 0. */
#define OW_U64_DIGITS 20
size_t ow_u64_len(uint64_t n);
size_t ow_u64_write(uint64_t n, char *dst, size_t cap);

/* 1 when bytes p[0..n) are all < 0x80. */
int ow_is_ascii(const char *p, size_t n);

#endif /* ONEWRITE_HEAD_H */
