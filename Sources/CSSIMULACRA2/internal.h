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

/* Rows of a strip the horizontal pass runs side by side (one lane each), so the recursion vectorises. */
#define SSIM2_STRIP 8

/* Floats of scratch ssim2_blur needs for a plane `width` wide. */
size_t ssim2_blur_scratch_floats(size_t width, int radius);

/* out = Gaussian(in), or Gaussian(in * times) when `times` is not NULL; zero outside the picture, as
 * FastGaussian (horizontal then vertical pass). `temp` is a plane of width * height floats; `work` has
 * ssim2_blur_scratch_floats floats. */
void ssim2_blur(const ssim2_gauss *g, const float *in, const float *times, size_t width, size_t height,
                float *temp, float *work, float *out);

/* SSIMMap and EdgeDiffMap of one channel at one scale: the sums of the SSIM error, its 4th power, the
 * artifact map, its 4th power, the detail-lost map and its 4th power. */
void ssim2_channel_sums(const float *img1, const float *mu1, const float *var1, const float *img2,
                        const float *mu2, const float *s22, const float *s12, size_t count, double sums[6]);

/* Linear RGB planes to the reference's "positive" XYB, in place (X*14+0.42, Y+0.01, B-Y+0.55). */
void ssim2_positive_xyb(float *p0, float *p1, float *p2, size_t count);

/* 2x2 box average in linear light, the last row/column repeated for odd sizes. */
void ssim2_downsample(const float *in, size_t width, size_t height, float *out);

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
