/* libpng behind setjmp: see CImageCodecs.h for the contract. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>

#include "CImageCodecs.h"

#define XMP_KEYWORD "XML:com.adobe.xmp"

/* State shared with libpng's callbacks through its error and io pointers. */
typedef struct {
    char message[256];
    char warnings[256];     /* "; "-separated, truncated when long */
    const uint8_t *in;      /* reading */
    size_t in_size, in_pos;
    uint8_t *out;           /* writing: grows as libpng writes */
    size_t out_size, out_capacity;
} png_io;

static void on_error(png_structp png, png_const_charp message) {
    png_io *io = png_get_error_ptr(png);
    snprintf(io->message, sizeof io->message, "%s", message);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    png_io *io = png_get_error_ptr(png);
    size_t used = strlen(io->warnings);
    snprintf(io->warnings + used, sizeof io->warnings - used, "%s%s", used ? "; " : "", message);
}

/* The error, followed by the warnings that came before it: they often say what went wrong
 * first (a CRC mismatch before "Not enough image data", say). */
static int fail_io(const png_io *io, char *err, size_t errlen) {
    if (err != NULL && errlen > 0) {
        if (io->warnings[0] != '\0')
            snprintf(err, errlen, "%s (after warnings: %s)", io->message, io->warnings);
        else
            snprintf(err, errlen, "%s", io->message);
    }
    return 1;
}

static int fail(char *err, size_t errlen, const char *message) {
    if (err != NULL && errlen > 0) snprintf(err, errlen, "%s", message);
    return 1;
}

/* ---- Decoding --------------------------------------------------------------------------- */

static void read_bytes(png_structp png, png_bytep dest, size_t length) {
    png_io *io = png_get_io_ptr(png);
    if (length > io->in_size - io->in_pos) png_error(png, "file is truncated");
    memcpy(dest, io->in + io->in_pos, length);
    io->in_pos += length;
}

/* A malloc'd copy, or a png_error (which longjmps) when out of memory. */
static uint8_t *copy_or_fail(png_structp png, const void *bytes, size_t size) {
    uint8_t *copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) png_error(png, "out of memory");
    memcpy(copy, bytes, size);
    return copy;
}

static void copy_metadata(png_structp png, png_infop info, cic_png_image *image) {
    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 profile_size;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_size) != 0
        && profile_size > 0) {
        image->icc = copy_or_fail(png, profile, profile_size);
        image->icc_size = profile_size;
    }

    png_unknown_chunkp chunks;
    int chunk_count = png_get_unknown_chunks(png, info, &chunks);
    for (int i = 0; i < chunk_count && image->exif == NULL; i++) {
        if (memcmp(chunks[i].name, "eXIf", 4) == 0 && chunks[i].size > 0) {
            image->exif = copy_or_fail(png, chunks[i].data, chunks[i].size);
            image->exif_size = chunks[i].size;
        }
    }

    png_textp texts;
    int text_count = png_get_text(png, info, &texts, NULL);
    for (int i = 0; i < text_count && image->xmp == NULL; i++) {
        if (strcmp(texts[i].key, XMP_KEYWORD) == 0 && texts[i].text != NULL) {
            size_t length = strlen(texts[i].text);
            image->xmp = copy_or_fail(png, texts[i].text, length);
            image->xmp_size = length;
        }
    }
}

static int decode(const uint8_t *data, size_t size, int keep16, cic_png_image *image,
                  char *err, size_t errlen);

int cic_png_decode(const uint8_t *data, size_t size, cic_png_image *image, char *err, size_t errlen) {
    return decode(data, size, 0, image, err, errlen);
}

int cic_png_decode16(const uint8_t *data, size_t size, cic_png_image *image, char *err, size_t errlen) {
    return decode(data, size, 1, image, err, errlen);
}

static int decode(const uint8_t *data, size_t size, int keep16, cic_png_image *image,
                  char *err, size_t errlen) {
    memset(image, 0, sizeof *image);
    if (data == NULL || size < 8 || png_sig_cmp(data, 0, 8) != 0)
        return fail(err, errlen, "not a PNG file (bad signature)");

    png_io io;
    memset(&io, 0, sizeof io);
    io.in = data;
    io.in_size = size;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
    if (png == NULL) return fail(err, errlen, "out of memory");
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        return fail(err, errlen, "out of memory");
    }
    uint8_t *volatile pixels = NULL;        /* volatile: still read after a longjmp */
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(pixels);
        free(rows);
        cic_png_image_free(image);
        png_destroy_read_struct(&png, &info, NULL);
        return fail_io(&io, err, errlen);
    }
    png_set_read_fn(png, &io, read_bytes);
    /* libpng's own eXIf reader drops payloads that start with "Exif\0\0" (some writers add it);
     * keeping the chunk as unknown gets us the bytes as stored, whatever they start with. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, (png_const_bytep)"eXIf", 1);
    png_read_info(png, info);

    png_uint_32 width, height;
    int depth, color_type;
    png_get_IHDR(png, info, &width, &height, &depth, &color_type, NULL, NULL, NULL);
    int wide = depth == 16 && keep16;
    if (depth == 16 && !keep16) png_set_scale_16(png);   /* rounds; png_set_strip_16 would truncate */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (wide) png_set_swap(png);              /* PNG stores big-endian words; hand out native ones */
#endif
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS) != 0) png_set_tRNS_to_alpha(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);

    int channels = png_get_channels(png, info);
    size_t row_bytes = png_get_rowbytes(png, info);
    size_t sample_bytes = wide ? 2 : 1;
    if ((channels != 3 && channels != 4) || row_bytes != (size_t)width * (size_t)channels * sample_bytes)
        png_error(png, "unexpected pixel layout after transformations");
    pixels = malloc(row_bytes * height);
    rows = malloc(sizeof(png_bytep) * height);
    if (pixels == NULL || rows == NULL) png_error(png, "out of memory for the decoded pixels");
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + row_bytes * y;
    png_read_image(png, rows);
    png_read_end(png, info);   /* metadata may follow IDAT; also proves the file is complete */

    copy_metadata(png, info, image);
    image->pixels = pixels;
    image->width = (int)width;
    image->height = (int)height;
    image->channels = channels;
    image->bytes_per_sample = (int)sample_bytes;
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

void cic_png_image_free(cic_png_image *image) {
    if (image == NULL) return;
    free(image->pixels);
    free(image->icc);
    free(image->exif);
    free(image->xmp);
    memset(image, 0, sizeof *image);
}

/* ---- Encoding --------------------------------------------------------------------------- */

static void write_bytes(png_structp png, png_bytep bytes, size_t length) {
    png_io *io = png_get_io_ptr(png);
    if (length > io->out_capacity - io->out_size) {
        size_t capacity = io->out_capacity > 0 ? io->out_capacity : 65536;
        while (capacity - io->out_size < length) capacity *= 2;
        uint8_t *bigger = realloc(io->out, capacity);
        if (bigger == NULL) png_error(png, "out of memory for the encoded file");
        io->out = bigger;
        io->out_capacity = capacity;
    }
    memcpy(io->out + io->out_size, bytes, length);
    io->out_size += length;
}

static void flush_nothing(png_structp png) { (void)png; }

int cic_png_encode(const uint8_t *pixels, int width, int height, int channels,
                   const cic_png_options *options,
                   uint8_t **out, size_t *out_size,
                   char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    if (channels != 3 && channels != 4) return fail(err, errlen, "channels must be 3 or 4");
    if (width <= 0 || height <= 0) return fail(err, errlen, "image size out of range");
    if (options->compression_level < 0 || options->compression_level > 9)
        return fail(err, errlen, "compression level must be 0...9");

    png_io io;
    memset(&io, 0, sizeof io);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
    if (png == NULL) return fail(err, errlen, "out of memory");
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        return fail(err, errlen, "out of memory");
    }
    png_bytep *volatile rows = NULL;        /* volatile: still read after a longjmp */
    char *volatile xmp_text = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        free(xmp_text);
        free(io.out);
        png_destroy_write_struct(&png, &info);
        return fail_io(&io, err, errlen);
    }
    png_set_write_fn(png, &io, write_bytes, flush_nothing);
    png_set_compression_level(png, options->compression_level);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);

    if (options->icc != NULL && options->icc_size > 0)
        png_set_iCCP(png, info, options->icc_name != NULL ? options->icc_name : "ICC Profile",
                     PNG_COMPRESSION_TYPE_BASE, options->icc, (png_uint_32)options->icc_size);
    if (options->exif != NULL && options->exif_size > 0)
        png_set_eXIf_1(png, info, (png_uint_32)options->exif_size, (png_bytep)options->exif);
    if (options->xmp != NULL && options->xmp_size > 0) {
        /* png_set_text measures the text with strlen, so it needs a terminated copy. */
        xmp_text = malloc(options->xmp_size + 1);
        if (xmp_text == NULL) png_error(png, "out of memory");
        memcpy(xmp_text, options->xmp, options->xmp_size);
        xmp_text[options->xmp_size] = '\0';
        png_text text;
        memset(&text, 0, sizeof text);
        text.compression = PNG_ITXT_COMPRESSION_NONE;
        text.key = (png_charp)XMP_KEYWORD;
        text.text = xmp_text;
        png_set_text(png, info, &text, 1);   /* copies the text */
    }
    png_write_info(png, info);   /* everything set so far goes before IDAT */

    rows = malloc(sizeof(png_bytep) * (size_t)height);
    if (rows == NULL) png_error(png, "out of memory");
    size_t row_bytes = (size_t)width * (size_t)channels;
    for (int y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + row_bytes * (size_t)y);
    png_write_image(png, rows);
    png_write_end(png, NULL);

    *out = io.out;
    *out_size = io.out_size;
    free(rows);
    free(xmp_text);
    png_destroy_write_struct(&png, &info);
    return 0;
}
