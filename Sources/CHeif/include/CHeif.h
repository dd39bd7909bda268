#include <stddef.h>
#include <libheif/heif.h>

/// Opens libheif, once per process; every other call into libheif must come after it succeeded.
/// Returns 0, or -1 with dlopen's reason in `message` (always terminated).
int imgprep_heif_load(char *message, size_t capacity);
