/* The linear-light 2x2 downscale between scales and how many scales a size has. */
#pragma STDC FP_CONTRACT OFF
#include "internal.h"

void ssim2_downsample_rows(const float *restrict r0, const float *restrict r1, size_t width, float *restrict out) {
    const size_t pairs = width / 2;   /* columns with both neighbours inside */
    for (size_t ox = 0; ox < pairs; ++ox) {
        float sum = 0.0f;   /* the reference's order: row by row, left to right */
        sum += r0[2 * ox]; sum += r0[2 * ox + 1];
        sum += r1[2 * ox]; sum += r1[2 * ox + 1];
        out[ox] = sum * 0.25f;
    }
    if (pairs < (width + 1) / 2) {
        const size_t x = width - 1;
        float sum = 0.0f;
        sum += r0[x]; sum += r0[x];
        sum += r1[x]; sum += r1[x];
        out[pairs] = sum * 0.25f;
    }
}

int ssim2_scale_count(size_t width, size_t height, size_t widths[SSIM2_SCALES], size_t heights[SSIM2_SCALES]) {
    if (width < SSIM2_MIN_SIZE || height < SSIM2_MIN_SIZE) return 0;
    int count = 0;
    size_t w = width, h = height;
    /* ssimulacra2.cc tests the previous scale's size before downsampling, so the last scale may be
     * smaller than 8 */
    for (int s = 0; s < SSIM2_SCALES; ++s) {
        if (s > 0) {
            if (w < SSIM2_MIN_SIZE || h < SSIM2_MIN_SIZE) break;
            w = (w + 1) / 2;
            h = (h + 1) / 2;
        }
        widths[s] = w;
        heights[s] = h;
        count++;
    }
    return count;
}
