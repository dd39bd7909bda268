/* One pass of the stream over a picture (run.c). */
#ifndef CSSIMULACRA2_RUN_H
#define CSSIMULACRA2_RUN_H

#include "stream.h"

/* Where a pass reads: the picture, and for a pair the original too (else NULL). */
typedef struct {
    ssim2_rows picture;
    void *context;
    ssim2_rows original;
    void *original_context;
} ssim2_sources;

/* Reads the picture (and a pair's original) through every stage of `s`: `scoring` is SSIM2_SCORE (into
 * the sums), SSIM2_PREPARE (into the reference's planes the stages point at) or SSIM2_PAIR (into the
 * sums, nothing kept); on `threads` threads (1 or 2). */
int ssim2_run(ssim2_stream *s, int scoring, const ssim2_sources *from, int threads);

#endif
