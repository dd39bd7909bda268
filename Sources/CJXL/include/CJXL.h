#include <stddef.h>
#include <stdint.h>
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>

/// Opens libjxl and libjxl_threads, once per process; every other call into them must come after it
/// succeeded. Returns 0, or -1 with dlopen's reason in `message` (always terminated).
int imgprep_jxl_load(char *message, size_t capacity);
