#include <malloc.h>
#include "CImageCodecs.h"

void cic_pin_mmap_threshold(size_t bytes) {
    mallopt(M_MMAP_THRESHOLD, (int)bytes);
}
