// Only for libpng's include path (pkg-config libpng: -I/usr/include/libpng16): CImageCodecs's C includes png.h.
#include <png.h>
