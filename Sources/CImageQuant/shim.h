#include <libimagequant.h>

// libimagequant sums colours in OpenMP threads and adds the threads' sums in their order, so its palette
// depends on the thread count; PNGPalette runs it on one (libgomp's setting is per calling thread).
void omp_set_num_threads(int count);
