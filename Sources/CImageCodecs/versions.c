/* The versions of the codec libraries this process has loaded, for `imgprep --version`. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <png.h>

#include "CImageCodecs.h"

const char *cic_png_version(void) { return png_get_libpng_ver(NULL); }

/* libjpeg-turbo has no call that returns its version, but every build carries the text
 * "libjpeg-turbo version X.Y.Z (build N)" (jcmaster.c keeps it "so a binary can be examined"), so it is
 * looked up in the shared library actually loaded, found through one of its functions. */
int cic_jpeg_version(char *buffer, size_t size) {
    if (buffer == NULL || size == 0) return 1;
    buffer[0] = '\0';
    Dl_info info;
    if (dladdr((void *)jpeg_std_error, &info) == 0 || info.dli_fname == NULL) return 1;
    FILE *file = fopen(info.dli_fname, "rb");
    if (file == NULL) return 1;
    enum { LIMIT = 16 << 20 };   /* a libjpeg is well under 1 MB; never read an unbounded file */
    char *bytes = malloc(LIMIT);
    size_t count = bytes != NULL ? fread(bytes, 1, LIMIT, file) : 0;
    fclose(file);
    static const char needle[] = "libjpeg-turbo version ";
    const char *found = count > 0 ? memmem(bytes, count, needle, sizeof needle - 1) : NULL;
    int status = 1;
    if (found != NULL) {
        const char *start = found + sizeof needle - 1, *end = start;
        while ((size_t)(end - bytes) < count && *end != '\0' && (size_t)(end - start) < size - 1) end++;
        memcpy(buffer, start, (size_t)(end - start));
        buffer[end - start] = '\0';
        status = 0;
    }
    free(bytes);
    return status;
}

int cic_library_file(const void *symbol, char *buffer, size_t size) {
    Dl_info info;
    if (buffer == NULL || size == 0 || dladdr(symbol, &info) == 0 || info.dli_fname == NULL) return 1;
    char *resolved = realpath(info.dli_fname, NULL);
    snprintf(buffer, size, "%s", resolved != NULL ? resolved : info.dli_fname);
    free(resolved);
    return 0;
}
