/*
 * binding.c - the Node-API glue around head.c.
 *
 * One call per response, with a fixed handful of Node-API calls whatever
 * the number of headers:
 *  - JavaScript concatenates the first line and every header name and
 *    value into ONE string and writes their lengths into shared memory
 *    (an ArrayBuffer made here, viewed from JS as Int32Array and
 *    Float64Array), together with the response state and the numbers;
 *  - this code reads the string once (as UTF-16, which makes any
 *    non-ASCII character visible), cuts it by the lengths, lets head.c
 *    check and size everything, writes the head into a buffer it keeps,
 *    and returns a latin1 string (or, for the public buildHead(), a
 *    Buffer);
 *  - the Date value and the Keep-Alive line change at most once a second
 *    and are pushed here only when they do.
 *
 * Nothing here throws for what a user can cause: such a case answers
 * undefined with a reason in the S_RESULT slot, and JavaScript runs Node's
 * own code, which renders the bytes or throws Node's own error.  A failing
 * Node-API call on values this package produced itself is a bug: assert.
 */
#ifndef NAPI_VERSION
#define NAPI_VERSION 8
#endif
#include <node_api.h>

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "head.h"

/* Layout of the shared memory; keep in step with lib/slots.js. */
enum {
  S_STATE = 0,  /* in: OW_* response state bits */
  S_STATUS,     /* in: status code */
  S_NFIELDS,    /* in: header pairs in the text */
  S_TEXT_LEN,   /* in: length of the text, in chars */
  S_LINE_MODE,  /* in: 0 = first part is the whole first line, 1 = it is the reason */
  S_BODY_KIND,  /* in: BODY_* */
  S_FRAME,      /* in (join): 1 = frame the body as one chunk, then the last-chunk */
  S_RESULT,     /* out: OW_OK or OW_BAIL_* */
  S_OUT_STATE,  /* out: response state after the head */
  S_SEEN,       /* out: OW_SEEN_* */
  S_CL_START,   /* out: the user's Content-Length value: start offset in the text */
  S_CL_END,     /* out: ... and end offset */
  S_HEAD_LEN,   /* out: bytes of the head */
  S_INT_COUNT
};
enum { D_CONTENT_LENGTH = 0, D_BODY_LEN, D_COUNT };
#define DOUBLES_AT 64    /* byte offset of the doubles */
#define LENGTHS_AT 128   /* byte offset of the lengths: first part, then name, value, ... */
#define MAX_PAIRS 512
#define SHARED_BYTES (LENGTHS_AT + 4 * (1 + 2 * MAX_PAIRS))

/* Body kinds. */
enum {
  BODY_NONE = 0,
  BODY_ONE_BYTE = 1, /* a string whose bytes are its latin1 code units */
  BODY_BYTES = 2     /* a Uint8Array / Buffer */
};

#define KEEP_SCRATCH (64 * 1024) /* buffers kept between calls; bigger ones are freed after use */

typedef struct buf {
  char *p;
  size_t cap;
} buf;

typedef struct addon {
  int32_t *ints;
  double *nums;
  int32_t *lens;
  napi_ref shared;
  buf wide;      /* the request's text as read: UTF-16 */
  buf text;      /* ... and narrowed to bytes */
  buf out;       /* the rendered message */
  ow_slice *fields;
  size_t fields_cap;
  char date[64];
  size_t date_len;
  char keep_alive[256];
  size_t keep_alive_len;
} addon;

#define CHECK(call)          \
  do {                       \
    napi_status s_ = (call); \
    assert(s_ == napi_ok);   \
    (void)s_;                \
  } while (0)

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

static napi_value undefined(napi_env env) {
  napi_value u;
  CHECK(napi_get_undefined(env, &u));
  return u;
}

static void get_args(napi_env env, napi_callback_info info, size_t want,
                     napi_value *argv, addon **a) {
  size_t argc = want;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, (void **)a));
  for (size_t i = argc; i < want; i++) CHECK(napi_get_undefined(env, &argv[i]));
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
 * Read `value`, a string of exactly `len` UTF-16 code units, into a->text
 * as bytes.  Returns OW_OK, OW_BAIL_NON_ASCII when a code unit is >= 0x80,
 * or OW_BAIL_SHAPE.
 */
static int read_text(napi_env env, addon *a, napi_value value, size_t len) {
  size_t got = 0;
  if (len > (SIZE_MAX - 2) / 2) return OW_BAIL_TOO_LARGE;
  char *w = reserve(&a->wide, 2 * (len + 1));
  char *p = reserve(&a->text, len + 1);
  if (w == NULL || p == NULL) return OW_BAIL_TOO_LARGE;
  char16_t *u = (char16_t *)(void *)w;
  if (napi_get_value_string_utf16(env, value, u, len + 1, &got) != napi_ok || got != len)
    return OW_BAIL_SHAPE;
  return narrow(u, p, len) >= 0x80 ? OW_BAIL_NON_ASCII : OW_OK;
}

/* One head to render: the input for head.c and its plan. */
typedef struct job {
  ow_head_in in;
  ow_plan plan;
} job;

/*
 * Read the text, cut it by the lengths in shared memory and plan the head.
 * The plan's results go to the slots.
 */
static int plan(napi_env env, addon *a, napi_value text, job *j) {
  int32_t *ints = a->ints;
  const int32_t *lens = a->lens;
  int32_t npairs = ints[S_NFIELDS];
  int32_t tlen = ints[S_TEXT_LEN];

  if (npairs < 0 || npairs > MAX_PAIRS || tlen < 0) return OW_BAIL_SHAPE;
  size_t nfields = (size_t)npairs;
  size_t len = (size_t)tlen;
  int rc = read_text(env, a, text, len);
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
  ow_slice first;
  if (lens[0] < 0 || (size_t)lens[0] > len) return OW_BAIL_SHAPE;
  first.ptr = p;
  first.len = (size_t)lens[0];
  at = first.len;
  for (size_t i = 0; i < 2 * nfields; i++) {
    int32_t l = lens[1 + i];
    if (l < 0 || (size_t)l > len - at) return OW_BAIL_SHAPE;
    a->fields[i].ptr = p + at;
    a->fields[i].len = (size_t)l;
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
  if (rc != OW_OK) return rc;

  ints[S_OUT_STATE] = (int32_t)j->plan.state;
  ints[S_SEEN] = (int32_t)j->plan.seen;
  ints[S_HEAD_LEN] = (int32_t)j->plan.head_len;
  if (j->plan.seen & OW_SEEN_CL) {
    ow_slice v = a->fields[2 * j->plan.cl_field + 1];
    ints[S_CL_START] = (int32_t)(v.ptr - p);
    ints[S_CL_END] = (int32_t)(v.ptr - p + v.len);
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
          type != napi_uint8_array)
        return OW_BAIL_SHAPE;
      b->ptr = data;
      b->len = len;
      return OW_OK;
    }
    default:
      return OW_BAIL_SHAPE;
  }
}

/* Copy the body to dst: exactly b->len bytes, and one byte more of room for
 * the terminator Node-API writes after a string. */
static int body_copy(napi_env env, const body *b, char *dst) {
  if (b->str != NULL) {
    size_t got = 0;
    if (napi_get_value_string_latin1(env, b->str, dst, b->len + 1, &got) != napi_ok ||
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

/* Room for a framed body of n bytes, or 0 if it would overflow. */
static size_t framed_size(size_t n, int framing) {
  if (n > SIZE_MAX / 2) return 0;
  return n + (framing ? OW_CHUNK_LINE_MAX + 2 + sizeof k_last_chunk : 0) + 1;
}

/*
 * Results are latin1 strings, whose bytes are exactly the message's bytes.
 * A string is what the socket write wants, and V8 makes one in its heap
 * far faster than a Buffer: napi_create_buffer_copy measured ~3 us per
 * call here against ~35 ns for napi_create_string_latin1 (see
 * benchmark/README.md); JavaScript turns a string into a Buffer itself
 * where one is wanted (buildHead).
 */
static napi_value output(napi_env env, const char *p, size_t n) {
  napi_value result;
  CHECK(napi_create_string_latin1(env, p, n, &result));
  return result;
}

/*
 * render(text[, body]): the head, then - when S_BODY_KIND says there is a
 * body and the response has one (not HEAD, 204, 304, 1xx: Node drops the
 * body there) - the body, framed as one chunk plus the last-chunk when the
 * head is chunked.  undefined when Node must render it.
 */
static napi_value render(napi_env env, napi_callback_info info, int with_body) {
  napi_value argv[2];
  napi_value result = NULL;
  addon *a;
  job j;
  body b;
  int rc;

  get_args(env, info, 2, argv, &a);
  rc = plan(env, a, argv[0], &j);
  memset(&b, 0, sizeof b);
  if (rc == OW_OK && with_body) rc = body_get(env, a, argv[1], &b);
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
      if (rc == OW_OK) result = output(env, out, (size_t)(d - out));
    }
  }
  a->ints[S_RESULT] = rc;
  shrink(&a->wide);
  shrink(&a->text);
  shrink(&a->out);
  return result != NULL ? result : undefined(env);
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
  napi_value argv[2];
  napi_value result = NULL;
  addon *a;
  body b;
  size_t got = 0;
  get_args(env, info, 2, argv, &a);
  int32_t hl = a->ints[S_TEXT_LEN];
  int framing = a->ints[S_FRAME] != 0;
  int rc = hl < 0 ? OW_BAIL_SHAPE : body_get(env, a, argv[1], &b);
  if (rc == OW_OK) {
    size_t hlen = (size_t)hl;
    size_t room = framed_size(b.len, framing);
    char *out = room == 0 || room > SIZE_MAX - hlen ? NULL : reserve(&a->out, hlen + room);
    if (out == NULL) {
      rc = OW_BAIL_TOO_LARGE;
    } else if (napi_get_value_string_latin1(env, argv[0], out, hlen + 1, &got) != napi_ok ||
               got != hlen) {
      rc = OW_BAIL_SHAPE;
    } else {
      char *d = put_body(env, &b, out + hlen, framing, &rc);
      if (rc == OW_OK) result = output(env, out, (size_t)(d - out));
    }
  }
  a->ints[S_RESULT] = rc;
  shrink(&a->out);
  return result != NULL ? result : undefined(env);
}

/* chunk(body): "hex\r\n" body "\r\n". */
static napi_value js_chunk(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  napi_value result = NULL;
  addon *a;
  body b;
  get_args(env, info, 1, argv, &a);
  int rc = body_get(env, a, argv[0], &b);
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
      if (rc == OW_OK) result = output(env, out, (size_t)(d - out));
    }
  }
  a->ints[S_RESULT] = rc;
  shrink(&a->out);
  return result != NULL ? result : undefined(env);
}

/* setDate(value), setKeepAlive(line): the values that change once a second
 * at most.  A value that does not fit leaves an empty one, which
 * ow_head_plan refuses, so Node renders those heads. */
static napi_value set_text(napi_env env, napi_callback_info info, int which) {
  napi_value argv[1];
  addon *a;
  size_t len = 0;
  get_args(env, info, 1, argv, &a);
  char *dst = which ? a->keep_alive : a->date;
  size_t cap = which ? sizeof a->keep_alive : sizeof a->date;
  /* Checked here, once a second, rather than in every head. */
  int ok = napi_get_value_string_latin1(env, argv[0], dst, cap, &len) == napi_ok &&
           len + 1 < cap && ow_is_ascii(dst, len);
  if (which)
    a->keep_alive_len = ok ? len : 0;
  else
    a->date_len = ok ? len : 0;
  a->ints[S_RESULT] = ok ? OW_OK : OW_BAIL_SHAPE;
  return NULL;
}

static napi_value js_set_date(napi_env env, napi_callback_info info) {
  return set_text(env, info, 0);
}

static napi_value js_set_keep_alive(napi_env env, napi_callback_info info) {
  return set_text(env, info, 1);
}

static void addon_free(napi_env env, void *data, void *hint) {
  addon *a = data;
  (void)hint;
  if (a->shared != NULL) napi_delete_reference(env, a->shared);
  free(a->wide.p);
  free(a->text.p);
  free(a->out.p);
  free(a->fields);
  free(a);
}

#define METHOD(name, fn) { name, NULL, fn, NULL, NULL, NULL, napi_enumerable, a }

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  addon *a = calloc(1, sizeof *a);
  napi_value shared, max_pairs;
  void *mem;

  static_assert(S_INT_COUNT * sizeof(int32_t) <= DOUBLES_AT, "int slots fit before the doubles");
  static_assert(DOUBLES_AT + D_COUNT * sizeof(double) <= LENGTHS_AT, "double slots fit");

  if (a == NULL) {
    napi_throw_error(env, NULL, "onewrite: out of memory");
    return NULL;
  }
  CHECK(napi_set_instance_data(env, a, addon_free, NULL));
  /* A plain ArrayBuffer's memory never moves: the pointers stay good. */
  CHECK(napi_create_arraybuffer(env, SHARED_BYTES, &mem, &shared));
  memset(mem, 0, SHARED_BYTES);
  a->ints = mem;
  a->nums = (double *)(void *)((char *)mem + DOUBLES_AT);
  a->lens = (int32_t *)(void *)((char *)mem + LENGTHS_AT);
  CHECK(napi_create_reference(env, shared, 1, &a->shared));
  CHECK(napi_create_int32(env, MAX_PAIRS, &max_pairs));

  napi_property_descriptor props[] = {
    { "shared", NULL, NULL, NULL, NULL, shared, napi_enumerable, NULL },
    { "maxPairs", NULL, NULL, NULL, NULL, max_pairs, napi_enumerable, NULL },
    METHOD("head", js_head),
    METHOD("message", js_message),
    METHOD("join", js_join),
    METHOD("chunk", js_chunk),
    METHOD("setDate", js_set_date),
    METHOD("setKeepAlive", js_set_keep_alive),
  };
  CHECK(napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
  return exports;
}
