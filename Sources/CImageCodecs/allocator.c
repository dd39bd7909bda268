#include <malloc.h>
#include <stdlib.h>
#include "CImageCodecs.h"

void cic_free(void *p) { free(p); }

void cic_tune_allocator(size_t mmap_threshold, size_t trim_threshold) {
    mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold);
    mallopt(M_TRIM_THRESHOLD, (int)trim_threshold);
}
