/* ssimulacra2.cc's ComputeSSIMULACRA2 and Msssim::Score, split so the original's half (its XYB pyramid,
 * mu1 = blur(img1), sigma11 - mu1^2) is computed once; both halves stream the picture through the scales
 * in strips (stream.c, run.c). Sums in double, in a fixed order. */
#pragma STDC FP_CONTRACT OFF
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"

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
    ssim2_gauss gauss;
    ssim2_stream stream;
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

size_t ssim2_scratch_bytes(size_t width, size_t height) {
    if (width < SSIM2_MIN_SIZE || height < SSIM2_MIN_SIZE) return 0;
    ssim2_gauss g;
    ssim2_gauss_init(&g, 1.5);
    return ssim2_add(ssim2_mul(ssim2_stream_floats(width, height, g.radius, 0), sizeof(float)),
                     sizeof(struct ssim2_scratch));
}

/* A scratch with room for a pair's five blurs a channel (`pair`) or a score's three. */
static int scratch_new(size_t width, size_t height, int pair, ssim2_scratch **out) {
    *out = NULL;
    if (width < SSIM2_MIN_SIZE || height < SSIM2_MIN_SIZE) return SSIM2_TOO_SMALL;
    ssim2_scratch *s = calloc(1, sizeof *s);
    if (!s) return SSIM2_NO_MEMORY;
    ssim2_gauss_init(&s->gauss, 1.5);
    const size_t floats = ssim2_stream_floats(width, height, s->gauss.radius, pair);
    if (floats == 0 || ssim2_mul(floats, sizeof(float)) == 0) {
        free(s);
        return SSIM2_TOO_LARGE;
    }
    s->block = malloc(floats * sizeof(float));
    if (!s->block) {
        free(s);
        return SSIM2_NO_MEMORY;
    }
    s->width = width;
    s->height = height;
    s->stream.gauss = &s->gauss;
    ssim2_stream_layout(&s->stream, width, height, s->gauss.radius, pair, s->block);
    *out = s;
    return SSIM2_OK;
}

int ssim2_scratch_new(size_t width, size_t height, ssim2_scratch **out) { return scratch_new(width, height, 0, out); }

void ssim2_scratch_free(ssim2_scratch *scratch) {
    if (!scratch) return;
    free(scratch->block);
    free(scratch);
}

/* Points the scratch's stages at the reference's planes. */
static void attach(ssim2_scratch *scratch, const ssim2_reference *r) {
    for (int s = 0; s < r->scales; ++s)
        for (int c = 0; c < 3; ++c) {
            scratch->stream.stage[s].img[c] = r->img[s][c];
            scratch->stream.stage[s].mu[c] = r->mu[s][c];
            scratch->stream.stage[s].var[c] = r->var[s][c];
        }
}

int ssim2_reference_new(ssim2_scratch *scratch, ssim2_rows source, void *context, int threads,
                        ssim2_reference **out) {
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
    r->gauss = scratch->gauss;
    float *p = r->block;
    for (int s = 0; s < r->scales; ++s) {
        const size_t n = r->widths[s] * r->heights[s];
        for (int c = 0; c < 3; ++c) {
            r->img[s][c] = p; p += n;
            r->mu[s][c] = p; p += n;
            r->var[s][c] = p; p += n;
        }
    }
    attach(scratch, r);
    const ssim2_sources from = {source, context, NULL, NULL};
    const int status = ssim2_run(&scratch->stream, SSIM2_PREPARE, &from, threads);
    if (status != SSIM2_OK) {
        ssim2_reference_free(r);
        return status;
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

/* The score from a pass's sums. */
static double score_from(const ssim2_stream *stream) {
    double norms[SSIM2_SCALES][3][6];
    for (int s = 0; s < stream->scales; ++s) {
        const ssim2_stage *st = &stream->stage[s];
        const double one_per_pixels = 1.0 / (double)(st->width * st->height);
        for (int c = 0; c < 3; ++c)
            for (int k = 0; k < 6; k += 2) {
                const double *sum = st->sums[c][k], *fourth = st->sums[c][k + 1];
                norms[s][c][k] = one_per_pixels * ((sum[0] + sum[1]) + (sum[2] + sum[3]));
                norms[s][c][k + 1] = sqrt(sqrt(one_per_pixels * ((fourth[0] + fourth[1]) + (fourth[2] + fourth[3]))));
            }
    }
    return final_score(norms, stream->scales);
}

int ssim2_score(const ssim2_reference *r, ssim2_scratch *scratch, ssim2_rows source, void *context, int threads,
                double *score) {
    *score = 0;
    if (scratch->width != r->width || scratch->height != r->height) return SSIM2_SIZE_MISMATCH;
    attach(scratch, r);
    const ssim2_sources from = {source, context, NULL, NULL};
    const int status = ssim2_run(&scratch->stream, SSIM2_SCORE, &from, threads);
    if (status != SSIM2_OK) return status;
    *score = score_from(&scratch->stream);
    return SSIM2_OK;
}

int ssim2_score_pair(size_t width, size_t height, ssim2_rows original, void *original_context, ssim2_rows distorted,
                     void *distorted_context, int threads, double *score) {
    *score = 0;
    ssim2_scratch *scratch;
    const int made = scratch_new(width, height, 1, &scratch);
    if (made != SSIM2_OK) return made;
    const ssim2_sources from = {distorted, distorted_context, original, original_context};
    const int status = ssim2_run(&scratch->stream, SSIM2_PAIR, &from, threads);
    if (status == SSIM2_OK) *score = score_from(&scratch->stream);
    ssim2_scratch_free(scratch);
    return status;
}
