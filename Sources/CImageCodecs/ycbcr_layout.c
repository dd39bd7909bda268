/* One Y'CbCr layout to another (matrix and range) on 4:2:0 planes, without going through RGB. In C so
 * that the compiler turns the loops into vector code. The conversion is a 3x3 matrix on the samples
 * less their offsets: luma takes the chroma of its 2x2 block, chroma the mean luma of its block. */
#include "CImageCodecs.h"

static inline uint8_t clamped(float value) {
    int rounded = (int)(value + 0.5f);
    return (uint8_t)(rounded < 0 ? 0 : rounded > 255 ? 255 : rounded);
}

void cic_ycbcr420_convert(const uint8_t *y, ptrdiff_t y_stride, const uint8_t *cb, ptrdiff_t cb_stride,
                          const uint8_t *cr, ptrdiff_t cr_stride, int width, int height,
                          const float matrix[9], float luma_in, float luma_out,
                          uint8_t *out_y, ptrdiff_t out_y_stride, uint8_t *out_cb, ptrdiff_t out_cb_stride,
                          uint8_t *out_cr, ptrdiff_t out_cr_stride) {
    const float m00 = matrix[0], m01 = matrix[1], m02 = matrix[2];
    const float m10 = matrix[3], m11 = matrix[4], m12 = matrix[5];
    const float m20 = matrix[6], m21 = matrix[7], m22 = matrix[8];
    int chroma_width = (width + 1) / 2;
    for (int row = 0; row < height; row++) {
        const uint8_t *in = y + row * y_stride, *b = cb + (row / 2) * cb_stride, *r = cr + (row / 2) * cr_stride;
        uint8_t *out = out_y + row * out_y_stride;
        for (int x = 0; x < width; x++) {
            float u = (float)b[x / 2] - 128.0f, v = (float)r[x / 2] - 128.0f;
            out[x] = clamped(m00 * ((float)in[x] - luma_in) + m01 * u + m02 * v + luma_out);
        }
    }
    for (int row = 0; row < (height + 1) / 2; row++) {
        const uint8_t *top = y + 2 * row * y_stride;
        const uint8_t *bottom = 2 * row + 1 < height ? top + y_stride : top;
        const uint8_t *b = cb + row * cb_stride, *r = cr + row * cr_stride;
        uint8_t *ob = out_cb + row * out_cb_stride, *or_ = out_cr + row * out_cr_stride;
        for (int c = 0; c < chroma_width; c++) {
            int x = 2 * c, right = x + 1 < width ? x + 1 : x;
            float mean = ((float)top[x] + (float)top[right] + (float)bottom[x] + (float)bottom[right]) * 0.25f - luma_in;
            float u = (float)b[c] - 128.0f, v = (float)r[c] - 128.0f;
            ob[c] = clamped(m10 * mean + m11 * u + m12 * v + 128.0f);
            or_[c] = clamped(m20 * mean + m21 * u + m22 * v + 128.0f);
        }
    }
}
