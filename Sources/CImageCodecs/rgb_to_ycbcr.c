/* In C so that the compiler turns the loops into vector code: Swift's float-to-integer conversion
 * checks its range and stays one sample at a time. The arithmetic is libheif's own, in the same
 * order, so the samples are the same; no fused multiply-add, which would round differently. */
#pragma STDC FP_CONTRACT OFF

#include "CImageCodecs.h"

/* get_RGB_to_YCbCr_coefficients(6, 2), derived from Kr and Kb in float as libheif derives them. */
#define KR 0.299f
#define KB 0.114f
static const float y0 = KR, y1 = 1 - KR - KB, y2 = KB;
static const float cb0 = -KR / (1 - KB) / 2, cb1 = -(1 - KR - KB) / (1 - KB) / 2, cb2 = 0.5f;
static const float cr0 = 0.5f, cr1 = -(1 - KR - KB) / (1 - KR) / 2, cr2 = -KB / (1 - KR) / 2;

/* libheif's clip_f_u16 for 8 bits: add a half, truncate toward zero, clamp. */
static inline uint8_t rounded(float value) {
    int truncated = (int)(value + 0.5f);
    return (uint8_t)(truncated < 0 ? 0 : truncated > 255 ? 255 : truncated);
}

/* One Cb and Cr sample from the means of red, green and blue. */
static inline void chroma(uint8_t *out_b, uint8_t *out_r, float rs, float gs, float bs) {
    *out_b = rounded(rs * cb0 + gs * cb1 + bs * cb2 + 128);
    *out_r = rounded(rs * cr0 + gs * cr1 + bs * cr2 + 128);
}

void cic_rgb_planes_to_ycbcr(const uint8_t *r, ptrdiff_t r_stride, const uint8_t *g, ptrdiff_t g_stride,
                             const uint8_t *b, ptrdiff_t b_stride, int width, int height, int sub_h, int sub_v,
                             uint8_t *y, ptrdiff_t y_stride, uint8_t *cb, ptrdiff_t cb_stride,
                             uint8_t *cr, ptrdiff_t cr_stride) {
    for (int row = 0; row < height; row++) {
        const uint8_t *rr = r + row * r_stride, *gr = g + row * g_stride, *br = b + row * b_stride;
        uint8_t *out = y + row * y_stride;
        for (int x = 0; x < width; x++) {
            out[x] = rounded((float)rr[x] * y0 + (float)gr[x] * y1 + (float)br[x] * y2);
        }
    }

    /* libheif averages a 2x2 block for 4:2:0 (a last row or column alone when it has no partner) and
     * takes the left sample of a pair for 4:2:2. The four samples it adds one by one are whole numbers,
     * so adding them as integers first gives the same float; a lone sample counted four times and
     * quartered is itself. */
    int chroma_width = (width + sub_h - 1) / sub_h;
    int averaging = sub_h == 2 && sub_v == 2;
    for (int row = 0; row < height; row += sub_v) {
        int below = row + 1 < height && sub_v == 2 ? row + 1 : row;
        const uint8_t *r0 = r + row * r_stride, *g0 = g + row * g_stride, *b0 = b + row * b_stride;
        const uint8_t *r1 = r + below * r_stride, *g1 = g + below * g_stride, *b1 = b + below * b_stride;
        uint8_t *out_b = cb + (row / sub_v) * cb_stride, *out_r = cr + (row / sub_v) * cr_stride;
        /* Columns whose right partner exists (all of them unless averaging an odd width). */
        int paired = averaging ? width / 2 : chroma_width;
        if (averaging) {
            for (int c = 0; c < paired; c++) {
                int x = 2 * c;
                float rs = (float)(r0[x] + r0[x + 1] + r1[x] + r1[x + 1]) * 0.25f;
                float gs = (float)(g0[x] + g0[x + 1] + g1[x] + g1[x + 1]) * 0.25f;
                float bs = (float)(b0[x] + b0[x + 1] + b1[x] + b1[x + 1]) * 0.25f;
                chroma(out_b + c, out_r + c, rs, gs, bs);
            }
        } else {
            for (int c = 0; c < paired; c++) {
                int x = c * sub_h;
                chroma(out_b + c, out_r + c, (float)r0[x], (float)g0[x], (float)b0[x]);
            }
        }
        for (int c = paired; c < chroma_width; c++) {   /* 4:2:0, odd width: the last column pairs only vertically */
            int x = 2 * c;
            float rs = (float)(2 * r0[x] + 2 * r1[x]) * 0.25f;
            float gs = (float)(2 * g0[x] + 2 * g1[x]) * 0.25f;
            float bs = (float)(2 * b0[x] + 2 * b1[x]) * 0.25f;
            chroma(out_b + c, out_r + c, rs, gs, bs);
        }
    }
}
