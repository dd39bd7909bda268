/* The streamed pipeline: each scale a stage that takes linear RGB a strip of rows at a time. Its front
 * (downscale into the next stage, XYB, the blurs along x) and its back (the blurs along y, then the sums
 * or the reference's planes) meet in rings of rows, so the two can run on two threads. */
#ifndef CSSIMULACRA2_STREAM_H
#define CSSIMULACRA2_STREAM_H

#include <stdatomic.h>
#include <stddef.h>
#include "internal.h"

/* Blurs per channel: the picture, its square, its product with the original (scoring), and the original
 * and its square (a pair scored in one pass, nothing kept). */
#define SSIM2_BLURS 5

/* What a pass does. */
enum { SSIM2_PREPARE = 0, SSIM2_SCORE = 1, SSIM2_PAIR = 2 };
/* Strips the front may run ahead of the back on two threads (one is enough on one). */
#define SSIM2_AHEAD 3
/* Columns the back takes at a time, so its rows stay in the first-level cache. */
#define SSIM2_TILE 512

typedef struct {
    size_t width, height;
    /* front */
    float *in[3];                 /* the strip being gathered: SSIM2_STRIP rows of linear RGB */
    float *in1[3];                /* a pair's: the original's strip */
    size_t gathered;              /* rows in `in` */
    _Atomic size_t front;         /* rows through the front: the back reads only rows below it */
    float *xyb[3];                /* scoring: ring of XYB rows (the reference keeps its own in its planes) */
    float *xyb1[3];               /* a pair's: the original's ring */
    float *hrow[3][SSIM2_BLURS];  /* rings of rows blurred along x */
    /* back */
    float *state[3][SSIM2_BLURS]; /* the vertical recursion: two blocks of three rows (y[n-1], y[n-2]) */
    _Atomic ptrdiff_t next;       /* the next row the vertical pass steps to (from 1 - N) */
    double sums[3][6][4];
    /* the reference's planes at this scale: written when preparing it, read when scoring */
    float *img[3], *mu[3], *var[3];
} ssim2_stage;

typedef struct {
    const ssim2_gauss *gauss;
    int scoring;                  /* SSIM2_SCORE against the planes, SSIM2_PREPARE them, or a SSIM2_PAIR */
    int scales;
    size_t ring;                  /* rows each ring uses */
    ssim2_stage stage[SSIM2_SCALES];
    float *tin, *tout, *zero_row; /* the front's */
    float *tile[SSIM2_BLURS];     /* the back's */
} ssim2_stream;

/* Rows each ring uses with one thread or two. */
size_t ssim2_ring_rows(int radius, int threads);

/* Floats a stream for this size allocates (0 on overflow), and carving them from `block`; `pair`: room
 * for a pair's five blurs (else three). */
size_t ssim2_stream_floats(size_t width, size_t height, int radius, int pair);
void ssim2_stream_layout(ssim2_stream *s, size_t width, size_t height, int radius, int pair, float *block);

/* Starts a pass: resets the stages' counters and sums; `ring` rows per ring (ssim2_ring_rows). */
void ssim2_stream_start(ssim2_stream *s, int scoring, size_t ring);

/* Rows the front of stage `k` writes next would overwrite ring rows the back still needs: the front
 * waits while this is true. */
int ssim2_front_must_wait(const ssim2_stream *s, int k, size_t rows);

/* The front's work on stage k's gathered strip (also feeding the stages below, recursively, which may
 * then run their own strips). `ready(k)` is called before a stage's rings are written, `published(k)`
 * after its front moved on. */
typedef struct {
    void (*ready)(void *context, int k, size_t rows);
    void (*published)(void *context, int k);
    void *context;
} ssim2_front_hooks;
void ssim2_front_strip(ssim2_stream *s, int k, const ssim2_front_hooks *hooks);

/* Steps the back of stage k through every row its front allows (`front`: rows through it); returns the
 * rows done. */
size_t ssim2_back_advance(ssim2_stream *s, int k, size_t front);

#endif
