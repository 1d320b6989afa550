/*
 * binding.c - the Node-API glue around head.c.
 *
 * One call per head, with a fixed handful of Node-API calls whatever the
 * number of headers (a Node-API string read costs about as much as a
 * short header: one read of one string, not one per part):
 *  - JavaScript concatenates the first line (or reason phrase) and every
 *    header name and value into ONE string and writes their lengths into a
 *    small shared memory, with the response state (an Int32Array over a
 *    SharedArrayBuffer that JavaScript made and handed over once with
 *    attach(): a SharedArrayBuffer cannot be detached, so the pointer kept
 *    here stays good for the life of this instance);
 *  - this code reads the string once into bytes, making sure that every
 *    code unit is below 0x80 (any other: the head goes to Node) and that
 *    the string is exactly as long as it was told (read_text); cuts it by
 *    the lengths, which must add up to it exactly; lets head.c check and
 *    size everything, writes the head into a buffer it keeps, and returns a
 *    latin1 string;
 *  - the Date value and the Keep-Alive line change at most once a second
 *    and are pushed here only when they do.
 *
 * Nothing here throws and nothing aborts: whatever fails - a value of the
 * wrong type, a length that does not match the text, memory, a string
 * longer than V8 allows, a Node-API call that does not succeed - answers
 * undefined with a reason in the S_RESULT slot, any exception a failed
 * call left pending is cleared, and JavaScript runs Node's own code, which
 * renders the bytes or throws Node's own error.
 */
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "head.h"

/* Layout of the shared memory; keep in step with lib/slots.js. */
enum {
  S_STATE = 0,  /* in: OW_* response state bits */
  S_STATUS,     /* in: status code */
  S_NPARTS,     /* in: parts in the text (first line, then name, value, ...) */
  S_TEXT_LEN,   /* in: the text's length in UTF-16 code units */
  S_LINE_MODE,  /* in: 0 = first part is the whole first line, 1 = it is the reason */
  S_BODY_KIND,  /* in: BODY_* */
  S_FRAME,      /* in (join): 1 = frame the body as one chunk, then the last-chunk */
  S_WANT_ROLES, /* in: 1 = write each pair's role (ROLES_AT) */
  S_RESULT,     /* out: OW_OK or OW_BAIL_* */
  S_OUT_STATE,  /* out: response state after the head */
  S_SEEN,       /* out: OW_SEEN_* */
  S_HEAD_LEN,   /* out: bytes of the head */
  S_CL_PAIR,    /* out: index of the pair of the last Content-Length, or -1 */
  S_CL_SIMPLE,  /* out: 1 when that value is plain digits (its number: D_USER_CL) */
  S_BAD_PAIR,   /* out: the pair a bail is about, -1 for the first line or none */
  S_INT_COUNT
};
enum { D_CONTENT_LENGTH = 0, D_BODY_LEN, D_USER_CL, D_COUNT };
#define DOUBLES_AT 64   /* byte offset of the doubles */
#define ROLES_AT 128    /* byte offset of the roles, one byte per pair */
#define MAX_PAIRS 1024  /* pairs in one head, at most */
#define LENGTHS_AT (ROLES_AT + MAX_PAIRS) /* int32 lengths of the parts */
#define SHARED_BYTES (LENGTHS_AT + 4 * (1 + 2 * MAX_PAIRS))

/* Body kinds. */
enum {
  BODY_NONE = 0,
  BODY_ONE_BYTE = 1, /* a string whose bytes are its latin1 code units */
  BODY_BYTES = 2     /* a Uint8Array / Buffer */
};

#define KEEP_SCRATCH (64 * 1024) /* buffers kept between calls; bigger ones are freed after use */
#define MAX_ARGS 2               /* no function takes more */

typedef struct buf {
  char *p;
  size_t cap;
} buf;

typedef struct addon {
  napi_env env;       /* the environment this instance belongs to */
  int32_t *ints;      /* the shared memory, once attached; NULL before */
  double *nums;
  uint8_t *roles;
  int32_t *lens;
  napi_ref shared;    /* keeps the view (and its SharedArrayBuffer) alive */
  buf wide;           /* the text as read: UTF-16 */
  buf text;           /* ... and narrowed to bytes */
  buf out;            /* the rendered message */
  ow_slice *fields;
  size_t fields_cap;
  char date[64];
  size_t date_len;
  char keep_alive[256];
  size_t keep_alive_len;
} addon;

/* At least n bytes in b.  Above KEEP_SCRATCH the memory is handed back by
 * shrink() once the call is over. */
static char *reserve(buf *b, size_t n) {
  if (n <= b->cap) return b->p;
  size_t cap = n < KEEP_SCRATCH ? KEEP_SCRATCH : n;
  char *p = realloc(b->p, cap);
  if (p == NULL) return NULL;
  b->p = p;
  b->cap = cap;
  return p;
}

static void shrink(buf *b) {
  if (b->cap > KEEP_SCRATCH) {
    free(b->p);
    b->p = NULL;
    b->cap = 0;
  }
}

/* A failed Node-API call may leave an exception pending; the caller
 * declines, so the exception must not reach JavaScript. */
static void clear_exception(napi_env env) {
  bool pending = false;
  napi_value ignored;
  if (napi_is_exception_pending(env, &pending) == napi_ok && pending)
    napi_get_and_clear_last_exception(env, &ignored);
}

/* The call's arguments (up to MAX_ARGS into argv, their count in argc) and
 * the addon.  Returns 0 on failure. */
static int get_args(napi_env env, napi_callback_info info, napi_value *argv, size_t *argc,
                    addon **a) {
  size_t n = MAX_ARGS;
  void *data = NULL;
  if (napi_get_cb_info(env, info, &n, argv, NULL, &data) != napi_ok || data == NULL) return 0;
  *a = data;
  *argc = n;
  return 1;
}

/* UTF-16 to bytes; answers the OR of all code units, so that one test
 * tells whether any was >= 0x80.  Separate buffers let it vectorise. */
static unsigned narrow(const char16_t *restrict u, char *restrict p, size_t len) {
  unsigned acc = 0;
  for (size_t i = 0; i < len; i++) {
    acc |= u[i];
    p[i] = (char)u[i];
  }
  return acc;
}

/*
 * Read `value`, a string that must be exactly `len` UTF-16 code units long,
 * into a->text as bytes.  Returns OW_OK, OW_BAIL_NON_ASCII when a code unit
 * is >= 0x80, or another bail.
 *
 * A short text is read as UTF-16, with room for one unit more (a longer
 * string fills it), and narrowed.  A long one costs less read as bytes:
 * its UTF-8 length first (V8 flattens the text and counts it; SIMD on
 * Node 22+), then its latin1 bytes, with room for one more.  The two
 * answers together prove it ASCII: a UTF-16 string's UTF-8 length is at
 * least its own, and more by at least one for every code unit >= 0x80 (a
 * lone surrogate is three bytes), so a UTF-8 length of `len` and exactly
 * `len` units read leave none.  Any other text takes the UTF-16 read,
 * which says why it is refused.  Where the two ways cross over was
 * measured (npm run bench:head -- --instr, native): below it the second
 * call into V8 costs more than the narrowing it saves.
 */
#define READ_BYTES_MIN 512

static int read_text_wide(napi_env env, addon *a, napi_value value, size_t len) {
  size_t got = 0;
  if (len > (SIZE_MAX - 4) / 2) return OW_BAIL_TOO_LARGE;
  char16_t *u = (char16_t *)(void *)reserve(&a->wide, 2 * (len + 2));
  char *p = reserve(&a->text, len + 1);
  if (u == NULL || p == NULL) return OW_BAIL_TOO_LARGE;
  if (napi_get_value_string_utf16(env, value, u, len + 2, &got) != napi_ok || got != len)
    return OW_BAIL_SHAPE;
  return narrow(u, p, len) >= 0x80 ? OW_BAIL_NON_ASCII : OW_OK;
}

static int read_text(napi_env env, addon *a, napi_value value, size_t len) {
  size_t utf8 = 0, got = 0;
  if (len < READ_BYTES_MIN) return read_text_wide(env, a, value, len);
  if (len > SIZE_MAX - 4) return OW_BAIL_TOO_LARGE;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &utf8) != napi_ok) return OW_BAIL_SHAPE;
  if (utf8 != len) return read_text_wide(env, a, value, len);
  char *p = reserve(&a->text, len + 2);
  if (p == NULL) return OW_BAIL_TOO_LARGE;
  if (napi_get_value_string_latin1(env, value, p, len + 2, &got) != napi_ok || got != len)
    return OW_BAIL_SHAPE;
  return OW_OK;
}

/* One head to render: the input for head.c and its plan. */
typedef struct job {
  ow_head_in in;
  ow_plan plan;
} job;

/* The plain digits of a Content-Length value as a number (what JavaScript's
 * +value gives for them), or -1 for anything else. */
static double simple_length(ow_slice v) {
  double n = 0;
  if (v.len == 0 || v.len > 15) return -1;
  for (size_t i = 0; i < v.len; i++) {
    unsigned char c = (unsigned char)v.ptr[i];
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

/*
 * Read the text, cut it by the lengths in shared memory, plan the head and
 * write the plan's results to the slots.
 */
static int plan(napi_env env, addon *a, napi_value text, job *j) {
  int32_t *ints = a->ints;
  const int32_t *lens = a->lens;
  int32_t nparts = ints[S_NPARTS];
  int32_t tlen = ints[S_TEXT_LEN];
  int rc = OW_OK;

  ints[S_BAD_PAIR] = -1;
  if (nparts < 1 || nparts % 2 == 0 || nparts > 1 + 2 * MAX_PAIRS || tlen < 0) return OW_BAIL_SHAPE;
  size_t nfields = (size_t)(nparts - 1) / 2;
  size_t len = (size_t)tlen;
  rc = read_text(env, a, text, len);
  if (rc != OW_OK) return rc;
  if (2 * nfields > a->fields_cap) {
    ow_slice *f = realloc(a->fields, 2 * MAX_PAIRS * sizeof *f);
    if (f == NULL) return OW_BAIL_TOO_LARGE;
    a->fields = f;
    a->fields_cap = 2 * MAX_PAIRS;
  }

  /* Cut: the lengths must add up to the text exactly. */
  const char *p = a->text.p;
  size_t at = 0;
  ow_slice first = {NULL, 0};
  for (size_t i = 0; i < (size_t)nparts; i++) {
    int32_t l = lens[i];
    if (l < 0 || (size_t)l > len - at) return OW_BAIL_SHAPE;
    ow_slice *s = i == 0 ? &first : &a->fields[i - 1];
    s->ptr = p + at;
    s->len = (size_t)l;
    at += (size_t)l;
  }
  if (at != len) return OW_BAIL_SHAPE;

  memset(&j->in, 0, sizeof j->in);
  if (ints[S_LINE_MODE] == 0)
    j->in.first_line = first;
  else
    j->in.reason = first;
  j->in.status = ints[S_STATUS] < 0 ? 0 : (unsigned)ints[S_STATUS];
  j->in.fields = a->fields;
  j->in.nfields = nfields;
  j->in.state = (uint32_t)ints[S_STATE];
  if (ints[S_WANT_ROLES]) j->in.roles = a->roles;
  if (j->in.state & OW_HAS_CL) {
    /* Node prints the number as JavaScript would: only integers that are
     * exact as doubles are rendered here. */
    double cl = a->nums[D_CONTENT_LENGTH];
    if (!(cl >= 0 && cl <= 9007199254740991.0)) return OW_BAIL_SHAPE;
    j->in.content_length = (uint64_t)cl;
    if ((double)j->in.content_length != cl) return OW_BAIL_SHAPE;
  }
  j->in.date.ptr = a->date;
  j->in.date.len = a->date_len;
  j->in.keep_alive.ptr = a->keep_alive;
  j->in.keep_alive.len = a->keep_alive_len;

  rc = ow_head_plan(&j->in, &j->plan);
  if (rc != OW_OK) {
    ints[S_BAD_PAIR] = j->plan.bad_field < nfields ? (int32_t)j->plan.bad_field : -1;
    return rc;
  }

  ints[S_OUT_STATE] = (int32_t)j->plan.state;
  ints[S_SEEN] = (int32_t)j->plan.seen;
  ints[S_HEAD_LEN] = (int32_t)j->plan.head_len;
  ints[S_CL_PAIR] = -1;
  ints[S_CL_SIMPLE] = 0;
  if (j->plan.seen & OW_SEEN_CL) {
    double n = simple_length(a->fields[2 * j->plan.cl_field + 1]);
    ints[S_CL_PAIR] = (int32_t)j->plan.cl_field;
    ints[S_CL_SIMPLE] = n >= 0;
    a->nums[D_USER_CL] = n;
  }
  return OW_OK;
}

/* Bytes of a body: a pointer into a typed array, or a one-byte string to read. */
typedef struct body {
  const char *ptr;
  size_t len;
  napi_value str;
} body;

static int body_get(napi_env env, addon *a, napi_value v, body *b) {
  double dlen = a->nums[D_BODY_LEN];
  memset(b, 0, sizeof *b);
  switch (a->ints[S_BODY_KIND]) {
    case BODY_NONE:
      return OW_OK;
    case BODY_ONE_BYTE:
      if (!(dlen >= 0 && dlen <= 1073741824.0)) return OW_BAIL_SHAPE;
      b->len = (size_t)dlen;
      b->str = v;
      return OW_OK;
    case BODY_BYTES: {
      napi_typedarray_type type;
      void *data = NULL;
      size_t len = 0;
      if (napi_get_typedarray_info(env, v, &type, &len, &data, NULL, NULL) != napi_ok ||
          type != napi_uint8_array || (len > 0 && data == NULL))
        return OW_BAIL_SHAPE;
      b->ptr = data;
      b->len = len;
      return OW_OK;
    }
    default:
      return OW_BAIL_SHAPE;
  }
}

/* Copy the body to dst: exactly b->len bytes.  A string body needs two
 * bytes of room more: a string longer than told fills one of them. */
static int body_copy(napi_env env, const body *b, char *dst) {
  if (b->str != NULL) {
    size_t got = 0;
    if (napi_get_value_string_latin1(env, b->str, dst, b->len + 2, &got) != napi_ok ||
        got != b->len)
      return OW_BAIL_SHAPE;
    return OW_OK;
  }
  if (b->len > 0) memcpy(dst, b->ptr, b->len);
  return OW_OK;
}

static const char k_last_chunk[] = "0\r\n\r\n";

/* Frame the body after d: "hex\r\n" body "\r\n" when `frame`, then the
 * last-chunk when `framing`.  Returns the end, or NULL on a bail. */
static char *put_body(napi_env env, const body *b, char *d, int framing, int *rc) {
  int frame = framing && b->len > 0;
  if (frame) d += ow_chunk_line(b->len, d, OW_CHUNK_LINE_MAX);
  *rc = body_copy(env, b, d);
  if (*rc != OW_OK) return NULL;
  d += b->len;
  if (frame) {
    d[0] = '\r';
    d[1] = '\n';
    d += 2;
  }
  if (framing) {
    memcpy(d, k_last_chunk, sizeof k_last_chunk - 1);
    d += sizeof k_last_chunk - 1;
  }
  return d;
}

/* Room for a framed body of n bytes (two spare bytes included), or 0 if
 * it would overflow. */
static size_t framed_size(size_t n, int framing) {
  if (n > SIZE_MAX / 2) return 0;
  return n + (framing ? OW_CHUNK_LINE_MAX + 2 + sizeof k_last_chunk : 0) + 2;
}

/*
 * Results are latin1 strings, whose bytes are exactly the message's bytes.
 * A string is what the socket write wants, and V8 makes one in its heap
 * far faster than a Buffer: napi_create_buffer_copy measured ~3 us per
 * call here against ~35 ns for napi_create_string_latin1 (see
 * benchmark/README.md).  NULL when V8 will not make it (longer than its
 * maximum string length, out of memory).
 */
static napi_value output(napi_env env, const char *p, size_t n, int *rc) {
  napi_value result;
  if (napi_create_string_latin1(env, p, n, &result) != napi_ok) {
    *rc = OW_BAIL_TOO_LARGE;
    return NULL;
  }
  return result;
}

/* What every call answers: its result, or undefined with the reason in
 * S_RESULT (and no exception left behind). */
static napi_value finish(napi_env env, addon *a, napi_value result, int rc) {
  napi_value u = NULL;
  if (a != NULL && a->ints != NULL) a->ints[S_RESULT] = rc;
  if (result != NULL) return result;
  clear_exception(env);
  if (napi_get_undefined(env, &u) != napi_ok) return NULL;
  return u;
}

/*
 * head(text): the head.
 * message(text, body): the head, then - when
 * S_BODY_KIND says there is a body and the response has one (not HEAD,
 * 204, 304, 1xx: Node drops the body there) - the body, framed as one
 * chunk plus the last-chunk when the head is chunked.
 * undefined when Node must render it.
 */
static napi_value render(napi_env env, napi_callback_info info, int with_body) {
  napi_value argv[MAX_ARGS];
  napi_value result = NULL;
  size_t argc = 0;
  addon *a = NULL;
  job j;
  body b = {0};
  int rc = OW_BAIL_SHAPE;

  memset(&b, 0, sizeof b);
  if (get_args(env, info, argv, &argc, &a) && a->ints != NULL &&
      argc == (with_body ? 2u : 1u)) {
    rc = plan(env, a, argv[0], &j);
    if (rc == OW_OK && with_body) rc = body_get(env, a, argv[1], &b);
  }
  if (rc == OW_OK) {
    int has_body = with_body && (j.plan.state & OW_HAS_BODY) != 0;
    int framing = has_body && (j.plan.state & OW_CHUNKED) != 0;
    size_t room = has_body ? framed_size(b.len, framing) : 1;
    char *out = room == 0 || room > SIZE_MAX - j.plan.head_len
                    ? NULL
                    : reserve(&a->out, j.plan.head_len + room);
    if (out == NULL) {
      rc = OW_BAIL_TOO_LARGE;
    } else {
      char *d = out + ow_head_write(&j.in, &j.plan, out, j.plan.head_len);
      if (has_body) d = put_body(env, &b, d, framing, &rc);
      if (rc == OW_OK) result = output(env, out, (size_t)(d - out), &rc);
    }
  }
  if (a != NULL) {
    shrink(&a->wide);
    shrink(&a->text);
    shrink(&a->out);
  }
  return finish(env, a, result, rc);
}

static napi_value js_head(napi_env env, napi_callback_info info) {
  return render(env, info, 0);
}

static napi_value js_message(napi_env env, napi_callback_info info) {
  return render(env, info, 1);
}

/*
 * join(head, body): a head already rendered (a string of S_TEXT_LEN chars,
 * written as latin1, as Node writes a head) followed by the body, framed
 * as one chunk plus the last-chunk when S_FRAME is set.
 */
static napi_value js_join(napi_env env, napi_callback_info info) {
  napi_value argv[MAX_ARGS];
  napi_value result = NULL;
  size_t argc = 0;
  addon *a = NULL;
  body b = {0};
  size_t got = 0;
  int rc = OW_BAIL_SHAPE;

  if (get_args(env, info, argv, &argc, &a) && a->ints != NULL && argc == 2 &&
      a->ints[S_TEXT_LEN] >= 0)
    rc = body_get(env, a, argv[1], &b);
  if (rc == OW_OK) {
    size_t hlen = (size_t)a->ints[S_TEXT_LEN];
    int framing = a->ints[S_FRAME] != 0;
    size_t room = framed_size(b.len, framing);
    char *out = room == 0 || room > SIZE_MAX - hlen ? NULL : reserve(&a->out, hlen + room);
    if (out == NULL) {
      rc = OW_BAIL_TOO_LARGE;
    } else if (napi_get_value_string_latin1(env, argv[0], out, hlen + 2, &got) != napi_ok ||
               got != hlen) {
      /* Two bytes of room more than the head: a longer head fills one. */
      rc = OW_BAIL_SHAPE;
    } else {
      char *d = put_body(env, &b, out + hlen, framing, &rc);
      if (rc == OW_OK) result = output(env, out, (size_t)(d - out), &rc);
    }
  }
  if (a != NULL) shrink(&a->out);
  return finish(env, a, result, rc);
}

/* chunk(body): "hex\r\n" body "\r\n". */
static napi_value js_chunk(napi_env env, napi_callback_info info) {
  napi_value argv[MAX_ARGS];
  napi_value result = NULL;
  size_t argc = 0;
  addon *a = NULL;
  body b = {0};
  int rc = OW_BAIL_SHAPE;

  if (get_args(env, info, argv, &argc, &a) && a->ints != NULL && argc == 1)
    rc = body_get(env, a, argv[0], &b);
  if (rc == OW_OK && b.len == 0) rc = OW_BAIL_SHAPE; /* Node writes no frame for empty data */
  if (rc == OW_OK) {
    size_t room = framed_size(b.len, 1);
    char *out = room == 0 ? NULL : reserve(&a->out, room);
    if (out == NULL) {
      rc = OW_BAIL_TOO_LARGE;
    } else {
      char *d = out + ow_chunk_line(b.len, out, OW_CHUNK_LINE_MAX);
      rc = body_copy(env, &b, d);
      d += b.len;
      d[0] = '\r';
      d[1] = '\n';
      d += 2;
      if (rc == OW_OK) result = output(env, out, (size_t)(d - out), &rc);
    }
  }
  if (a != NULL) shrink(&a->out);
  return finish(env, a, result, rc);
}

/* setDate(value), setKeepAlive(line): the values that change once a second
 * at most.  A value that does not fit leaves an empty one, which
 * ow_head_plan refuses, so Node renders those heads. */
static napi_value set_text(napi_env env, napi_callback_info info, int which) {
  napi_value argv[MAX_ARGS];
  size_t argc = 0;
  addon *a = NULL;
  size_t len = 0;
  int ok = 0;

  if (get_args(env, info, argv, &argc, &a) && a->ints != NULL && argc == 1) {
    char *dst = which ? a->keep_alive : a->date;
    size_t cap = which ? sizeof a->keep_alive : sizeof a->date;
    /* Checked here, once a second, rather than in every head. */
    ok = napi_get_value_string_latin1(env, argv[0], dst, cap, &len) == napi_ok &&
         len + 1 < cap && ow_is_ascii(dst, len);
    if (which)
      a->keep_alive_len = ok ? len : 0;
    else
      a->date_len = ok ? len : 0;
  }
  return finish(env, a, NULL, ok ? OW_OK : OW_BAIL_SHAPE);
}

static napi_value js_set_date(napi_env env, napi_callback_info info) {
  return set_text(env, info, 0);
}

static napi_value js_set_keep_alive(napi_env env, napi_callback_info info) {
  return set_text(env, info, 1);
}

/*
 * attach(view): the shared memory, an Int32Array of at least SHARED_BYTES
 * over a SharedArrayBuffer (which can be neither detached nor moved).
 * Once: later calls, and anything else, answer false.
 */
static napi_value js_attach(napi_env env, napi_callback_info info) {
  napi_value argv[MAX_ARGS];
  napi_value answer = NULL;
  size_t argc = 0;
  addon *a = NULL;
  napi_typedarray_type type;
  napi_value buffer;
  size_t length = 0, offset = 0;
  void *data = NULL;
  bool plain = true;
  int ok = get_args(env, info, argv, &argc, &a) && a->ints == NULL && argc == 1 &&
           napi_get_typedarray_info(env, argv[0], &type, &length, &data, &buffer, &offset) ==
               napi_ok &&
           type == napi_int32_array && length * sizeof(int32_t) >= SHARED_BYTES &&
           data != NULL && ((uintptr_t)data % sizeof(double)) == 0 &&
           napi_is_arraybuffer(env, buffer, &plain) == napi_ok && !plain &&
           napi_create_reference(env, argv[0], 1, &a->shared) == napi_ok;
  if (ok) {
    memset(data, 0, SHARED_BYTES);
    a->nums = (double *)(void *)((char *)data + DOUBLES_AT);
    a->roles = (uint8_t *)data + ROLES_AT;
    a->lens = (int32_t *)(void *)((char *)data + LENGTHS_AT);
    a->ints = data;
  }
  clear_exception(env);
  if (napi_get_boolean(env, ok, &answer) != napi_ok) return NULL;
  return answer;
}

/* The environment is going away: nothing of this instance runs again. */
static void addon_free(void *data) {
  addon *a = data;
  if (a->shared != NULL) napi_delete_reference(a->env, a->shared);
  free(a->wide.p);
  free(a->text.p);
  free(a->out.p);
  free(a->fields);
  free(a);
}

#define METHOD(name, fn) { name, NULL, fn, NULL, NULL, NULL, napi_enumerable, a }

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  addon *a = calloc(1, sizeof *a);
  napi_value shared_bytes;

  _Static_assert(S_INT_COUNT * sizeof(int32_t) <= DOUBLES_AT, "int slots fit before the doubles");
  _Static_assert(DOUBLES_AT + D_COUNT * sizeof(double) <= ROLES_AT, "double slots fit");
  _Static_assert(LENGTHS_AT % sizeof(int32_t) == 0, "lengths aligned");

  if (a == NULL) {
    napi_throw_error(env, NULL, "onewrite: out of memory");
    return NULL;
  }
  /* The hook releases the reference to the shared memory and frees what
   * this instance allocated (a worker's environment ends before the
   * process does). */
  a->env = env;
  if (napi_add_env_cleanup_hook(env, addon_free, a) != napi_ok) {
    free(a);
    napi_throw_error(env, NULL, "onewrite: cannot register a cleanup hook");
    return NULL;
  }
  napi_property_descriptor props[] = {
    { "sharedBytes", NULL, NULL, NULL, NULL, NULL, napi_enumerable, NULL },
    /* configurable: lib/native.js removes it once it has attached */
    { "attach", NULL, js_attach, NULL, NULL, NULL, napi_enumerable | napi_configurable, a },
    METHOD("head", js_head),
    METHOD("message", js_message),
    METHOD("join", js_join),
    METHOD("chunk", js_chunk),
    METHOD("setDate", js_set_date),
    METHOD("setKeepAlive", js_set_keep_alive),
  };
  if (napi_create_int32(env, SHARED_BYTES, &shared_bytes) != napi_ok) return NULL;
  props[0].value = shared_bytes;
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok)
    return NULL;
  return exports;
}
