/*
 * input_format.h - the flags byte of fuzz_head.c's input format (the format
 * is documented at the top of fuzz_head.c), shared by the fuzzer that reads
 * it and make_corpus.c that writes the seeds.
 */
#ifndef OW_FUZZ_INPUT_FORMAT_H
#define OW_FUZZ_INPUT_FORMAT_H

enum {
  F_FIRST_LINE = 1u << 0,  /* string #0 is in.first_line */
  F_NULL_EMPTY = 1u << 1,  /* empty strings are passed as { NULL, 0 } */
  F_NULL_FIELDS = 1u << 2  /* in.fields = NULL */
};

#endif
