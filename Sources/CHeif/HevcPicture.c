// One HEVC picture decoded with libde265 as its decoder made it (Y'CbCr planes), for the grid tiles that
// imgprep assembles itself: libheif 1.15 hands out every colour picture as RGB. libde265 is the library
// libheif already loaded for HEVC; it is opened by its soname, on first use, like libheif.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libde265/de265.h>
#include "CHeif.h"

static const char library_name[] = "libde265.so.0";

#define DE265_FUNCTIONS(X) \
    X(de265_new_decoder) X(de265_free_decoder) X(de265_push_NAL) X(de265_flush_data) X(de265_decode) \
    X(de265_get_next_picture) X(de265_release_next_picture) X(de265_get_warning) X(de265_get_error_text) \
    X(de265_get_chroma_format) X(de265_get_bits_per_pixel) X(de265_get_image_width) X(de265_get_image_height) \
    X(de265_get_image_plane) X(de265_get_image_full_range_flag) X(de265_get_image_matrix_coefficients)

#define DECLARE(name) static __typeof__(&name) p_##name;
DE265_FUNCTIONS(DECLARE)
#undef DECLARE

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[256];

static void load(void) {
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_failure, sizeof load_failure, "%s", reason ? reason : library_name);
        return;
    }
#define LOOK_UP(name)                                                                  \
    p_##name = (__typeof__(&name))dlsym(library, #name);                               \
    if (p_##name == NULL && load_failure[0] == 0)                                      \
        snprintf(load_failure, sizeof load_failure, "%s has no %s", library_name, #name);
    DE265_FUNCTIONS(LOOK_UP)
#undef LOOK_UP
}

static int fail(char *message, size_t capacity, const char *what, const char *detail) {
    if (capacity > 0) snprintf(message, capacity, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
    return -1;
}

// Pushes NAL units each preceded by its length in `length_size` big-endian bytes; -1 when one overruns.
static int push_units(de265_decoder_context *context, const uint8_t *data, size_t size, int length_size) {
    size_t offset = 0;
    while (offset < size) {
        if ((size_t)length_size > size - offset) return -1;
        size_t length = 0;
        for (int i = 0; i < length_size; i++) length = length << 8 | data[offset + i];
        offset += (size_t)length_size;
        if (length == 0 || length > size - offset || length > 0x7FFFFFFF) return -1;
        if (p_de265_push_NAL(context, data + offset, (int)length, 0, NULL) != DE265_OK) return -1;
        offset += length;
    }
    return 0;
}

int imgprep_hevc_decode(const uint8_t *headers, size_t headers_size, const uint8_t *data, size_t size, int length_size,
                        imgprep_hevc_picture *out, char *message, size_t capacity) {
    memset(out, 0, sizeof *out);
    pthread_once(&load_once, load);
    if (load_failure[0] != 0) return fail(message, capacity, "libde265 cannot be loaded", load_failure);
    if (length_size < 1 || length_size > 4) return fail(message, capacity, "bad NAL unit length size", NULL);
    de265_decoder_context *context = p_de265_new_decoder();
    if (context == NULL) return fail(message, capacity, "out of memory", NULL);
    if (push_units(context, headers, headers_size, 4) != 0 || push_units(context, data, size, length_size) != 0) {
        p_de265_free_decoder(context);
        return fail(message, capacity, "the tile's NAL units overrun its data", NULL);
    }
    p_de265_flush_data(context);
    const struct de265_image *image = NULL;
    int more = 1;
    de265_error error = DE265_OK;
    while (more && image == NULL) {
        more = 0;
        error = p_de265_decode(context, &more);
        if (error != DE265_OK && !(more && error == DE265_ERROR_WAITING_FOR_INPUT_DATA)) break;
        image = p_de265_get_next_picture(context);
    }
    // A damaged tile fails the file (libheif's strict decoding): an error, or any warning on the way.
    de265_error warning = p_de265_get_warning(context);
    if (image == NULL || (error != DE265_OK && error != DE265_ERROR_WAITING_FOR_INPUT_DATA) || warning != DE265_OK) {
        const char *text = p_de265_get_error_text(image == NULL && error == DE265_OK ? warning : error != DE265_OK ? error : warning);
        int result = fail(message, capacity, image == NULL ? "the tile decoded to no picture" : "the tile is damaged", text);
        p_de265_free_decoder(context);
        return result;
    }
    out->context = context;
    out->chroma = (int)p_de265_get_chroma_format(image);
    for (int channel = 0; channel < 3; channel++) {
        int stride = 0;
        out->planes[channel] = p_de265_get_image_plane(image, channel, &stride);
        out->strides[channel] = stride;
        out->widths[channel] = p_de265_get_image_width(image, channel);
        out->heights[channel] = p_de265_get_image_height(image, channel);
        out->depths[channel] = p_de265_get_bits_per_pixel(image, channel);
    }
    out->full_range = p_de265_get_image_full_range_flag(image);
    out->matrix = p_de265_get_image_matrix_coefficients(image);
    return 0;
}

void imgprep_hevc_release(imgprep_hevc_picture *picture) {
    if (picture->context == NULL) return;
    p_de265_release_next_picture(picture->context);
    p_de265_free_decoder(picture->context);
    picture->context = NULL;
}
