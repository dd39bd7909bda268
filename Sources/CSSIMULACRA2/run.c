/* Drives one pass of the stream over a picture read from the caller's row source: on one thread, each
 * stage's back follows its front strip by strip; on two, a second thread runs the backs while the caller's
 * thread runs the fronts (reading rows, downscaling, XYB, the blurs along x), the rings between them
 * guarded by the counters in each stage and one lock to sleep on. Either way every row goes through the
 * same steps in the same order, so the result is the same. */
#include <pthread.h>
#include "run.h"

typedef struct {
    ssim2_stream *stream;
    pthread_mutex_t lock;
    pthread_cond_t front_moved, back_moved;
    unsigned long moves;   /* strips the fronts have published: the back sleeps only if none came meanwhile */
    int stop;
} pair;

static void step_back(void *context, int k) {   /* one thread: the back follows at once */
    ssim2_stream *s = context;
    ssim2_back_advance(s, k, atomic_load_explicit(&s->stage[k].front, memory_order_relaxed));
}

static void nothing(void *context, int k, size_t rows) { (void)context; (void)k; (void)rows; }

static void wait_for_back(void *context, int k, size_t rows) {
    pair *p = context;
    if (!ssim2_front_must_wait(p->stream, k, rows)) return;
    pthread_mutex_lock(&p->lock);
    while (ssim2_front_must_wait(p->stream, k, rows)) pthread_cond_wait(&p->back_moved, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

static void wake_back(void *context, int k) {
    (void)k;
    pair *p = context;
    pthread_mutex_lock(&p->lock);
    p->moves++;
    pthread_cond_signal(&p->front_moved);
    pthread_mutex_unlock(&p->lock);
}

static int all_done(const ssim2_stream *s) {
    for (int k = 0; k < s->scales; ++k)
        if (atomic_load_explicit(&s->stage[k].next, memory_order_relaxed) < (ptrdiff_t)s->stage[k].height) return 0;
    return 1;
}

static void *back_thread(void *context) {
    pair *p = context;
    ssim2_stream *s = p->stream;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        const unsigned long seen = p->moves;
        pthread_mutex_unlock(&p->lock);
        size_t done = 0;
        for (int k = 0; k < s->scales; ++k)
            done += ssim2_back_advance(s, k, atomic_load_explicit(&s->stage[k].front, memory_order_acquire));
        pthread_mutex_lock(&p->lock);
        if (done > 0) pthread_cond_signal(&p->back_moved);
        int finished = p->stop || all_done(s);
        if (!finished && done == 0 && p->moves == seen) {
            pthread_cond_wait(&p->front_moved, &p->lock);   /* woken when a front moved or the pass stopped */
            finished = p->stop;
        }
        pthread_mutex_unlock(&p->lock);
        if (finished) return NULL;
    }
}

/* The fronts, stage 0's strips from the sources and then each stage's last, partial strip. */
static int run_fronts(ssim2_stream *s, const ssim2_sources *from, const ssim2_front_hooks *hooks) {
    ssim2_stage *first = &s->stage[0];
    for (size_t y = 0; y < first->height; y += SSIM2_STRIP) {
        const size_t rows = first->height - y < SSIM2_STRIP ? first->height - y : SSIM2_STRIP;
        if (from->original && from->original(from->original_context, y, rows, first->in1[0], first->in1[1], first->in1[2]) != 0)
            return SSIM2_SOURCE_FAILED;
        if (from->picture(from->context, y, rows, first->in[0], first->in[1], first->in[2]) != 0) return SSIM2_SOURCE_FAILED;
        first->gathered = rows;
        ssim2_front_strip(s, 0, hooks);
    }
    for (int k = 1; k < s->scales; ++k)
        if (s->stage[k].gathered > 0) ssim2_front_strip(s, k, hooks);
    return SSIM2_OK;
}

int ssim2_run(ssim2_stream *s, int scoring, const ssim2_sources *from, int threads) {
    const int radius = s->gauss->radius;
    /* Starting a thread costs tens of microseconds: more than a small picture's whole pass. */
    if (threads > 1 && s->stage[0].width * s->stage[0].height >= 65536) {
        /* static initialisers: nothing to fail, nothing to destroy */
        pair p = {.stream = s, .lock = PTHREAD_MUTEX_INITIALIZER, .front_moved = PTHREAD_COND_INITIALIZER,
                  .back_moved = PTHREAD_COND_INITIALIZER, .moves = 0, .stop = 0};
        pthread_t back;
        ssim2_stream_start(s, scoring, ssim2_ring_rows(radius, 2));
        if (pthread_create(&back, NULL, back_thread, &p) == 0) {
            const ssim2_front_hooks hooks = {wait_for_back, wake_back, &p};
            const int status = run_fronts(s, from, &hooks);
            pthread_mutex_lock(&p.lock);
            p.stop = status != SSIM2_OK;
            pthread_cond_signal(&p.front_moved);
            pthread_mutex_unlock(&p.lock);
            pthread_join(back, NULL);
            return status;
        }
        /* no second thread to be had: the same pass on this one */
    }
    ssim2_stream_start(s, scoring, ssim2_ring_rows(radius, 1));
    const ssim2_front_hooks hooks = {nothing, step_back, s};
    return run_fronts(s, from, &hooks);
}
