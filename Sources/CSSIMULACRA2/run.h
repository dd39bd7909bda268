/* One pass of the stream over a picture (run.c). */
#ifndef CSSIMULACRA2_RUN_H
#define CSSIMULACRA2_RUN_H

#include "stream.h"

/* Reads the picture from `source` through every stage of `s` (scoring: into the sums; else into the
 * reference's planes the stages point at), on `threads` threads (1 or 2). */
int ssim2_run(ssim2_stream *s, int scoring, ssim2_rows source, void *context, int threads);

#endif
