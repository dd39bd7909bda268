/* One pass over the scales in strips (stream.h): the front turns a strip of linear RGB into the next
 * stage's rows, XYB and rows blurred along x; the back blurs those along y a row at a time and, column
 * tile by column tile, adds the row's SSIM and edge maps to the sums (scoring) or stores the original's
 * moments (preparing). Nothing of the picture's size is held but the reference's own planes. */
#pragma STDC FP_CONTRACT OFF
#include <stdatomic.h>
#include <string.h>
#include "stream.h"

/* The strips the front may be ahead, plus the 2N rows the vertical pass reaches around its row. */
size_t ssim2_ring_rows(int radius, int threads) {
    return SSIM2_STRIP * (threads > 1 ? SSIM2_AHEAD : 1) + 2 * (size_t)radius;
}
static size_t max_ring(int radius) { return ssim2_ring_rows(radius, 2); }

/* Per scale: the strips in, the XYB rings, the rings along x and the recursion's rows, all `width` wide. */
static size_t stage_rows(int radius, int pair) {
    const size_t ring = max_ring(radius), pictures = pair ? 2 : 1, blurs = pair ? 5 : 3;
    return pictures * 3 * (SSIM2_STRIP + ring) + 3 * blurs * (ring + 6);
}

size_t ssim2_stream_floats(size_t width, size_t height, int radius, int pair) {
    size_t widths[SSIM2_SCALES], heights[SSIM2_SCALES];
    const int scales = ssim2_scale_count(width, height, widths, heights);
    if (scales == 0) return 0;
    size_t floats = ssim2_mul(ssim2_add(width, 3 * (size_t)radius), 3 * SSIM2_STRIP);   /* tin */
    floats = ssim2_add(floats, ssim2_mul(width, 3 * SSIM2_STRIP + 1));                 /* tout, zero row */
    floats = ssim2_add(floats, SSIM2_BLURS * SSIM2_TILE);
    for (int k = 0; k < scales; ++k) floats = ssim2_add(floats, ssim2_mul(widths[k], stage_rows(radius, pair)));
    return floats;
}

void ssim2_stream_layout(ssim2_stream *s, size_t width, size_t height, int radius, int pair, float *block) {
    size_t widths[SSIM2_SCALES], heights[SSIM2_SCALES];
    s->scales = ssim2_scale_count(width, height, widths, heights);
    const size_t ring = max_ring(radius);
    float *p = block;
    s->tin = p; p += (width + 3 * (size_t)radius) * 3 * SSIM2_STRIP;
    s->tout = p; p += width * 3 * SSIM2_STRIP;
    s->zero_row = p; p += width;
    memset(s->zero_row, 0, width * sizeof(float));
    for (int b = 0; b < SSIM2_BLURS; ++b) { s->tile[b] = p; p += SSIM2_TILE; }
    for (int k = 0; k < s->scales; ++k) {
        ssim2_stage *st = &s->stage[k];
        const size_t w = widths[k];
        st->width = w;
        st->height = heights[k];
        for (int c = 0; c < 3; ++c) { st->in[c] = p; p += SSIM2_STRIP * w; }
        for (int c = 0; c < 3; ++c) { st->xyb[c] = p; p += ring * w; }
        for (int c = 0; c < 3; ++c) {
            st->in1[c] = pair ? p : NULL; p += pair ? SSIM2_STRIP * w : 0;
            st->xyb1[c] = pair ? p : NULL; p += pair ? ring * w : 0;
        }
        for (int c = 0; c < 3; ++c)
            for (int b = 0; b < SSIM2_BLURS; ++b) {
                const int room = b < 3 || pair;
                st->hrow[c][b] = room ? p : NULL; p += room ? ring * w : 0;
                st->state[c][b] = room ? p : NULL; p += room ? 6 * w : 0;
            }
    }
}

void ssim2_stream_start(ssim2_stream *s, int scoring, size_t ring) {
    s->scoring = scoring;
    s->ring = ring;
    const ptrdiff_t N = s->gauss->radius;
    for (int k = 0; k < s->scales; ++k) {
        ssim2_stage *st = &s->stage[k];
        st->gathered = 0;
        atomic_store(&st->front, 0);
        atomic_store(&st->next, 1 - N);
        memset(st->sums, 0, sizeof st->sums);
        for (int c = 0; c < 3; ++c)
            for (int b = 0; b < (scoring == SSIM2_PAIR ? 5 : 3); ++b) memset(st->state[c][b], 0, 6 * st->width * sizeof(float));
    }
}

static float *ring_row(const ssim2_stream *s, float *ring, size_t width, size_t y) {
    return ring + (y % s->ring) * width;
}

/* The picture's XYB row y at stage k: the reference's plane when preparing it, the ring when scoring. */
static float *xyb_row(const ssim2_stream *s, const ssim2_stage *st, int c, size_t y) {
    return s->scoring != SSIM2_PREPARE ? ring_row(s, st->xyb[c], st->width, y) : st->img[c] + y * st->width;
}

/* The original's XYB row y: its ring in a pair, the reference's plane otherwise. */
static const float *original_row(const ssim2_stream *s, const ssim2_stage *st, int c, size_t y) {
    return s->scoring == SSIM2_PAIR ? ring_row(s, st->xyb1[c], st->width, y) : st->img[c] + y * st->width;
}

int ssim2_front_must_wait(const ssim2_stream *s, int k, size_t rows) {
    const ssim2_stage *st = &s->stage[k];
    const ptrdiff_t N = s->gauss->radius;
    /* the last row written takes the slot of row front + rows - 1 - ring, which the back reads (as the
     * top of its window, row next - N - 1) until its next row passes front + rows - ring + N */
    const ptrdiff_t next = atomic_load_explicit(&st->next, memory_order_acquire);
    const size_t front = atomic_load_explicit(&st->front, memory_order_relaxed);   /* the front's own */
    return next <= (ptrdiff_t)(front + rows) - (ptrdiff_t)s->ring + N;
}

void ssim2_front_strip(ssim2_stream *s, int k, const ssim2_front_hooks *hooks) {
    ssim2_stage *st = &s->stage[k];
    const size_t w = st->width, y = atomic_load_explicit(&st->front, memory_order_relaxed), rows = st->gathered;
    if (k + 1 < s->scales) {   /* the next scale's rows: pairs of rows, the last one twice for an odd height */
        ssim2_stage *next = &s->stage[k + 1];
        for (size_t r = 0; r < rows; r += 2) {
            const size_t r1 = r + 1 < rows ? r + 1 : r;
            for (int c = 0; c < 3; ++c) {
                const size_t at = next->gathered * next->width;
                ssim2_downsample_rows(st->in[c] + r * w, st->in[c] + r1 * w, w, next->in[c] + at);
                if (s->scoring == SSIM2_PAIR) ssim2_downsample_rows(st->in1[c] + r * w, st->in1[c] + r1 * w, w, next->in1[c] + at);
            }
            if (++next->gathered == SSIM2_STRIP) ssim2_front_strip(s, k + 1, hooks);
        }
    }
    if (hooks) hooks->ready(hooks->context, k, rows);
    const float *src[3][SSIM2_STRIP], *original[3][SSIM2_STRIP];
    float *dst[SSIM2_BLURS][SSIM2_STRIP];
    for (size_t r = 0; r < rows; ++r) {
        float *x[3];
        for (int c = 0; c < 3; ++c) {
            x[c] = xyb_row(s, st, c, y + r);
            memcpy(x[c], st->in[c] + r * w, w * sizeof(float));
            src[c][r] = x[c];
            if (s->scoring == SSIM2_PAIR) memcpy(ring_row(s, st->xyb1[c], w, y + r), st->in1[c] + r * w, w * sizeof(float));
        }
        ssim2_positive_xyb(x[0], x[1], x[2], w);
        if (s->scoring == SSIM2_PAIR)
            ssim2_positive_xyb(ring_row(s, st->xyb1[0], w, y + r), ring_row(s, st->xyb1[1], w, y + r),
                               ring_row(s, st->xyb1[2], w, y + r), w);
        if (s->scoring != SSIM2_PREPARE)
            for (int c = 0; c < 3; ++c) original[c][r] = original_row(s, st, c, y + r);
    }
    for (int c = 0; c < 3; ++c) {
        for (int b = 0; b < (s->scoring == SSIM2_PAIR ? 5 : 3); ++b)
            for (size_t r = 0; r < rows; ++r) dst[b][r] = ring_row(s, st->hrow[c][b], w, y + r);
        ssim2_horizontal(s->gauss, src[c], s->scoring ? original[c] : NULL, rows, w, s->zero_row, s->tin, s->tout, dst);
        if (s->scoring == SSIM2_PAIR)   /* the original's blur and square, into blurs 3 and 4 */
            ssim2_horizontal(s->gauss, original[c], NULL, rows, w, s->zero_row, s->tin, s->tout, dst + 3);
    }
    st->gathered = 0;
    atomic_store_explicit(&st->front, y + rows, memory_order_release);
    if (hooks) hooks->published(hooks->context, k);
}

/* Row n of stage k along y over columns x0 .. x0 + count - 1: the blurs, then the sums or the reference's
 * planes. */
static void back_tile(ssim2_stream *s, int k, ptrdiff_t n, size_t x0, size_t count) {
    ssim2_stage *st = &s->stage[k];
    const ptrdiff_t N = s->gauss->radius, h = (ptrdiff_t)st->height;
    const size_t w = st->width;
    const ptrdiff_t top = n - N - 1, bottom = n + N - 1;
    const int blurs = s->scoring == SSIM2_PAIR ? 5 : s->scoring == SSIM2_SCORE ? 3 : 2;
    const size_t older_block = (size_t)(n & 1) * 3, previous_block = 3 - older_block;
    for (int c = 0; c < 3; ++c) {
        float *out[SSIM2_BLURS] = {NULL, NULL, NULL, NULL, NULL};
        if (n >= 0) {
            for (int b = 0; b < SSIM2_BLURS; ++b) out[b] = s->tile[b];
            if (s->scoring == SSIM2_PREPARE) out[0] = st->mu[c] + (size_t)n * w + x0;
        }
        for (int b = 0; b < blurs; ++b) {
            const float *t = top >= 0 ? ring_row(s, st->hrow[c][b], w, (size_t)top) + x0 : s->zero_row;
            const float *d = bottom < h ? ring_row(s, st->hrow[c][b], w, (size_t)bottom) + x0 : s->zero_row;
            float *state = st->state[c][b] + x0;
            const float *previous[3] = {state + previous_block * w, state + (previous_block + 1) * w,
                                        state + (previous_block + 2) * w};
            float *older[3] = {state + older_block * w, state + (older_block + 1) * w, state + (older_block + 2) * w};
            ssim2_vertical_step(s->gauss, t, d, previous, older, out[b], count);
        }
        if (n < 0) continue;
        const size_t at = (size_t)n * w + x0;
        if (s->scoring == SSIM2_PAIR) {
            float *restrict var = out[4];
            const float *restrict mu = out[3];
            for (size_t i = 0; i < count; ++i) var[i] = var[i] - mu[i] * mu[i];   /* (s11 - mu11) as SSIMMap has it */
            ssim2_channel_sums(original_row(s, st, c, (size_t)n) + x0, mu, var, xyb_row(s, st, c, (size_t)n) + x0,
                               out[0], out[1], out[2], count, st->sums[c]);
        } else if (s->scoring == SSIM2_SCORE) {
            ssim2_channel_sums(st->img[c] + at, st->mu[c] + at, st->var[c] + at, xyb_row(s, st, c, (size_t)n) + x0,
                               out[0], out[1], out[2], count, st->sums[c]);
        } else {
            const float *restrict mu = out[0], *restrict s11 = out[1];
            float *restrict var = st->var[c] + at;
            for (size_t i = 0; i < count; ++i) var[i] = s11[i] - mu[i] * mu[i];   /* (s11 - mu11) as SSIMMap has it */
        }
    }
}

size_t ssim2_back_advance(ssim2_stream *s, int k, size_t front) {
    ssim2_stage *st = &s->stage[k];
    const ptrdiff_t N = s->gauss->radius, h = (ptrdiff_t)st->height, first_row = 1 - N;
    /* row n needs the rows blurred along x down to n + N - 1 (all of them once the front is through) */
    const ptrdiff_t end = (ptrdiff_t)front == h ? h : (ptrdiff_t)front - N + 1;
    const ptrdiff_t first = atomic_load_explicit(&st->next, memory_order_relaxed);   /* only the back writes it */
    ptrdiff_t n = first;
    while (n < end) {
        /* A strip's worth of rows a column tile at a time, so the recursion's rows stay in cache. The
         * groups start at fixed rows (1 - N, then every SSIM2_STRIP), whatever the front had published:
         * the sums are added in the same order on one thread or two. */
        ptrdiff_t group_end = first_row + ((n - first_row) / SSIM2_STRIP + 1) * SSIM2_STRIP;
        if (group_end > end) group_end = end;
        for (size_t x0 = 0; x0 < st->width; x0 += SSIM2_TILE) {
            const size_t count = st->width - x0 < SSIM2_TILE ? st->width - x0 : SSIM2_TILE;
            for (ptrdiff_t row = n; row < group_end; ++row) back_tile(s, k, row, x0, count);
        }
        n = group_end;
    }
    atomic_store_explicit(&st->next, n, memory_order_release);
    return (size_t)(n - first);
}
