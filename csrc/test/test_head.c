/*
 * Unit tests of the pure C core (head.c), without Node.
 *
 *   make -C csrc test      builds this with -fsanitize=address,undefined and runs it
 *
 * The expected heads here follow Node's _storeHeader rules; the byte-for-byte
 * comparison with Node itself is done by the JavaScript tests (test/ folder),
 * which render the same inputs through Node's own code.
 */
#include "../head.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static int checks = 0;

#define EXPECT(cond)                                                   \
  do {                                                                 \
    checks++;                                                          \
    if (!(cond)) {                                                     \
      failures++;                                                      \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
    }                                                                  \
  } while (0)

#define SL(s) ((ow_slice){ (s), sizeof(s) - 1 })

#define K_DATE SL("Sun, 06 Nov 1994 08:49:37 GMT")
#define K_KA SL("Keep-Alive: timeout=5\r\n")

/* A response as a fresh HTTP/1.1 ServerResponse starts out. */
static ow_head_in base(void) {
  ow_head_in in;
  memset(&in, 0, sizeof in);
  in.first_line = SL("HTTP/1.1 200 OK\r\n");
  in.status = 200;
  in.state = OW_SEND_DATE | OW_KEEP_ALIVE | OW_CHUNKED_DEFAULT | OW_HAS_BODY | OW_DEFAULT_KA |
             OW_KA_TIMEOUT;
  in.date = K_DATE;
  in.keep_alive = K_KA;
  return in;
}

/* Render in into a heap buffer of exactly the planned size (so ASan sees
 * any write past it); returns the rc, and the text in *out. */
static int render(const ow_head_in *in, ow_plan *plan, char **out) {
  *out = NULL;
  int rc = ow_head_plan(in, plan);
  if (rc != OW_OK) return rc;
  char *buf = malloc(plan->head_len ? plan->head_len : 1);
  if (buf == NULL) abort();
  size_t n = ow_head_write(in, plan, buf, plan->head_len);
  EXPECT(n == plan->head_len);
  *out = buf;
  return rc;
}

static int same(const char *got, size_t n, const char *want) {
  if (n == strlen(want) && memcmp(got, want, n) == 0) return 1;
  fprintf(stderr, "  got:  \"%.*s\"\n  want: \"%s\"\n", (int)n, got, want);
  return 0;
}

static void check_head(const ow_head_in *in, const char *want, uint32_t set, uint32_t clear) {
  ow_plan plan;
  char *out;
  int rc = render(in, &plan, &out);
  EXPECT(rc == OW_OK);
  if (rc != OW_OK) return;
  EXPECT(same(out, plan.head_len, want));
  EXPECT((plan.state & set) == set);
  EXPECT((plan.state & clear) == 0);
  free(out);
}

static void test_defaults(void) {
  ow_head_in in = base();
  /* end('hello'): Content-Length from the body. */
  in.state |= OW_HAS_CL;
  in.content_length = 5;
  check_head(&in,
             "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
             "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 5\r\n\r\n",
             OW_KEEP_ALIVE, OW_LAST | OW_CHUNKED);
  /* writeHead() alone: chunked. */
  in = base();
  check_head(&in,
             "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
             "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nTransfer-Encoding: chunked\r\n\r\n",
             OW_CHUNKED, OW_LAST);
  /* No date, no keep-alive timeout. */
  in = base();
  in.state &= ~(uint32_t)(OW_SEND_DATE | OW_KA_TIMEOUT);
  check_head(&in, "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n",
             OW_CHUNKED, OW_LAST);
}

static void test_headers(void) {
  ow_slice f[] = { SL("Content-Type"), SL("text/plain"), SL("X-Multi"), SL("a"),
                   SL("X-Multi"), SL("b"), SL("Content-Length"), SL("12") };
  ow_head_in in = base();
  in.fields = f;
  in.nfields = 4;
  in.state |= OW_VALIDATE;
  ow_plan plan;
  char *out;
  EXPECT(render(&in, &plan, &out) == OW_OK);
  EXPECT(same(out, plan.head_len,
              "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Multi: a\r\nX-Multi: b\r\n"
              "Content-Length: 12\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
              "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n"));
  EXPECT(plan.seen & OW_SEEN_CL);
  EXPECT(plan.cl_field == 3);
  free(out);
}

static void test_status_line(void) {
  ow_head_in in = base();
  in.first_line = (ow_slice){ NULL, 0 };
  in.status = 404;
  in.reason = SL("Not Found");
  in.state &= ~(uint32_t)(OW_SEND_DATE | OW_KA_TIMEOUT | OW_KEEP_ALIVE);
  check_head(&in, "HTTP/1.1 404 Not Found\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n",
             OW_LAST | OW_CHUNKED, 0);
  in.reason = SL("");
  in.status = 999;
  check_head(&in, "HTTP/1.1 999 \r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n", 0, 0);
  ow_plan plan;
  in.status = 99;
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_REASON);
  in.status = 1000;
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_REASON);
  in.status = 200;
  in.reason = SL("O\rK");
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_REASON);
  in.reason = SL("\xc3\xa9");
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_NON_ASCII);
}

static void test_connection_rules(void) {
  ow_plan plan;
  char *out;
  /* A user Connection: close sets _last and suppresses the automatic line. */
  ow_slice close_[] = { SL("connection"), SL("Upgrade, Close") };
  ow_head_in in = base();
  in.fields = close_;
  in.nfields = 1;
  in.state |= OW_HAS_CL;
  check_head(&in,
             "HTTP/1.1 200 OK\r\nconnection: Upgrade, Close\r\n"
             "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 0\r\n\r\n",
             OW_LAST, 0);
  /* "closed" is not the word close. */
  ow_slice closed[] = { SL("Connection"), SL("closed") };
  in.fields = closed;
  EXPECT(render(&in, &plan, &out) == OW_OK);
  EXPECT(!(plan.state & OW_LAST) && (plan.state & OW_KEEP_ALIVE));
  free(out);
  /* A user Keep-Alive header drops the automatic Keep-Alive line. */
  ow_slice ka[] = { SL("Keep-Alive"), SL("timeout=9") };
  in = base();
  in.fields = ka;
  in.nfields = 1;
  check_head(&in,
             "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=9\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
             "Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n",
             0, OW_DEFAULT_KA);
  /* maxRequestsOnConnectionReached: Connection: close without _last. */
  in = base();
  in.state |= OW_MAX_REACHED;
  check_head(&in,
             "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
             "Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n",
             0, OW_LAST);
  /* HTTP/1.0 client: no chunked default, no keep-alive. */
  in = base();
  in.state &= ~(uint32_t)(OW_CHUNKED_DEFAULT | OW_KEEP_ALIVE);
  check_head(&in, "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: close\r\n\r\n",
             OW_LAST, OW_CHUNKED);
  /* removeHeader('Connection'): no line, _last from shouldKeepAlive. */
  in = base();
  in.state |= OW_REMOVED_CONN | OW_LAST;
  check_head(&in,
             "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
             "Transfer-Encoding: chunked\r\n\r\n",
             0, OW_LAST);
}

static void test_framing(void) {
  ow_plan plan;
  /* User Transfer-Encoding: chunked; params counts as chunked. */
  ow_slice te[] = { SL("Transfer-Encoding"), SL("chunked;foo=bar") };
  ow_head_in in = base();
  in.fields = te;
  in.nfields = 1;
  check_head(&in,
             "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked;foo=bar\r\n"
             "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: keep-alive\r\n"
             "Keep-Alive: timeout=5\r\n\r\n",
             OW_CHUNKED, 0);
  /* 204 with a user TE chunked: no chunking, connection closes. */
  in.status = 204;
  in.first_line = SL("HTTP/1.1 204 No Content\r\n");
  in.state &= ~(uint32_t)OW_HAS_BODY;
  check_head(&in,
             "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked;foo=bar\r\n"
             "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: close\r\n\r\n",
             OW_LAST, OW_CHUNKED | OW_KEEP_ALIVE);
  /* HEAD: no framing line at all. */
  in = base();
  in.state &= ~(uint32_t)OW_HAS_BODY;
  in.state |= OW_HAS_CL;
  check_head(&in,
             "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
             "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n",
             0, OW_CHUNKED);
  /* Both removed: close-delimited. */
  in = base();
  in.state |= OW_REMOVED_CL | OW_REMOVED_TE;
  EXPECT(ow_head_plan(&in, &plan) == OW_OK);
  EXPECT((plan.state & OW_LAST) && !(plan.emit & (OW_EMIT_CL | OW_EMIT_TE)));
  /* A length above 2^32 is written whole. */
  in = base();
  in.state |= OW_HAS_CL;
  in.content_length = UINT64_C(4294967296);
  check_head(&in,
             "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
             "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 4294967296\r\n\r\n",
             0, OW_CHUNKED);
  /* Trailer without chunked framing: Node throws, the builder declines. */
  ow_slice tr[] = { SL("Trailer"), SL("X-Sum"), SL("Content-Length"), SL("3") };
  in = base();
  in.fields = tr;
  in.nfields = 2;
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_TRAILER);
  /* ... and with chunked it is a plain header. */
  in.nfields = 1;
  EXPECT(ow_head_plan(&in, &plan) == OW_OK);
  EXPECT(plan.seen & OW_SEEN_TRAILER);
}

static void test_validation(void) {
  ow_plan plan;
  ow_slice f[2];
  ow_head_in in = base();
  in.fields = f;
  in.nfields = 1;
  in.state |= OW_VALIDATE;
  /* Every byte value, as a name and as a value. */
  for (int c = 0; c < 256; c++) {
    char name[3] = { 'X', (char)c, 'Y' };
    char value[3] = { 'a', (char)c, 'b' };
    f[0] = (ow_slice){ name, 3 };
    f[1] = SL("v");
    int rc = ow_head_plan(&in, &plan);
    int token = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
    EXPECT(token ? rc == OW_OK : rc != OW_OK);
    EXPECT(c < 0x80 || rc == OW_BAIL_NON_ASCII);
    f[0] = SL("X");
    f[1] = (ow_slice){ value, 3 };
    rc = ow_head_plan(&in, &plan);
    int valid = c == '\t' || (c >= 0x20 && c <= 0x7e);
    EXPECT(valid ? rc == OW_OK : rc != OW_OK);
    EXPECT(c < 0x80 || rc == OW_BAIL_NON_ASCII);
    /* Long values take the eight-bytes-at-a-time path: the bad byte at
     * every position of a 20-byte value. */
    for (int at = 0; at < 20; at++) {
      char longv[20];
      memset(longv, 'v', sizeof longv);
      longv[at] = (char)c;
      f[1] = (ow_slice){ longv, sizeof longv };
      rc = ow_head_plan(&in, &plan);
      EXPECT(valid ? rc == OW_OK : rc != OW_OK);
    }
  }
  /* Names and values of every length to 40 (the byte classes are read a
   * word at a time, the last word overlapping the one before): one bad
   * byte at every position is found, and a good one passes. */
  for (size_t len = 1; len <= 40; len++) {
    char good[40];
    memset(good, 'x', sizeof good);
    for (size_t at = 0; at <= len; at++) {
      char bad[40];
      memcpy(bad, good, sizeof bad);
      if (at < len) bad[at] = at % 2 ? ':' : '\x01'; /* neither a token nor (0x01) a value byte */
      f[0] = (ow_slice){ bad, len };
      f[1] = SL("v");
      EXPECT(ow_head_plan(&in, &plan) == (at < len ? OW_BAIL_NAME : OW_OK));
      if (at < len) bad[at] = '\x01';
      f[0] = SL("X");
      f[1] = (ow_slice){ bad, len };
      EXPECT(ow_head_plan(&in, &plan) == (at < len ? OW_BAIL_VALUE : OW_OK));
    }
  }
  /* An empty value given as a NULL slice: valid, and no pointer
   * arithmetic on NULL (the fuzzer's first find, under UBSan). */
  f[0] = SL("X");
  f[1] = (ow_slice){ NULL, 0 };
  EXPECT(ow_head_plan(&in, &plan) == OW_OK);
  /* Empty name. */
  f[0] = SL("");
  f[1] = SL("v");
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_NAME);
  /* Without OW_VALIDATE (setHeader already checked), values are copied as
   * they are, as Node does; only non-ASCII is declined. */
  in.state &= ~(uint32_t)OW_VALIDATE;
  f[0] = SL("X");
  f[1] = SL("a\r\nb");
  EXPECT(ow_head_plan(&in, &plan) == OW_OK);
  f[1] = SL("\xe9");
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_NON_ASCII);
}

/* Names and values of every length to 40, rendered exactly: the copy of a
 * part takes words from its start and its end, which overlap for most
 * lengths (render() gives a buffer of exactly the head's size, so that a
 * byte written past it is seen by AddressSanitizer). */
static void test_lengths(void) {
  char name[41], value[41], want[256];
  ow_slice f[2];
  for (size_t n = 1; n <= 40; n++) {
    for (size_t i = 0; i < n; i++) name[i] = (char)('a' + i % 26);
    for (size_t v = 0; v <= 40; v++) {
      for (size_t i = 0; i < v; i++) value[i] = (char)('A' + (i * 7) % 26);
      ow_head_in in = base();
      in.state &= ~(uint32_t)(OW_SEND_DATE | OW_CHUNKED_DEFAULT);
      in.fields = f;
      in.nfields = 1;
      f[0] = (ow_slice){ name, n };
      f[1] = (ow_slice){ value, v };
      snprintf(want, sizeof want, "HTTP/1.1 200 OK\r\n%.*s: %.*s\r\nConnection: close\r\n\r\n",
               (int)n, name, (int)v, value);
      check_head(&in, want, OW_LAST, 0);
      /* The same as a reason phrase of the status line made here. */
      in.first_line = (ow_slice){ NULL, 0 };
      in.reason = (ow_slice){ value, v };
      in.nfields = 0;
      snprintf(want, sizeof want, "HTTP/1.1 200 %.*s\r\nConnection: close\r\n\r\n", (int)v, value);
      check_head(&in, want, OW_LAST, 0);
    }
  }
}

static void test_write_capacity(void) {
  ow_head_in in = base();
  ow_plan plan;
  EXPECT(ow_head_plan(&in, &plan) == OW_OK);
  char *buf = malloc(plan.head_len);
  if (buf == NULL) abort();
  EXPECT(ow_head_write(&in, &plan, buf, plan.head_len - 1) == 0);
  EXPECT(ow_head_write(&in, &plan, NULL, plan.head_len) == 0);
  EXPECT(ow_head_write(&in, &plan, buf, plan.head_len) == plan.head_len);
  free(buf);
  /* Refused Date or Keep-Alive values (empty) decline the head. */
  in.date = (ow_slice){ NULL, 0 };
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_SHAPE);
  in = base();
  in.keep_alive = (ow_slice){ NULL, 0 };
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_SHAPE);
  /* fields missing while nfields says otherwise. */
  in = base();
  in.nfields = 1;
  EXPECT(ow_head_plan(&in, &plan) == OW_BAIL_SHAPE);
}

static void test_numbers(void) {
  char b[32];
  EXPECT(ow_u64_write(0, b, sizeof b) == 1 && b[0] == '0');
  EXPECT(ow_u64_write(UINT64_MAX, b, sizeof b) == 20 && memcmp(b, "18446744073709551615", 20) == 0);
  EXPECT(ow_u64_write(12345, b, 4) == 0);
  EXPECT(ow_chunk_line(0, b, sizeof b) == 3 && memcmp(b, "0\r\n", 3) == 0);
  EXPECT(ow_chunk_line(255, b, sizeof b) == 4 && memcmp(b, "ff\r\n", 4) == 0);
  EXPECT(ow_chunk_line(0x10000, b, sizeof b) == 7 && memcmp(b, "10000\r\n", 7) == 0);
  EXPECT(ow_chunk_line(UINT64_MAX, b, sizeof b) == 18 && memcmp(b, "ffffffffffffffff\r\n", 18) == 0);
  EXPECT(ow_chunk_line(255, b, 3) == 0);
  EXPECT(ow_chunk_line_len(UINT64_MAX) == OW_CHUNK_LINE_MAX);
  EXPECT(ow_is_ascii("abcdefghijklmnop", 16));
  EXPECT(!ow_is_ascii("abcdefghijklmno\x80", 16));
  EXPECT(!ow_is_ascii("\xff", 1));
}

int main(void) {
  test_defaults();
  test_headers();
  test_status_line();
  test_connection_rules();
  test_framing();
  test_validation();
  test_lengths();
  test_write_capacity();
  test_numbers();
  if (failures) {
    fprintf(stderr, "head.c: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("head.c: %d checks passed\n", checks);
  return 0;
}
