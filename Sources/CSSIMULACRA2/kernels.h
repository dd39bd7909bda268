/* The inner loops, included once per CPU level by kernels.c: KERNEL(name) names a variant, KERNEL_ATTR
 * is its target attribute, FMA(a, b, c) is a * b + c rounded once.
 *
 * Why FMA: the score rests on 1 - SSIM values of about 1e-4 at high quality, so float rounding in the
 * blurs shows in the result (plain float multiply-adds put a q95 JPEG 0.3 points below the reference,
 * double 0.4 above). The reference runs libjxl's Highway code, which uses fused multiply-adds where the
 * CPU has them; rounding once as it does lands within a few hundredths. */

/* The recursion along x over `count` blurs at once, their transposed inputs `stride` floats apart (lane r
 * is row r of the strip): independent chains side by side, so the FMA latency of one hides behind the
 * others. Ordered y = d1 * y[n-1] + (n2 * sum - y[n-2]), one FMA on the path from one output to the next
 * (the reference's own horizontal pass is a four-lane unrolled form with its own rounding; this order
 * scores as close to it as the vertical one and runs faster). */
KERNEL_ATTR static inline __attribute__((always_inline)) void KERNEL(recurse)(const ssim2_gauss *g, ptrdiff_t w,
                                                                             const float *tin, size_t stride,
                                                                             float *tout, size_t out_stride,
                                                                             const int count) {
    enum { L = SSIM2_STRIP };
    const ptrdiff_t N = g->radius, pad = 2 * N;
    const float n2_1 = g->n2[0], n2_3 = g->n2[1], n2_5 = g->n2[2];
    const float d1_1 = -g->d1[0], d1_3 = -g->d1[1], d1_5 = -g->d1[2];
    float p1_1[3][L] = {{0}}, p1_3[3][L] = {{0}}, p1_5[3][L] = {{0}};
    float p2_1[3][L] = {{0}}, p2_3[3][L] = {{0}}, p2_5[3][L] = {{0}};
    for (ptrdiff_t n = -N + 1; n < w; ++n) {
        for (int b = 0; b < count; ++b) {
            const float *left = tin + b * stride + (pad + n - N - 1) * L, *right = tin + b * stride + (pad + n + N - 1) * L;
            float o[L];
            for (int r = 0; r < L; ++r) {
                const float sum = left[r] + right[r];
                const float y1 = FMA(d1_1, p1_1[b][r], FMA(n2_1, sum, -p2_1[b][r]));
                const float y3 = FMA(d1_3, p1_3[b][r], FMA(n2_3, sum, -p2_3[b][r]));
                const float y5 = FMA(d1_5, p1_5[b][r], FMA(n2_5, sum, -p2_5[b][r]));
                p2_1[b][r] = p1_1[b][r]; p2_3[b][r] = p1_3[b][r]; p2_5[b][r] = p1_5[b][r];
                p1_1[b][r] = y1; p1_3[b][r] = y3; p1_5[b][r] = y5;
                o[r] = y1 + (y3 + y5);
            }
            if (n >= 0) memcpy(tout + b * out_stride + n * L, o, sizeof o);
        }
    }
}

/* One channel's blurs along x (FastGaussian1D) for `rows` rows of a strip: of the picture's rows `src`,
 * of their squares, and, when `other` is not NULL, of their products with `other`'s rows, into dst[b][r];
 * zero outside the picture. The rows go in side by side (one lane each) so the recursion vectorises; the
 * products are taken there. `tin` holds 3 * (width + 3N) * SSIM2_STRIP floats, `tout` 3 * width *
 * SSIM2_STRIP, `zero_row` width zeros. */
KERNEL_ATTR static void KERNEL(horizontal)(const ssim2_gauss *g, const float *const *src, const float *const *other,
                                           size_t rows, size_t width, const float *zero_row,
                                           float *restrict tin, float *restrict tout, float *const dst[3][SSIM2_STRIP]) {
    enum { L = SSIM2_STRIP };
    const ptrdiff_t N = g->radius, w = (ptrdiff_t)width, pad = 2 * N;
    const size_t stride = (size_t)(w + 3 * N) * L, out_stride = (size_t)w * L;
    const int blurs = other ? 3 : 2;
    const float *s[L], *f[L];
    for (size_t r = 0; r < L; ++r) {
        s[r] = r < rows ? src[r] : zero_row;
        f[r] = r < rows && other ? other[r] : zero_row;
    }
    for (int b = 0; b < blurs; ++b) {
        float *t = tin + b * stride;
        memset(t, 0, sizeof(float) * (size_t)(pad * L));
        memset(t + (pad + w) * L, 0, sizeof(float) * (size_t)(N * L));
    }
    float *t0 = tin + pad * L, *t1 = t0 + stride, *t2 = t1 + stride;
    for (ptrdiff_t x = 0; x < w; ++x)
        for (int r = 0; r < L; ++r) {
            const float v = s[r][x];
            t0[x * L + r] = v;
            t1[x * L + r] = v * v;
        }
    if (other)
        for (ptrdiff_t x = 0; x < w; ++x)
            for (int r = 0; r < L; ++r) t2[x * L + r] = s[r][x] * f[r][x];
    if (blurs == 3) {
        KERNEL(recurse)(g, w, tin, stride, tout, out_stride, 2);
        KERNEL(recurse)(g, w, tin + 2 * stride, stride, tout + 2 * out_stride, out_stride, 1);
    } else {
        KERNEL(recurse)(g, w, tin, stride, tout, out_stride, 2);
    }
    for (int b = 0; b < blurs; ++b) {
        const float *o = tout + b * out_stride;
        if (rows == L) {
            float *d[L];
            for (int r = 0; r < L; ++r) d[r] = dst[b][r];
            for (ptrdiff_t x = 0; x < w; ++x)
                for (int r = 0; r < L; ++r) d[r][x] = o[x * L + r];
        } else {
            for (size_t r = 0; r < rows; ++r)
                for (ptrdiff_t x = 0; x < w; ++x) dst[b][r][x] = o[x * L + r];
        }
    }
}

/* One step of the pass along y (VerticalStrip) over `count` columns: from the rows N + 1 above and N - 1
 * below (`top`, `bottom`), y[n-1] (`a1`, `a3`, `a5`) and y[n-2] (`c1`, `c3`, `c5`, overwritten with y[n]),
 * row n of the blur into `out` (NULL while the recursion warms up above the picture). */
KERNEL_ATTR static void KERNEL(vertical_step)(const ssim2_gauss *g, const float *restrict t, const float *restrict b,
                                              const float *restrict a1, const float *restrict a3,
                                              const float *restrict a5, float *restrict c1, float *restrict c3,
                                              float *restrict c5, float *restrict out, size_t count) {
    const float n2_1 = g->n2[0], n2_3 = g->n2[1], n2_5 = g->n2[2];
    const float d1_1 = -g->d1[0], d1_3 = -g->d1[1], d1_5 = -g->d1[2];
    if (out) {
        for (size_t x = 0; x < count; ++x) {
            const float sum = t[x] + b[x];
            const float y1 = FMA(n2_1, sum, FMA(d1_1, a1[x], -c1[x]));
            const float y3 = FMA(n2_3, sum, FMA(d1_3, a3[x], -c3[x]));
            const float y5 = FMA(n2_5, sum, FMA(d1_5, a5[x], -c5[x]));
            c1[x] = y1; c3[x] = y3; c5[x] = y5;
            out[x] = y1 + (y3 + y5);
        }
    } else {
        for (size_t x = 0; x < count; ++x) {
            const float sum = t[x] + b[x];
            c1[x] = FMA(n2_1, sum, FMA(d1_1, a1[x], -c1[x]));
            c3[x] = FMA(n2_3, sum, FMA(d1_3, a3[x], -c3[x]));
            c5[x] = FMA(n2_5, sum, FMA(d1_5, a5[x], -c5[x]));
        }
    }
}

/* fast_math-inl.h's CubeRootAndAdd: cbrt(x) + add by an exponent guess and Newton steps (x >= 0),
 * kept rather than cbrtf so the loop vectorises and the digits follow the reference's. */
KERNEL_ATTR static inline float KERNEL(cube_root_and_add)(float x, float add) {
    int32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const int32_t guess = bits == 0 ? 0 : 0x54800000 - (bits >> 23) * 0x002AAAAA;
    float r;
    memcpy(&r, &guess, sizeof r);
    const float x_3 = (1.0f / 3) * x;
    for (int i = 0; i < 3; ++i) {
        const float r2 = r * r;
        r = FMA(-x_3, r2 * r2, (4.0f / 3) * r);
    }
    float r2 = r * r;
    r = FMA(1.0f / 3, FMA(-x, r2 * r2, r), r);
    r2 = r * r;
    return FMA(r2, x, add);
}

/* enc_xyb.cc's LinearRGBToXYB (opsin absorbance, clamp, cube root) and ssimulacra2.cc's MakePositiveXYB,
 * in place. */
KERNEL_ATTR static void KERNEL(positive_xyb)(float *restrict p0, float *restrict p1, float *restrict p2,
                                             size_t count, const float m[9], float bias, float neg_bias_cbrt) {
    const float m00 = m[0], m01 = m[1], m02 = m[2], m10 = m[3], m11 = m[4], m12 = m[5];
    const float m20 = m[6], m21 = m[7], m22 = m[8];
    for (size_t i = 0; i < count; ++i) {
        const float r = p0[i], g = p1[i], b = p2[i];
        float mixed0 = FMA(m00, r, FMA(m01, g, FMA(m02, b, bias)));
        float mixed1 = FMA(m10, r, FMA(m11, g, FMA(m12, b, bias)));
        float mixed2 = FMA(m20, r, FMA(m21, g, FMA(m22, b, bias)));
        /* non-negative even for wide gamut; clamped as the reference does */
        mixed0 = mixed0 > 0.0f ? mixed0 : 0.0f;
        mixed1 = mixed1 > 0.0f ? mixed1 : 0.0f;
        mixed2 = mixed2 > 0.0f ? mixed2 : 0.0f;
        mixed0 = KERNEL(cube_root_and_add)(mixed0, neg_bias_cbrt);
        mixed1 = KERNEL(cube_root_and_add)(mixed1, neg_bias_cbrt);
        mixed2 = KERNEL(cube_root_and_add)(mixed2, neg_bias_cbrt);
        const float x = 0.5f * (mixed0 - mixed1), y = 0.5f * (mixed0 + mixed1), z = mixed2;
        /* MakePositiveXYB: every component in about 0..1, B as B - Y */
        p2[i] = (z - y) + 0.55f;
        p0[i] = x * 14.f + 0.42f;
        p1[i] = y + 0.01f;
    }
}

/* SSIMMap and EdgeDiffMap of one channel at one scale, fused, over `count` pixels (a piece of a row),
 * added to `s`. Sums in double, four running sums per norm (pixel j of the piece into sum j % 4, added up
 * at the end by the caller): a fixed order, so the same on every run. Blocks of
 * pixels in two passes, so both vectorise: the float ratios (as the reference computes them, but the edge
 * ratio, which it divides in double: below 1e-6 of a point, and a double division per pixel cost a tenth
 * of the time), then the double errors and their sums. */
KERNEL_ATTR static void KERNEL(channel_sums)(const float *restrict img1, const float *restrict mu1,
                                             const float *restrict var1, const float *restrict img2,
                                             const float *restrict mu2, const float *restrict s22,
                                             const float *restrict s12, size_t count, double s[6][4]) {
    enum { V = 4, BLOCK = 512 };
    float ssim[BLOCK], edge[BLOCK];
    const float kC2 = 0.0009f;
    for (size_t start = 0; start < count; start += BLOCK) {
        const size_t n = count - start < BLOCK ? count - start : BLOCK;
        for (size_t j = 0; j < n; ++j) {
            const size_t i = start + j;
            const float m1 = mu1[i], m2 = mu2[i];
            const float mu22 = m2 * m2, mu12 = m1 * m2;
            /* 1 - (m1 - m2)^2: the reference subtracts in double and rounds to float, the same float */
            const float num_m = 1.0f - (m1 - m2) * (m1 - m2);
            const float num_s = 2 * (s12[i] - mu12) + kC2;
            const float denom_s = (var1[i] + (s22[i] - mu22)) + kC2;
            ssim[j] = num_m * num_s / denom_s;
            edge[j] = (1.0f + fabsf(img2[i] - m2)) / (1.0f + fabsf(img1[i] - m1));
        }
        /* BLOCK is a multiple of V, so pixel start + j goes into sum (start + j) % V == j % V */
        size_t j = 0;
        for (; j + V <= n; j += V) {
            for (int k = 0; k < V; ++k) {
                double d = 1.0 - (double)ssim[j + k];
                d = d > 0.0 ? d : 0.0;
                const double d1 = (double)edge[j + k] - 1.0;
                const double artifact = d1 > 0.0 ? d1 : 0.0, lost = d1 < 0.0 ? -d1 : 0.0;
                const double d2 = d * d, a2 = artifact * artifact, l2 = lost * lost;
                s[0][k] += d;
                s[1][k] += d2 * d2;
                s[2][k] += artifact;
                s[3][k] += a2 * a2;
                s[4][k] += lost;
                s[5][k] += l2 * l2;
            }
        }
        for (; j < n; ++j) {
            const int k = (int)(j % V);
            double d = 1.0 - (double)ssim[j];
            d = d > 0.0 ? d : 0.0;
            const double d1 = (double)edge[j] - 1.0;
            const double artifact = d1 > 0.0 ? d1 : 0.0, lost = d1 < 0.0 ? -d1 : 0.0;
            const double d2 = d * d, a2 = artifact * artifact, l2 = lost * lost;
            s[0][k] += d;
            s[1][k] += d2 * d2;
            s[2][k] += artifact;
            s[3][k] += a2 * a2;
            s[4][k] += lost;
            s[5][k] += l2 * l2;
        }
    }
}

/* libjxl's TF_SRGB::DisplayFromEncoded, which the reference's colour management applies to sRGB input:
 * x / 12.92 up to 0.04045, above it a rational polynomial (af_cheb_rational, k=100, error about 5e-7)
 * evaluated by Horner with FMAs; the sign carried through. Interleaved RGB in, planes out. */
KERNEL_ATTR static void KERNEL(planes_from_srgb)(const float *restrict rgb, size_t count, float *restrict r,
                                                 float *restrict g, float *restrict b) {
    const float p[5] = {2.200248328e-04f, 1.043637593e-02f, 1.624820318e-01f, 7.961564959e-01f, 8.210152774e-01f};
    const float q[5] = {2.631846970e-01f, 1.076976492e+00f, 4.987528350e-01f, -5.512498495e-02f, 6.521209011e-03f};
    const float low = 1.0f / 12.92f, threshold = 0.04045f;
    float *restrict out[3] = {r, g, b};
    for (int c = 0; c < 3; ++c) {
        float *restrict o = out[c];
        for (size_t i = 0; i < count; ++i) {
            const float v = rgb[i * 3 + c], x = fabsf(v);
            float yp = p[4], yq = q[4];
            yp = FMA(yp, x, p[3]); yq = FMA(yq, x, q[3]);
            yp = FMA(yp, x, p[2]); yq = FMA(yq, x, q[2]);
            yp = FMA(yp, x, p[1]); yq = FMA(yq, x, q[1]);
            yp = FMA(yp, x, p[0]); yq = FMA(yq, x, q[0]);
            const float magnitude = x > threshold ? yp / yq : x * low;
            o[i] = copysignf(magnitude, v);
        }
    }
}
