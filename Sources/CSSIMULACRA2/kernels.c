/* The inner loops built twice on x86-64: for AVX2 with FMA, and for the baseline (SSE2), where a fused
 * multiply-add is one double multiply-add rounded to float (the product of two floats is exact in
 * double, so only the rare double-rounding case can differ from a true FMA, by one unit in the last
 * place). On arm64 FMA is always there. Picked at each call from the CPU's features, so every variant
 * is chosen consistently for a process. No FP contraction anywhere: only the FMAs written out fuse. */
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "internal.h"

#if defined(__x86_64__) || defined(__i386__)

#define KERNEL(name) name##_avx2
#define KERNEL_ATTR __attribute__((target("avx2,fma")))
#define FMA(a, b, c) __builtin_fmaf((a), (b), (c))
#include "kernels.h"
#undef KERNEL
#undef KERNEL_ATTR
#undef FMA

#define KERNEL(name) name##_base
#define KERNEL_ATTR
#define FMA(a, b, c) ((float)((double)(a) * (double)(b) + (double)(c)))
#include "kernels.h"
#undef KERNEL
#undef KERNEL_ATTR
#undef FMA

static int has_avx2_fma(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#define DISPATCH(name, ...) (has_avx2_fma() ? name##_avx2(__VA_ARGS__) : name##_base(__VA_ARGS__))

#else

#define KERNEL(name) name##_any
#define KERNEL_ATTR
#define FMA(a, b, c) __builtin_fmaf((a), (b), (c))
#include "kernels.h"
#define DISPATCH(name, ...) name##_any(__VA_ARGS__)

#endif

void ssim2_horizontal(const ssim2_gauss *g, const float *const *src, const float *const *other, size_t rows,
                      size_t width, const float *zero_row, float *tin, float *tout, float *const dst[3][SSIM2_STRIP]) {
    DISPATCH(horizontal, g, src, other, rows, width, zero_row, tin, tout, dst);
}

void ssim2_vertical_step(const ssim2_gauss *g, const float *top, const float *bottom, const float *const previous[3],
                         float *const older[3], float *out, size_t count) {
    DISPATCH(vertical_step, g, top, bottom, previous[0], previous[1], previous[2], older[0], older[1], older[2], out,
             count);
}

/* kOpsinAbsorbanceMatrix (frozen in libjxl's opsin_params.h) and kOpsinAbsorbanceBias */
static const float kM02 = 0.078f, kM00 = 0.30f;
static const float kM12 = 0.078f, kM10 = 0.23f;
static const float kM20 = 0.24342268924547819f, kM21 = 0.20476744424496821f;
static const float kBias = 0.0037930732552754493f;

void ssim2_positive_xyb(float *p0, float *p1, float *p2, size_t count) {
    const float m[9] = {kM00, 1.0f - kM02 - kM00, kM02, kM10, 1.0f - kM12 - kM10, kM12,
                        kM20, kM21, 1.0f - kM20 - kM21};
    DISPATCH(positive_xyb, p0, p1, p2, count, m, kBias, -cbrtf(kBias));
}

void ssim2_channel_sums(const float *img1, const float *mu1, const float *var1, const float *img2,
                        const float *mu2, const float *s22, const float *s12, size_t count, double sums[6][4]) {
    DISPATCH(channel_sums, img1, mu1, var1, img2, mu2, s22, s12, count, sums);
}

void ssim2_planes_from_srgb(const float *rgb, size_t count, float *r, float *g, float *b) {
    DISPATCH(planes_from_srgb, rgb, count, r, g, b);
}
