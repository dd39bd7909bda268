/* ssimulacra2.cc's ComputeSSIMULACRA2 and Msssim::Score, split so the original's half (its XYB pyramid,
 * mu1 = blur(img1), sigma11 - mu1^2) is computed once. One scale at a time; sums in double, in row order. */
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct ssim2_reference {
    size_t width, height;
    int scales;
    size_t widths[SSIM2_SCALES], heights[SSIM2_SCALES];
    ssim2_gauss gauss;
    /* per scale and channel: the XYB plane, its blur, and its blurred square minus the blur squared */
    float *img[SSIM2_SCALES][3], *mu[SSIM2_SCALES][3], *var[SSIM2_SCALES][3];
    float *block;
};

struct ssim2_scratch {
    size_t width, height;
    float *full[3];      /* the input; later every other scale's linear RGB, then (in place) XYB */
    float *half[3];      /* the second scale's linear RGB, and every other one after it */
    float *product, *temp, *blur_a, *blur_b;
    float *work;
    float *block;
};

static size_t plane_floats(size_t width, size_t height) { return ssim2_mul(width, height); }

size_t ssim2_reference_bytes(size_t width, size_t height) {
    size_t widths[SSIM2_SCALES], heights[SSIM2_SCALES];
    const int scales = ssim2_scale_count(width, height, widths, heights);
    if (scales == 0) return 0;
    size_t floats = 0;
    for (int s = 0; s < scales; ++s) {
        floats = s == 0 ? ssim2_mul(plane_floats(widths[s], heights[s]), 9)
                        : ssim2_add(floats, ssim2_mul(plane_floats(widths[s], heights[s]), 9));
        if (floats == 0) return 0;
    }
    return ssim2_add(ssim2_mul(floats, sizeof(float)), sizeof(struct ssim2_reference));
}

/* Floats of one scratch: three planes at full size, three at the second scale's, four more full ones,
 * and the blur's rows. */
static size_t scratch_floats(size_t width, size_t height, int radius) {
    const size_t full = plane_floats(width, height);
    const size_t half = plane_floats((width + 1) / 2, (height + 1) / 2);
    return ssim2_add(ssim2_add(ssim2_mul(full, 7), ssim2_mul(half, 3)), ssim2_blur_scratch_floats(width, radius));
}

size_t ssim2_scratch_bytes(size_t width, size_t height) {
    if (width < SSIM2_MIN_SIZE || height < SSIM2_MIN_SIZE) return 0;
    ssim2_gauss g;
    ssim2_gauss_init(&g, 1.5);
    return ssim2_add(ssim2_mul(scratch_floats(width, height, g.radius), sizeof(float)), sizeof(struct ssim2_scratch));
}

int ssim2_scratch_new(size_t width, size_t height, ssim2_scratch **out) {
    *out = NULL;
    if (width < SSIM2_MIN_SIZE || height < SSIM2_MIN_SIZE) return SSIM2_TOO_SMALL;
    ssim2_gauss g;
    ssim2_gauss_init(&g, 1.5);
    const size_t floats = scratch_floats(width, height, g.radius);
    if (floats == 0 || ssim2_mul(floats, sizeof(float)) == 0) return SSIM2_TOO_LARGE;
    ssim2_scratch *s = calloc(1, sizeof *s);
    if (!s) return SSIM2_NO_MEMORY;
    s->block = malloc(floats * sizeof(float));
    if (!s->block) {
        free(s);
        return SSIM2_NO_MEMORY;
    }
    const size_t full = width * height, half = ((width + 1) / 2) * ((height + 1) / 2);
    float *p = s->block;
    for (int c = 0; c < 3; ++c) { s->full[c] = p; p += full; }
    for (int c = 0; c < 3; ++c) { s->half[c] = p; p += half; }
    s->product = p; p += full;
    s->temp = p; p += full;
    s->blur_a = p; p += full;
    s->blur_b = p; p += full;
    s->work = p;
    s->width = width;
    s->height = height;
    *out = s;
    return SSIM2_OK;
}

void ssim2_scratch_free(ssim2_scratch *scratch) {
    if (!scratch) return;
    free(scratch->block);
    free(scratch);
}

float *ssim2_scratch_input(ssim2_scratch *scratch, int channel) { return scratch->full[channel]; }

/* Where one pass over the scales is: `current` holds this scale's linear RGB, `next` receives the next's. */
typedef struct {
    float *current[3], *next[3];
} pyramid;

static pyramid pyramid_start(const ssim2_scratch *s) {
    pyramid p;
    for (int c = 0; c < 3; ++c) { p.current[c] = s->full[c]; p.next[c] = s->half[c]; }
    return p;
}

/* Puts scale s+1's linear RGB in `next` (when there is one), turns `current` into XYB, and swaps, so that
 * afterwards `next` holds this scale's XYB and `current` the next scale's RGB. */
static void step_scale(pyramid *p, size_t width, size_t height, int has_next) {
    if (has_next)
        for (int c = 0; c < 3; ++c) ssim2_downsample(p->current[c], width, height, p->next[c]);
    ssim2_positive_xyb(p->current[0], p->current[1], p->current[2], width * height);
    for (int c = 0; c < 3; ++c) {
        float *swap = p->current[c]; p->current[c] = p->next[c]; p->next[c] = swap;
    }
}

int ssim2_reference_new(ssim2_scratch *scratch, ssim2_reference **out) {
    *out = NULL;
    const size_t bytes = ssim2_reference_bytes(scratch->width, scratch->height);
    if (bytes == 0) return SSIM2_TOO_LARGE;
    ssim2_reference *r = calloc(1, sizeof *r);
    if (!r) return SSIM2_NO_MEMORY;
    r->block = malloc(bytes - sizeof *r);
    if (!r->block) {
        free(r);
        return SSIM2_NO_MEMORY;
    }
    r->width = scratch->width;
    r->height = scratch->height;
    r->scales = ssim2_scale_count(r->width, r->height, r->widths, r->heights);
    ssim2_gauss_init(&r->gauss, 1.5);
    float *p = r->block;
    for (int s = 0; s < r->scales; ++s) {
        const size_t n = r->widths[s] * r->heights[s];
        for (int c = 0; c < 3; ++c) {
            r->img[s][c] = p; p += n;
            r->mu[s][c] = p; p += n;
            r->var[s][c] = p; p += n;
        }
    }
    pyramid py = pyramid_start(scratch);
    for (int s = 0; s < r->scales; ++s) {
        const size_t w = r->widths[s], h = r->heights[s], n = w * h;
        step_scale(&py, w, h, s + 1 < r->scales);
        for (int c = 0; c < 3; ++c) {
            const float *img = py.next[c];
            memcpy(r->img[s][c], img, n * sizeof(float));
            ssim2_blur(&r->gauss, img, NULL, w, h, scratch->temp, scratch->work, r->mu[s][c]);
            ssim2_blur(&r->gauss, img, img, w, h, scratch->temp, scratch->work, r->var[s][c]);
            const float *restrict mu = r->mu[s][c];
            float *restrict var = r->var[s][c];
            for (size_t i = 0; i < n; ++i) var[i] = var[i] - mu[i] * mu[i];   /* (s11 - mu11) as SSIMMap has it */
        }
    }
    *out = r;
    return SSIM2_OK;
}

void ssim2_reference_free(ssim2_reference *reference) {
    if (!reference) return;
    free(reference->block);
    free(reference);
}

/* Msssim::Score: the 108 weights (SSIMULACRA 2.1), indexed channel, scale, norm, then map. */
static const double kWeight[108] = {
    0.0, 0.0007376606707406586, 0.0, 0.0, 0.0007793481682867309, 0.0, 0.0, 0.0004371155730107379, 0.0,
    1.1041726426657346, 0.00066284834129271, 0.00015231632783718752, 0.0, 0.0016406437456599754, 0.0,
    1.8422455520539298, 11.441172603757666, 0.0, 0.0007989109436015163, 0.000176816438078653, 0.0,
    1.8787594979546387, 10.94906990605142, 0.0, 0.0007289346991508072, 0.9677937080626833, 0.0,
    0.00014003424285435884, 0.9981766977854967, 0.00031949755934435053, 0.0004550992113792063, 0.0, 0.0,
    0.0013648766163243398, 0.0, 0.0, 0.0, 0.0, 0.0, 7.466890328078848, 0.0, 17.445833984131262,
    0.0006235601634041466, 0.0, 0.0, 6.683678146179332, 0.00037724407979611296, 1.027889937768264,
    225.20515300849274, 0.0, 0.0, 19.213238186143016, 0.0011401524586618361, 0.001237755635509985,
    176.39317598450694, 0.0, 0.0, 24.43300999870476, 0.28520802612117757, 0.0004485436923833408, 0.0, 0.0,
    0.0, 34.77906344483772, 44.835625328877896, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0008680556573291698, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0005313191874358747, 0.0, 0.00016533814161379112,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0004179171803251336, 0.0017290828234722833, 0.0, 0.0020827005846636437,
    0.0, 0.0, 8.826982764996862, 23.19243343998926, 0.0, 95.1080498811086, 0.9863978034400682,
    0.9834382792465353, 0.0012286405048278493, 171.2667255897307, 0.9807858872435379, 0.0, 0.0, 0.0,
    0.0005130064588990679, 0.0, 0.00010854057858411537};

static double final_score(double norms[SSIM2_SCALES][3][6], int scales) {
    double ssim = 0.0;
    size_t i = 0;
    /* as the reference: with fewer than six scales the weights simply shift */
    for (int c = 0; c < 3; ++c)
        for (int s = 0; s < scales; ++s)
            for (int n = 0; n < 2; ++n) {
                ssim += kWeight[i++] * fabs(norms[s][c][n]);
                ssim += kWeight[i++] * fabs(norms[s][c][2 + n]);
                ssim += kWeight[i++] * fabs(norms[s][c][4 + n]);
            }
    ssim = ssim * 0.9562382616834844;
    ssim = 2.326765642916932 * ssim - 0.020884521182843837 * ssim * ssim +
           6.248496625763138e-05 * ssim * ssim * ssim;
    return ssim > 0 ? 100.0 - 10.0 * pow(ssim, 0.6276336467831387) : 100.0;
}

int ssim2_score(const ssim2_reference *r, ssim2_scratch *scratch, double *score) {
    *score = 0;
    if (scratch->width != r->width || scratch->height != r->height) return SSIM2_SIZE_MISMATCH;
    double norms[SSIM2_SCALES][3][6];
    pyramid py = pyramid_start(scratch);
    for (int s = 0; s < r->scales; ++s) {
        const size_t w = r->widths[s], h = r->heights[s], n = w * h;
        step_scale(&py, w, h, s + 1 < r->scales);
        for (int c = 0; c < 3; ++c) {
            const float *img2 = py.next[c];
            ssim2_blur(&r->gauss, r->img[s][c], img2, w, h, scratch->temp, scratch->work, scratch->blur_a);   /* s12 */
            ssim2_blur(&r->gauss, img2, img2, w, h, scratch->temp, scratch->work, scratch->blur_b);           /* s22 */
            ssim2_blur(&r->gauss, img2, NULL, w, h, scratch->temp, scratch->work, scratch->product);          /* mu2 */
            double sums[6];
            ssim2_channel_sums(r->img[s][c], r->mu[s][c], r->var[s][c], img2, scratch->product, scratch->blur_b,
                               scratch->blur_a, n, sums);
            const double one_per_pixels = 1.0 / (double)n;
            for (int k = 0; k < 6; k += 2) {
                norms[s][c][k] = one_per_pixels * sums[k];
                norms[s][c][k + 1] = sqrt(sqrt(one_per_pixels * sums[k + 1]));
            }
        }
    }
    *score = final_score(norms, r->scales);
    return SSIM2_OK;
}
