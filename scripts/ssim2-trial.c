/* make bench's in-process measure of the metric (scripts/bench.sh): one original prepared, then one trial
 * (a candidate scored against it) timed again and again, on one thread and on two; then a pair scored in
 * one pass as imgprep compare does (nothing kept), on two threads. Reads two binary PPMs
 * (P6, 8-bit, sRGB) of the same size; prints the score and milliseconds per megapixel of each step, the
 * best of the runs (a loaded machine only adds time).
 *
 *   cc -O2 -pthread -I Sources/CSSIMULACRA2/include scripts/ssim2-trial.c Sources/CSSIMULACRA2/[a-z]*.c -lm
 *   ./a.out original.ppm distorted.ppm [runs]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "CSSIMULACRA2.h"

typedef struct {
    size_t width, height;
    unsigned char *pixels;
} picture;

static int read_ppm(const char *path, picture *p) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    unsigned max = 0;
    int ok = fscanf(f, "P6 %zu %zu %u", &p->width, &p->height, &max) == 3 && max == 255 && fgetc(f) != EOF &&
             p->width > 0 && p->height > 0 && p->width < 65536 && p->height < 65536;
    const size_t bytes = ok ? p->width * p->height * 3 : 0;
    p->pixels = ok ? malloc(bytes) : NULL;
    ok = ok && p->pixels && fread(p->pixels, 1, bytes, f) == bytes;
    fclose(f);
    return ok;
}

static float table[3 * 768];   /* sRGB 8-bit to linear, in ssim2_planes_from_tables' layout */

static void make_table(void) {
    float encoded[256 * 3], linear[3][256];
    for (int v = 0; v < 256; ++v)
        for (int c = 0; c < 3; ++c) encoded[v * 3 + c] = (float)v * (1.0f / 255);
    ssim2_planes_from_srgb(encoded, 256, linear[0], linear[1], linear[2]);
    for (int c = 0; c < 3; ++c)
        for (int v = 0; v < 256; ++v) table[c * 768 + v * 3 + c] = linear[c][v];
}

static int rows(void *context, size_t y, size_t count, float *r, float *g, float *b) {
    const picture *p = context;
    ssim2_planes_from_tables(p->pixels + y * p->width * 3, count * p->width, 3, table, r, g, b);
    return 0;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    picture a, b;
    if (argc < 3 || !read_ppm(argv[1], &a) || !read_ppm(argv[2], &b) || a.width != b.width || a.height != b.height) {
        fprintf(stderr, "usage: ssim2-trial ORIGINAL.ppm DISTORTED.ppm [RUNS] (binary PPMs of the same size)\n");
        return 2;
    }
    const int runs = argc > 3 ? atoi(argv[3]) : 5;
    const double mp = (double)(a.width * a.height) / 1e6;
    make_table();
    ssim2_scratch *scratch;
    ssim2_reference *reference;
    if (ssim2_scratch_new(a.width, a.height, &scratch) != SSIM2_OK) return 1;
    double t = now();
    if (ssim2_reference_new(scratch, rows, &a, 1, &reference) != SSIM2_OK) return 1;
    const double prepare = (now() - t) * 1e3 / mp;
    double best[2] = {1e30, 1e30}, score = 0;
    for (int threads = 1; threads <= 2; ++threads)
        for (int i = 0; i < runs; ++i) {
            t = now();
            if (ssim2_score(reference, scratch, rows, &b, threads, &score) != SSIM2_OK) return 1;
            const double ms = (now() - t) * 1e3 / mp;
            if (ms < best[threads - 1]) best[threads - 1] = ms;
        }
    double pair = 1e30, pair_score = 0;
    for (int i = 0; i < runs; ++i) {
        t = now();
        if (ssim2_score_pair(a.width, a.height, rows, &a, rows, &b, 2, &pair_score) != SSIM2_OK) return 1;
        const double ms = (now() - t) * 1e3 / mp;
        if (ms < pair) pair = ms;
    }
    printf("score %.4f size %zux%zu prepare_ms_per_mp %.1f trial_ms_per_mp %.1f trial_2threads_ms_per_mp %.1f "
           "pair_2threads_ms_per_mp %.1f pair_score %.4f\n", score, a.width, a.height, prepare, best[0], best[1], pair,
           pair_score);
    ssim2_reference_free(reference);
    ssim2_scratch_free(scratch);
    free(a.pixels);
    free(b.pixels);
    return 0;
}
