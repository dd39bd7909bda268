/* Getting 8-bit pixels into the float planes of linear light the metric reads. */
#pragma STDC FP_CONTRACT OFF
#include "internal.h"

void ssim2_planes_from_tables(const unsigned char *restrict pixels, size_t count, int channels,
                              const float *restrict table, float *restrict r, float *restrict g,
                              float *restrict b) {
    const float *tr = table, *tg = table + 768, *tb = table + 2 * 768;
    for (size_t i = 0; i < count; ++i) {
        const unsigned char *p = pixels + i * (size_t)channels;
        const float *x = tr + p[0] * 3, *y = tg + p[1] * 3, *z = tb + p[2] * 3;
        r[i] = x[0] + y[0] + z[0];
        g[i] = x[1] + y[1] + z[1];
        b[i] = x[2] + y[2] + z[2];
    }
}

void ssim2_blend(const unsigned char *restrict pixels, size_t count, float background, float *restrict rgb) {
    for (size_t i = 0; i < count; ++i) {
        const unsigned char *p = pixels + i * 4;
        const float a = p[3] * (1.0f / 255);
        for (int k = 0; k < 3; ++k) rgb[i * 3 + k] = a * (p[k] * (1.0f / 255)) + (1.f - a) * background;
    }
}

void ssim2_planes_from_interleaved(const float *restrict rgb, size_t count, float *restrict r,
                                   float *restrict g, float *restrict b) {
    for (size_t i = 0; i < count; ++i) {
        r[i] = rgb[i * 3];
        g[i] = rgb[i * 3 + 1];
        b[i] = rgb[i * 3 + 2];
    }
}
