#include <string.h>
#include "CImageCodecs.h"

/* Built twice, for x86-64-v3 (AVX2, FMA) and for the x86-64 baseline (once elsewhere); the loader
 * picks one per CPU. Swift has no per-function CPU target, and these loops are most of a resize. */
#if defined(__x86_64__) && defined(__clang__)
#define CIC_MULTIVERSION __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CIC_MULTIVERSION
#endif

CIC_MULTIVERSION
void cic_vertical_taps(const uint8_t *first_row, size_t row_bytes, size_t length,
                       const float *weights, int count, float *line) {
    enum { BLOCK = 64 };   /* sums stay in registers across the taps */
    size_t i = 0;
    for (; i + BLOCK <= length; i += BLOCK) {
        float sum[BLOCK] = {0};
        for (int k = 0; k < count; k++) {
            const uint8_t *row = first_row + (size_t)k * row_bytes + i;
            const float w = weights[k];
            for (int j = 0; j < BLOCK; j++) sum[j] += w * (float)row[j];
        }
        for (int j = 0; j < BLOCK; j++) line[i + j] = sum[j];
    }
    for (; i < length; i++) {
        float sum = 0;
        for (int k = 0; k < count; k++) sum += weights[k] * (float)first_row[(size_t)k * row_bytes + i];
        line[i] = sum;
    }
}

typedef float cic_float8 __attribute__((vector_size(32)));

CIC_MULTIVERSION
void cic_horizontal_taps(const float *line, const long *starts, const float *weights, int stride,
                         size_t width, uint8_t *out) {
    for (size_t x = 0; x < width; x++) {
        const float *samples = line + starts[x], *w = weights + x * (size_t)stride;
        cic_float8 sum = {0};
        for (int k = 0; k < stride; k += 8) {
            cic_float8 a, b;
            memcpy(&a, samples + k, sizeof a);   /* unaligned loads */
            memcpy(&b, w + k, sizeof b);
            sum += a * b;
        }
        float v = sum[0] + sum[1] + sum[2] + sum[3] + sum[4] + sum[5] + sum[6] + sum[7] + 0.5f;
        out[x] = v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)v;   /* Lanczos overshoots near edges */
    }
}

int cic_resize_uses_avx2(void) {
#if defined(__x86_64__) && defined(__clang__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}
