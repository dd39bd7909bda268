/*
 * CSSIMULACRA2: the SSIMULACRA 2.1 metric (cloudinary/ssimulacra2, Jon Sneyers) on float planes of
 * linear sRGB, ported from the reference's ssimulacra2.cc and the libjxl parts it uses (XYB, the
 * recursive Gaussian of gauss_blur.cc, sigma 1.5). Colour management and alpha blending happen in the
 * caller; this code sees three planes of linear light, nominally 0..1.
 *
 * Deterministic: every sum runs in one fixed order, FP contraction is off, so a pair scores the same on
 * every run, from any thread and with one worker thread or two.
 *
 * Streamed: the picture comes in a strip of rows at a time from the caller's row source, and each scale
 * goes through XYB, its blurs and its sums in strips, so a score holds no plane of the picture's size.
 * A reference (the original's XYB pyramid and blurred moments, nine planes per scale) is made once and
 * read-only afterwards: several threads may score against it at once, each with its own scratch.
 */
#ifndef CSSIMULACRA2_H
#define CSSIMULACRA2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    SSIM2_OK = 0,
    SSIM2_TOO_SMALL = 1,   /* width or height below 8 (the reference refuses them too) */
    SSIM2_TOO_LARGE = 2,   /* a buffer size would overflow size_t */
    SSIM2_NO_MEMORY = 3,   /* malloc failed */
    SSIM2_SIZE_MISMATCH = 4,
    SSIM2_SOURCE_FAILED = 5   /* the row source returned non-zero */
};

#define SSIM2_MIN_SIZE 8

typedef struct ssim2_reference ssim2_reference;
typedef struct ssim2_scratch ssim2_scratch;

/* Bytes a reference / a scratch of this size allocates; 0 when the size is refused (too small, overflow). */
size_t ssim2_reference_bytes(size_t width, size_t height);
size_t ssim2_scratch_bytes(size_t width, size_t height);

/* Writes rows y .. y + rows - 1 of the picture's linear RGB into r, g and b (rows * width floats each, row
 * after row); returns 0, or non-zero to stop. Called from the thread that called ssim2_reference_new,
 * ssim2_score or ssim2_score_pair, rows in order. */
typedef int (*ssim2_rows)(void *context, size_t y, size_t rows, float *r, float *g, float *b);

/* One scoring's working memory (strips: a few hundred rows of the picture's width in all). */
int ssim2_scratch_new(size_t width, size_t height, ssim2_scratch **out);
void ssim2_scratch_free(ssim2_scratch *scratch);

/* `threads` (1 or 2) is how many threads a call may use: with 2, a second thread takes the vertical blurs
 * and the sums while the caller's thread reads rows, downscales, converts and blurs along x. The result
 * does not depend on it. */

/* Prepares the original, read from `source`, using `scratch`. */
int ssim2_reference_new(ssim2_scratch *scratch, ssim2_rows source, void *context, int threads,
                        ssim2_reference **out);
void ssim2_reference_free(ssim2_reference *reference);

/* Scores the picture read from `source` against `reference`: 100 identical, lower worse (it can go
 * below 0). */
int ssim2_score(const ssim2_reference *reference, ssim2_scratch *scratch, ssim2_rows source, void *context,
                int threads, double *score);

/* Scores one pair in one pass without keeping the original's half (nothing of the picture's size is
 * allocated): for a single comparison. The original's rows are asked for first, then the distorted's. */
int ssim2_score_pair(size_t width, size_t height, ssim2_rows original, void *original_context, ssim2_rows distorted,
                     void *distorted_context, int threads, double *score);

/* ---- Helpers for getting 8-bit pixels into linear planes ---------------------------------- */

/* Opaque pixels through per-channel tables: table holds 3 x 256 RGB triples (768 floats per source
 * channel: table[c * 768 + v * 3 + k] is what value v of source channel c adds to output channel k).
 * For a matrix/curve profile this is exact: linear = sum over c of table[c][v_c]. `channels` is 3 or 4
 * (alpha ignored). */
void ssim2_planes_from_tables(const unsigned char *pixels, size_t count, int channels, const float *table,
                              float *r, float *g, float *b);

/* RGBA pixels composited on gray `background` (0..1) in their own encoding, as the reference does before
 * its colour transform: interleaved float RGB out, nominally 0..1. */
void ssim2_blend(const unsigned char *pixels, size_t count, float background, float *rgb);

/* Interleaved sRGB-encoded float RGB to linear planes, by libjxl's approximation of the sRGB curve (within
 * 5e-7 of IEC 61966-2-1), as the reference converts sRGB input. */
void ssim2_planes_from_srgb(const float *rgb, size_t count, float *r, float *g, float *b);

/* Interleaved float RGB (already linear) to planes. */
void ssim2_planes_from_interleaved(const float *rgb, size_t count, float *r, float *g, float *b);

#ifdef __cplusplus
}
#endif

#endif
