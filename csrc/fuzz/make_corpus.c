/*
 * make_corpus.c - writes the seed corpus of fuzz_head.c.
 *
 *   make -C csrc fuzz-corpus        (rebuilds csrc/fuzz/corpus/)
 *   ./make_corpus DIR               (writes the seeds into DIR)
 *
 * Each seed is described below as an ow_head_in-like record and encoded in
 * the input format documented at the top of fuzz_head.c, so the corpus is
 * derived from this file rather than typed as bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../head.h"
#include "input_format.h"

#define MAX_SEED_FIELDS 8

typedef struct seed {
  const char *name;
  unsigned flags;
  uint32_t state;
  unsigned status;
  uint64_t content_length;
  const char *first_line;
  const char *reason;
  const char *date;
  const char *keep_alive;
  const char *fields[2 * MAX_SEED_FIELDS]; /* name, value, ...; NULL ends */
} seed;

/* A fresh HTTP/1.1 ServerResponse, as test/test_head.c's base(). */
#define BASE (OW_SEND_DATE | OW_KEEP_ALIVE | OW_CHUNKED_DEFAULT | OW_HAS_BODY | OW_DEFAULT_KA | OW_KA_TIMEOUT)
#define DATE "Sun, 06 Nov 1994 08:49:37 GMT"
#define KA "Keep-Alive: timeout=5\r\n"
#define OK_LINE "HTTP/1.1 200 OK\r\n"

static const seed seeds[] = {
  { "defaults-content-length", F_FIRST_LINE, BASE | OW_HAS_CL, 200, 5, OK_LINE, "", DATE, KA, { NULL } },
  { "defaults-chunked", F_FIRST_LINE, BASE, 200, 0, OK_LINE, "", DATE, KA, { NULL } },
  { "status-reason", 0, OW_CHUNKED_DEFAULT | OW_HAS_BODY, 404, 0, "", "Not Found", "", "", { NULL } },
  { "status-reason-empty-999", 0, BASE | OW_HAS_CL, 999, 0, "", "", DATE, KA, { NULL } },
  { "user-content-length", F_FIRST_LINE, BASE | OW_VALIDATE, 200, 0, OK_LINE, "", DATE, KA,
    { "Content-Type", "text/plain", "X-Multi", "a", "X-Multi", "b", "Content-Length", "12", NULL } },
  { "user-te-chunked", F_FIRST_LINE, BASE | OW_VALIDATE, 200, 0, OK_LINE, "", DATE, KA,
    { "Transfer-Encoding", "gzip, chunked;foo=bar", NULL } },
  { "connection-close", F_FIRST_LINE, BASE | OW_HAS_CL, 200, 0, OK_LINE, "", DATE, KA,
    { "connection", "Upgrade, Close", NULL } },
  { "connection-closed-word", F_FIRST_LINE, BASE | OW_HAS_CL, 200, 0, OK_LINE, "", DATE, KA,
    { "Connection", "closed", NULL } },
  { "keep-alive-header", F_FIRST_LINE, BASE, 200, 0, OK_LINE, "", DATE, KA,
    { "Keep-Alive", "timeout=9", NULL } },
  { "te-204", F_FIRST_LINE, BASE & ~(uint32_t)OW_HAS_BODY, 204, 0, "HTTP/1.1 204 No Content\r\n", "", DATE, KA,
    { "Transfer-Encoding", "chunked", NULL } },
  { "te-304-status-mode", 0, BASE & ~(uint32_t)OW_HAS_BODY, 304, 0, "", "Not Modified", DATE, KA,
    { "transfer-encoding", "CHUNKED", NULL } },
  { "head-request", F_FIRST_LINE, (BASE & ~(uint32_t)OW_HAS_BODY) | OW_HAS_CL, 200, 42, OK_LINE, "", DATE, KA,
    { NULL } },
  { "trailer-with-length", F_FIRST_LINE, BASE | OW_VALIDATE, 200, 0, OK_LINE, "", DATE, KA,
    { "Trailer", "X-Sum", "Content-Length", "3", NULL } },
  { "trailer-chunked", F_FIRST_LINE, BASE | OW_HAS_CL, 200, 7, OK_LINE, "", DATE, KA,
    { "Trailer", "X-Sum", NULL } },
  { "invalid-name", F_FIRST_LINE, BASE | OW_VALIDATE, 200, 0, OK_LINE, "", DATE, KA,
    { "Bad Name", "v", NULL } },
  { "invalid-value", F_FIRST_LINE, BASE | OW_VALIDATE, 200, 0, OK_LINE, "", DATE, KA,
    { "X-Bad", "a\r\nb", NULL } },
  { "unvalidated-crlf", F_FIRST_LINE, BASE, 200, 0, OK_LINE, "", DATE, KA,
    { "X-Raw", "a\r\nb\tc", "", "empty name", NULL } },
  { "non-ascii-value", F_FIRST_LINE, BASE | OW_VALIDATE, 200, 0, OK_LINE, "", DATE, KA,
    { "X-Name", "caf\xc3\xa9", NULL } },
  { "non-ascii-reason", 0, BASE, 200, 0, "", "\xc3\x89t\xc3\xa9", DATE, KA, { NULL } },
  { "max-requests-reached", F_FIRST_LINE, BASE | OW_MAX_REACHED, 200, 0, OK_LINE, "", DATE, KA, { NULL } },
  { "removed-connection", F_FIRST_LINE, BASE | OW_REMOVED_CONN | OW_LAST, 200, 0, OK_LINE, "", DATE, KA,
    { NULL } },
  { "removed-cl-and-te", F_FIRST_LINE | F_NULL_EMPTY, BASE | OW_REMOVED_CL | OW_REMOVED_TE | OW_HAS_CL, 200, 1,
    OK_LINE, "", DATE, KA, { NULL } },
  { "http10-agent", F_FIRST_LINE, OW_SEND_DATE | OW_HAS_BODY | OW_AGENT | OW_KEEP_ALIVE, 200, 0, OK_LINE, "",
    DATE, "", { "Date", "Mon, 01 Jan 2024 00:00:00 GMT", "Expect", "100-continue", NULL } },
  { "date-refused", F_FIRST_LINE | F_NULL_EMPTY, BASE, 200, 0, OK_LINE, "", "", KA, { NULL } },
  { "fields-null", F_FIRST_LINE | F_NULL_FIELDS, BASE, 200, 0, OK_LINE, "", DATE, KA, { "X", "y", NULL } },
  /* An empty value passed as { NULL, 0 } under validation: head.c's
   * is_value() once computed NULL + 0, undefined in C (UBSan
   * pointer-overflow); this seed keeps that fixed. */
  { "validated-null-empty-value", F_NULL_EMPTY, OW_VALIDATE, 200, 0, "", "OK", "", "", { "X", "", NULL } },
  { "big-content-length", F_FIRST_LINE, BASE | OW_HAS_CL, 200, UINT64_MAX, OK_LINE, "", DATE, KA, { NULL } },
};

static void put_le(FILE *f, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) fputc((int)((v >> (8 * i)) & 0xff), f);
}

static void put_string(FILE *f, const char *s) {
  size_t len = strlen(s);
  if (len > 255) {
    fprintf(stderr, "make_corpus: string longer than 255 bytes\n");
    exit(1);
  }
  fputc((int)len, f);
  fwrite(s, 1, len, f);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
    const seed *s = &seeds[i];
    char path[4096];
    snprintf(path, sizeof path, "%s/seed-%02zu-%s", argv[1], i + 1, s->name);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
      perror(path);
      return 1;
    }
    fputc((int)s->flags, f);
    put_le(f, s->state, 2);
    put_le(f, s->status, 2);
    put_le(f, s->content_length, 8);
    put_string(f, s->first_line);
    put_string(f, s->reason);
    put_string(f, s->date);
    put_string(f, s->keep_alive);
    for (size_t k = 0; k < 2 * MAX_SEED_FIELDS && s->fields[k] != NULL; k++) put_string(f, s->fields[k]);
    if (fclose(f) != 0) {
      perror(path);
      return 1;
    }
  }
  printf("make_corpus: %zu seeds written to %s\n", sizeof seeds / sizeof seeds[0], argv[1]);
  return 0;
}
