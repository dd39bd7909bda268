/* Shared between the files of the port; not part of the module's interface. */
#ifndef CSSIMULACRA2_INTERNAL_H
#define CSSIMULACRA2_INTERNAL_H

#include <stddef.h>
#include "CSSIMULACRA2.h"

#define SSIM2_SCALES 6

/* The recursive Gaussian of libjxl's gauss_blur.cc (Charalampidis 2016, three cosine terms). */
typedef struct {
    float n2[3], d1[3];
    int radius;
} ssim2_gauss;

void ssim2_gauss_init(ssim2_gauss *g, double sigma);

/* Rows of a strip: the horizontal pass runs them side by side (one lane each), so the recursion vectorises. */
#define SSIM2_STRIP 8

/* One channel's blurs along x (FastGaussian1D) for `rows` rows of a strip (at most SSIM2_STRIP): of
 * src[r], of its square, and (when `other` is not NULL) of src[r] * other[r], into dst[0..2][r]; zero
 * outside the picture. `tin` has 3 * (width + 3 * radius) * SSIM2_STRIP floats, `tout` 3 * width *
 * SSIM2_STRIP, `zero_row` width zeros. */
void ssim2_horizontal(const ssim2_gauss *g, const float *const *src, const float *const *other, size_t rows,
                      size_t width, const float *zero_row, float *tin, float *tout, float *const dst[3][SSIM2_STRIP]);

/* One row n of the vertical pass over `count` columns: `top` and `bottom` are the horizontally blurred rows
 * n - N - 1 and n + N - 1 (zeros outside the picture), `previous` the recursion's three terms at n - 1,
 * `older` its terms at n - 2 (overwritten with those at n); row n of the blur into `out` unless NULL. */
void ssim2_vertical_step(const ssim2_gauss *g, const float *top, const float *bottom, const float *const previous[3],
                         float *const older[3], float *out, size_t count);

/* SSIMMap and EdgeDiffMap of one channel over `count` pixels at one scale, added to four running sums each
 * of the SSIM error, its 4th power, the artifact map, its 4th power, the detail-lost map and its 4th power. */
void ssim2_channel_sums(const float *img1, const float *mu1, const float *var1, const float *img2,
                        const float *mu2, const float *s22, const float *s12, size_t count, double sums[6][4]);

/* Linear RGB planes to the reference's "positive" XYB, in place (X*14+0.42, Y+0.01, B-Y+0.55). */
void ssim2_positive_xyb(float *p0, float *p1, float *p2, size_t count);

/* One row of the 2x2 box average in linear light from rows r0 and r1 (the same row twice for the last
 * one of an odd height), the last column repeated for an odd width. */
void ssim2_downsample_rows(const float *r0, const float *r1, size_t width, float *out);

/* The number of scales the reference computes for this size (it stops once a scale is below 8). */
int ssim2_scale_count(size_t width, size_t height, size_t widths[SSIM2_SCALES], size_t heights[SSIM2_SCALES]);

/* a * b and a + b, or 0 when it overflows (or, for the sum, when either is 0: a size already refused). */
static inline size_t ssim2_mul(size_t a, size_t b) {
    size_t r;
    return __builtin_mul_overflow(a, b, &r) ? 0 : r;
}
static inline size_t ssim2_add(size_t a, size_t b) {
    size_t r;
    return (a == 0 || b == 0 || __builtin_add_overflow(a, b, &r)) ? 0 : r;
}

#endif
