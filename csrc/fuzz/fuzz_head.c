/*
 * fuzz_head.c - libFuzzer target for the pure C core (head.c).
 *
 *   make -C csrc fuzz [FUZZ_SECONDS=60]
 *
 * Each input is decoded into one ow_head_in, which goes through
 * ow_head_plan / ow_head_write and through the independent model in
 * reference.c; any disagreement prints both sides and aborts.  The small
 * helpers (ow_u64_write, ow_chunk_line, ow_is_ascii, the character
 * classes) are checked against the model as well.
 *
 * Input format (all integers little-endian; a short input reads as if
 * padded with zero bytes):
 *
 *   offset  size  field
 *   0       1     flags
 *                   bit 0  first-line mode: in.first_line is string #0
 *                          (when clear, first_line is empty: status/reason mode)
 *                   bit 1  empty strings are passed as { NULL, 0 }
 *                          (when clear, as a pointer to a 1-byte allocation)
 *                   bit 2  in.fields = NULL (nfields unchanged: a caller error)
 *                   bits 3-7 unused
 *   1       2     in.state (16 bits: the 15 OW_* bits and one unknown bit)
 *   3       2     in.status (0..65535)
 *   5       8     in.content_length; also the number given to
 *                 ow_u64_write and ow_chunk_line
 *   13      ...   strings, each a length byte L followed by L bytes
 *                 (fewer if the input ends first), in this order:
 *                   #0 first line, #1 reason, #2 Date value, #3 Keep-Alive line,
 *                   then name, value, name, value, ... (at most 64 pairs;
 *                   a name without a value gets an empty value)
 *
 * Every string is copied into its own heap block of exactly its length,
 * so AddressSanitizer reports any read past a slice.  Bytes are arbitrary
 * (NUL, CR, LF, >= 0x80 included).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../head.h"
#include "input_format.h"
#include "reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_PAIRS = 64, FIXED = 13 };

typedef struct cursor {
  const uint8_t *p;
  size_t n;
  size_t at;
} cursor;

static uint8_t next_byte(cursor *c) { return c->at < c->n ? c->p[c->at++] : 0; }

static uint64_t next_le(cursor *c, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)next_byte(c) << (8 * i);
  return v;
}

/* A heap copy of the next string, as a slice; *owned is what to free. */
static ow_slice next_string(cursor *c, int null_empty, void **owned) {
  size_t len = next_byte(c);
  if (len > c->n - c->at) len = c->n - c->at;
  void *block = malloc(len > 0 ? len : 1);
  if (block == NULL) abort();
  if (len > 0) memcpy(block, c->p + c->at, len);
  c->at += len;
  *owned = block;
  if (len == 0 && null_empty) return (ow_slice){ NULL, 0 };
  return (ow_slice){ (const char *)block, len };
}

/* ------------------------------------------------------------------ */
/* Reporting.                                                          */

static void put_escaped(const char *p, size_t n) {
  fputc('"', stderr);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (c == '\r') fputs("\\r", stderr);
    else if (c == '\n') fputs("\\n", stderr);
    else if (c == '\t') fputs("\\t", stderr);
    else if (c == '"' || c == '\\') fprintf(stderr, "\\%c", c);
    else if (c >= 0x20 && c < 0x7f) fputc(c, stderr);
    else fprintf(stderr, "\\x%02x", c);
  }
  fputc('"', stderr);
}

static void show_slice(const char *label, ow_slice s) {
  fprintf(stderr, "  %s%s", label, s.ptr == NULL ? "(null) " : "");
  put_escaped(s.ptr ? s.ptr : "", s.len);
  fputc('\n', stderr);
}

static void show_input(const ow_head_in *in) {
  fprintf(stderr, "input:\n  status %u  state 0x%04x  content_length %llu  nfields %zu%s\n",
          in->status, (unsigned)in->state, (unsigned long long)in->content_length, in->nfields,
          in->fields == NULL && in->nfields > 0 ? "  fields NULL" : "");
  show_slice("first_line ", in->first_line);
  show_slice("reason     ", in->reason);
  show_slice("date       ", in->date);
  show_slice("keep_alive ", in->keep_alive);
  if (in->fields == NULL) return;
  for (size_t i = 0; i < in->nfields; i++) {
    fprintf(stderr, "  field %zu:", i);
    show_slice("name  ", in->fields[2 * i]);
    fprintf(stderr, "  field %zu:", i);
    show_slice("value ", in->fields[2 * i + 1]);
  }
}

static void fail(const char *what, const ow_head_in *in, int rc, const ow_plan *plan,
                 const char *got, size_t got_len, const ref_result *ref) {
  fprintf(stderr, "\n==== head.c and reference.c disagree: %s ====\n", what);
  if (in != NULL) show_input(in);
  if (plan != NULL) {
    fprintf(stderr, "head.c:      rc %d", rc);
    if (rc == OW_OK)
      fprintf(stderr, "  state 0x%04x  seen 0x%02x  cl_field %zu  head_len %zu", (unsigned)plan->state,
              (unsigned)plan->seen, plan->cl_field, plan->head_len);
    fputc('\n', stderr);
    if (got != NULL) {
      fputs("  ", stderr);
      put_escaped(got, got_len);
      fputc('\n', stderr);
    }
  }
  if (ref != NULL) {
    if (ref->accepted) {
      fprintf(stderr, "reference:   accepted  state 0x%04x  seen 0x%02x  cl_field %zu  head_len %zu\n  ",
              (unsigned)ref->state, (unsigned)ref->seen, ref->cl_field, ref->head_len);
      put_escaped(ref->head, ref->head_len);
      fputc('\n', stderr);
    } else {
      fprintf(stderr, "reference:   declined (%s)\n", ref->why);
    }
  }
  abort();
}

/* ------------------------------------------------------------------ */
/* The helpers.                                                        */

static void check_char_classes(void) {
  static int done = 0;
  if (done) return;
  done = 1;
  for (int c = 0; c < 256; c++) {
    if (!ow_is_token_char((unsigned char)c) != !ref_is_token_char((unsigned char)c) ||
        !ow_is_value_char((unsigned char)c) != !ref_is_value_char((unsigned char)c)) {
      fprintf(stderr, "character class of 0x%02x differs\n", c);
      abort();
    }
  }
}

/* One number formatter against its reference: the length it announces,
 * the bytes it writes, its refusal of a buffer one byte short, and its
 * bound. */
static void check_number(const char *name, uint64_t n, size_t (*ref)(uint64_t, char *),
                         size_t (*len_of)(uint64_t), size_t (*put)(uint64_t, char *, size_t),
                         size_t max) {
  char want[32];
  char msg[96];

  size_t len = ref(n, want);
  char *buf = malloc(len);
  if (buf == NULL) abort();
  if (len_of(n) != len || put(n, buf, len) != len || memcmp(buf, want, len) != 0 ||
      put(n, buf, len - 1) != 0 || len > max) {
    snprintf(msg, sizeof msg, "%s(%llu)", name, (unsigned long long)n);
    fail(msg, NULL, 0, NULL, NULL, 0, NULL);
  }
  free(buf);
}

static void check_numbers(uint64_t n) {
  check_number("ow_u64_write", n, ref_u64_text, ow_u64_len, ow_u64_write, OW_U64_DIGITS);
  check_number("ow_chunk_line", n, ref_chunk_line_text, ow_chunk_line_len, ow_chunk_line,
               OW_CHUNK_LINE_MAX);
}

/* ow_is_ascii on the input at every alignment of its word loop. */
static void check_ascii(const uint8_t *data, size_t size) {
  if (size == 0) return;
  char *copy = malloc(size);
  if (copy == NULL) abort();
  memcpy(copy, data, size);
  for (size_t k = 0; k < 8 && k < size; k++) {
    size_t lo = size >= 8 ? size - 8 : 0;
    if (lo < k) lo = k;
    for (size_t end = lo; end <= size; end++) {
      if (!ow_is_ascii(copy + k, end - k) != !ref_is_ascii(copy + k, end - k)) {
        fprintf(stderr, "ow_is_ascii differs at offset %zu length %zu\n", k, end - k);
        abort();
      }
    }
  }
  free(copy);
}

/* ------------------------------------------------------------------ */
/* The head.                                                           */

static void check_head(const ow_head_in *in) {
  ow_plan plan;
  ref_result ref;
  int rc = ow_head_plan(in, &plan);
  ref_head(in, &ref);

  if (rc != OW_OK) {
    if (rc < OW_BAIL_NON_ASCII || rc > OW_BAIL_SHAPE) fail("unknown result code", in, rc, &plan, NULL, 0, &ref);
    if (ref.accepted) fail("head.c declines, the reference renders", in, rc, &plan, NULL, 0, &ref);
    ref_free(&ref);
    return;
  }
  if (!ref.accepted) fail("head.c renders, the reference declines", in, rc, &plan, NULL, 0, &ref);

  /* Exactly head_len bytes, into a block of exactly that size. */
  char *buf = malloc(plan.head_len > 0 ? plan.head_len : 1);
  if (buf == NULL) abort();
  size_t n = ow_head_write(in, &plan, buf, plan.head_len);
  if (n != plan.head_len) fail("ow_head_write returned another length than head_len", in, rc, &plan, buf, n, &ref);
  if (plan.head_len != ref.head_len || memcmp(buf, ref.head, ref.head_len) != 0)
    fail("bytes of the head", in, rc, &plan, buf, n, &ref);
  if (plan.state != ref.state) fail("plan.state", in, rc, &plan, buf, n, &ref);
  if (plan.seen != ref.seen) fail("plan.seen", in, rc, &plan, buf, n, &ref);
  if ((plan.seen & OW_SEEN_CL) && plan.cl_field != ref.cl_field)
    fail("plan.cl_field", in, rc, &plan, buf, n, &ref);

  /* One byte short: 0, and nothing written. */
  if (plan.head_len > 0) {
    size_t short_len = plan.head_len - 1;
    char *small = malloc(short_len > 0 ? short_len : 1);
    if (small == NULL) abort();
    memset(small, 0xA5, short_len > 0 ? short_len : 1);
    if (ow_head_write(in, &plan, small, short_len) != 0)
      fail("ow_head_write with cap head_len - 1 did not return 0", in, rc, &plan, buf, n, &ref);
    for (size_t i = 0; i < short_len; i++) {
      if ((unsigned char)small[i] != 0xA5) fail("ow_head_write wrote into a too small buffer", in, rc, &plan, buf, n, &ref);
    }
    free(small);
  }
  if (ow_head_write(in, &plan, NULL, plan.head_len) != 0)
    fail("ow_head_write to NULL did not return 0", in, rc, &plan, buf, n, &ref);

  /* A larger buffer: same bytes, nothing written past head_len. */
  char *big = malloc(plan.head_len + 16);
  if (big == NULL) abort();
  memset(big, 0x5A, plan.head_len + 16);
  if (ow_head_write(in, &plan, big, plan.head_len + 16) != plan.head_len ||
      memcmp(big, buf, plan.head_len) != 0)
    fail("ow_head_write into a larger buffer", in, rc, &plan, buf, n, &ref);
  for (size_t i = plan.head_len; i < plan.head_len + 16; i++) {
    if ((unsigned char)big[i] != 0x5A) fail("ow_head_write wrote past head_len", in, rc, &plan, buf, n, &ref);
  }
  free(big);

  free(buf);
  ref_free(&ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cursor c = { data, size, 0 };
  ow_head_in in;
  memset(&in, 0, sizeof in);

  unsigned flags = next_byte(&c);
  int null_empty = (flags & F_NULL_EMPTY) != 0;
  in.state = (uint32_t)next_le(&c, 2);
  in.status = (unsigned)next_le(&c, 2);
  in.content_length = next_le(&c, 8);

  void *owned[4 + 2 * MAX_PAIRS];
  size_t nowned = 0;
  ow_slice line = next_string(&c, null_empty, &owned[nowned++]);
  in.reason = next_string(&c, null_empty, &owned[nowned++]);
  in.date = next_string(&c, null_empty, &owned[nowned++]);
  in.keep_alive = next_string(&c, null_empty, &owned[nowned++]);
  if (flags & F_FIRST_LINE) in.first_line = line;
  else in.first_line = (ow_slice){ NULL, 0 };

  ow_slice fields[2 * MAX_PAIRS];
  size_t nfields = 0;
  while (c.at < c.n && nfields < MAX_PAIRS) {
    fields[2 * nfields] = next_string(&c, null_empty, &owned[nowned++]);
    fields[2 * nfields + 1] = next_string(&c, null_empty, &owned[nowned++]);
    nfields++;
  }
  in.nfields = nfields;
  in.fields = (flags & F_NULL_FIELDS) ? NULL : fields;

  check_char_classes();
  check_numbers(in.content_length);
  check_ascii(data, size);
  check_head(&in);

  for (size_t i = 0; i < nowned; i++) free(owned[i]);
  return 0;
}
