/*
 * reference.h - a slow, independent model of the response head builder.
 *
 * It takes the same ow_head_in as head.c (the struct and the bit names of
 * head.h are the interface; none of head.c's code is used) and follows
 * Node's lib/_http_outgoing.js _storeHeader / processHeader / storeHeader /
 * matchHeader line by line, with the builder's documented refusals on top
 * (bytes >= 0x80, empty Date / Keep-Alive values when they are needed,
 * fields == NULL with nfields > 0, Trailer without chunked, and whatever
 * Node would throw for).  It is written for clarity, not speed: a growable
 * string, character lists, one boolean per Node field.
 *
 * Used by the fuzz target (fuzz_head.c) as the oracle.
 */
#ifndef ONEWRITE_REFERENCE_H
#define ONEWRITE_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "../head.h"

typedef struct ref_result {
  int accepted;        /* 1: the builder must render; 0: it must decline */
  const char *why;     /* on decline, a short reason (for messages only) */
  char *head;          /* on accept, malloc'd bytes of the head (free with ref_free) */
  size_t head_len;
  uint32_t state;      /* response state after the head, as OW_* bits */
  uint32_t seen;       /* OW_SEEN_* */
  size_t cl_field;     /* index of the last Content-Length pair, when OW_SEEN_CL */
} ref_result;

/* Model of ow_head_plan + ow_head_write.  Always fills *out. */
void ref_head(const ow_head_in *in, ref_result *out);
void ref_free(ref_result *out);

/* Models of the small helpers. */
int ref_is_token_char(unsigned char c);
int ref_is_value_char(unsigned char c);
int ref_is_ascii(const char *p, size_t n);
/* Both return the length of the text written into buf (NUL-terminated,
 * at least 32 bytes). */
size_t ref_u64_text(uint64_t n, char *buf);
size_t ref_chunk_line_text(uint64_t n, char *buf);

#endif /* ONEWRITE_REFERENCE_H */
