#include <libdeflate.h>
#include <zlib.h>
