/* libpng behind setjmp: see CImageCodecs.h for the contract. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <png.h>

#include "CImageCodecs.h"

#define XMP_KEYWORD "XML:com.adobe.xmp"

/* State shared with libpng's callbacks through its error and io pointers. */
typedef struct {
    char message[256];
    char warnings[256];     /* "; "-separated, truncated when long */
    char icc_warning[256];  /* the first warning about the iCCP chunk (libpng drops a profile it rejects) */
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
    if (strncmp(message, "iCCP", 4) == 0 && io->icc_warning[0] == '\0')
        snprintf(io->icc_warning, sizeof io->icc_warning, "%s", message);
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
    } else {
        const png_io *io = png_get_error_ptr(png);
        snprintf(image->icc_problem, sizeof image->icc_problem, "%s", io->icc_warning);
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
    if (height > 0 && row_bytes > SIZE_MAX / height) png_error(png, "image too large for memory");
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

/* ---- Header and metadata only ------------------------------------------------------------ */

static uint32_t read_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int is_chunk(const uint8_t *type, const char *name) { return memcmp(type, name, 4) == 0; }

/* The file's chunks with the picture data left out, as a PNG stream that ends in an empty IDAT:
 * everything before the first IDAT, and the text and eXIf chunks after it (the ones png_read_end
 * would take). libpng then reads and checks them as it would while decoding. A chunk that does not
 * fit in the file ends the walk. Returns NULL when out of memory. */
static uint8_t *without_picture_data(const uint8_t *data, size_t size, size_t *out_size) {
    static const uint8_t empty_idat[12] = { 0, 0, 0, 0, 'I', 'D', 'A', 'T', 0x35, 0xAF, 0x06, 0x1E };
    uint8_t *out = malloc(size + sizeof empty_idat);   /* never longer than the file plus the IDAT */
    if (out == NULL) return NULL;
    memcpy(out, data, 8);
    size_t used = 8, pos = 8;
    int after_idat = 0;
    while (size - pos >= 12) {
        uint32_t length = read_be32(data + pos);
        const uint8_t *type = data + pos + 4;
        if (length > 0x7FFFFFFFu || length > size - pos - 12) break;   /* PNG lengths are 31-bit */
        size_t chunk = (size_t)length + 12;
        if (is_chunk(type, "IEND")) break;
        if (is_chunk(type, "IDAT")) {
            after_idat = 1;
        } else if (!after_idat || is_chunk(type, "tEXt") || is_chunk(type, "zTXt") || is_chunk(type, "iTXt")
                   || is_chunk(type, "eXIf")) {
            memcpy(out + used, data + pos, chunk);
            used += chunk;
        }
        pos += chunk;
    }
    memcpy(out + used, empty_idat, sizeof empty_idat);
    *out_size = used + sizeof empty_idat;
    return out;
}

int cic_png_read_info(const uint8_t *data, size_t size, cic_png_image *image, int *bit_depth,
                      char *err, size_t errlen) {
    memset(image, 0, sizeof *image);
    *bit_depth = 0;
    if (data == NULL || size < 8 || png_sig_cmp(data, 0, 8) != 0)
        return fail(err, errlen, "not a PNG file (bad signature)");

    size_t stream_size = 0;
    uint8_t *volatile stream = without_picture_data(data, size, &stream_size);   /* volatile: freed after a longjmp */
    if (stream == NULL) return fail(err, errlen, "out of memory");
    png_io io;
    memset(&io, 0, sizeof io);
    io.in = stream;
    io.in_size = stream_size;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, on_error, on_warning);
    png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        free(stream);
        return fail(err, errlen, "out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        cic_png_image_free(image);
        png_destroy_read_struct(&png, &info, NULL);
        free(stream);
        return fail_io(&io, err, errlen);
    }
    png_set_read_fn(png, &io, read_bytes);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, (png_const_bytep)"eXIf", 1);
    png_read_info(png, info);   /* stops at the (empty) IDAT: no picture data is ever inflated */

    png_uint_32 width, height;
    int depth, color_type;
    png_get_IHDR(png, info, &width, &height, &depth, &color_type, NULL, NULL, NULL);
    copy_metadata(png, info, image);
    image->width = (int)width;
    image->height = (int)height;
    image->channels = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS) != 0 ? 4 : 3;
    *bit_depth = color_type == PNG_COLOR_TYPE_PALETTE ? 8 : depth;   /* palette entries are 8-bit */
    png_destroy_read_struct(&png, &info, NULL);
    free(stream);
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

/* The XMP packet as an uncompressed iTXt chunk and each comment as a "Comment" tEXt (Latin-1) or iTXt
 * (UTF-8) chunk. png_set_text measures texts with strlen, so they are copied NUL-terminated into one
 * buffer laid out as [png_text array][texts], of text_storage_size bytes, which the caller owns (and
 * frees after a longjmp too). */
static size_t text_chunk_count(const cic_png_options *options) {
    return options->comment_count + (options->xmp != NULL && options->xmp_size > 0 ? 1 : 0);
}

static size_t text_storage_size(const cic_png_options *options) {
    size_t total = text_chunk_count(options) * sizeof(png_text);
    if (options->xmp != NULL && options->xmp_size > 0) total += options->xmp_size + 1;
    for (size_t i = 0; i < options->comment_count; i++) total += options->comments[i].size + 1;
    return total;
}

static void set_texts(png_structp png, png_infop info, const cic_png_options *options, char *storage) {
    png_text *chunks = (png_text *)storage;
    char *cursor = storage + text_chunk_count(options) * sizeof(png_text);
    size_t n = 0;
    memset(chunks, 0, text_chunk_count(options) * sizeof(png_text));
    if (options->xmp != NULL && options->xmp_size > 0) {
        memcpy(cursor, options->xmp, options->xmp_size);
        cursor[options->xmp_size] = '\0';
        chunks[n].compression = PNG_ITXT_COMPRESSION_NONE;
        chunks[n].key = (png_charp)XMP_KEYWORD;
        chunks[n++].text = cursor;
        cursor += options->xmp_size + 1;
    }
    for (size_t i = 0; i < options->comment_count; i++) {
        const cic_png_text *comment = &options->comments[i];
        memcpy(cursor, comment->text, comment->size);
        cursor[comment->size] = '\0';
        chunks[n].compression = comment->utf8 ? PNG_ITXT_COMPRESSION_NONE : PNG_TEXT_COMPRESSION_NONE;
        chunks[n].key = (png_charp)"Comment";
        chunks[n++].text = cursor;
        cursor += comment->size + 1;
    }
    png_set_text(png, info, chunks, (int)n);   /* copies the texts */
}

/* Bytes a row of `width` pixels takes in `color_type` at `bit_depth`, or 0 for a combination PNG forbids. */
static size_t png_row_bytes(int color_type, int bit_depth, int width) {
    int samples;
    switch (color_type) {
    case 0: samples = 1; break;
    case 2: samples = 3; break;
    case 3: samples = 1; break;
    case 4: samples = 2; break;
    case 6: samples = 4; break;
    default: return 0;
    }
    if (bit_depth != 8 && !(bit_depth == 1 || bit_depth == 2 || bit_depth == 4)) return 0;
    if (bit_depth != 8 && color_type != 0 && color_type != 3) return 0;
    return ((size_t)width * (size_t)samples * (size_t)bit_depth + 7) / 8;
}

int cic_png_encode_rows(const uint8_t *pixels, size_t row_bytes, int width, int height,
                        const cic_png_options *options,
                        uint8_t **out, size_t *out_size,
                        char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0) return fail(err, errlen, "image size out of range");
    if (options->compression_level < 0 || options->compression_level > 9)
        return fail(err, errlen, "compression level must be 0...9");
    size_t expected = png_row_bytes(options->color_type, options->bit_depth, width);
    if (expected == 0 || expected != row_bytes) return fail(err, errlen, "row layout does not match the colour type and bit depth");
    if (options->color_type == 3) {
        if (options->palette == NULL || options->palette_size < 1 || options->palette_size > (1 << options->bit_depth) ||
            options->palette_size > 256)
            return fail(err, errlen, "palette size out of range");
        if (options->palette_alpha_size < 0 || options->palette_alpha_size > options->palette_size ||
            (options->palette_alpha_size > 0 && options->palette_alpha == NULL))
            return fail(err, errlen, "palette transparency out of range");
    }

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
    char *volatile texts = NULL;            /* the XMP and comments, each NUL-terminated */
    if (setjmp(png_jmpbuf(png))) {
        free(rows);
        free(texts);
        free(io.out);
        png_destroy_write_struct(&png, &info);
        return fail_io(&io, err, errlen);
    }
    png_set_write_fn(png, &io, write_bytes, flush_nothing);
    /* The early HP/Microsoft sRGB profiles (cameras still embed them) fail libpng's checksum check as
     * "known incorrect": their only fault is a media white point viewers ignore, so they are written. */
#ifdef PNG_SKIP_sRGB_CHECK_PROFILE
    png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
#endif
    png_set_compression_level(png, options->compression_level);
    if (options->filters_none) png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, options->bit_depth, options->color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (options->color_type == 3) {
        png_color entries[256];
        for (int i = 0; i < options->palette_size; i++) {
            entries[i].red = options->palette[3 * i];
            entries[i].green = options->palette[3 * i + 1];
            entries[i].blue = options->palette[3 * i + 2];
        }
        png_set_PLTE(png, info, entries, options->palette_size);
        if (options->palette_alpha_size > 0)
            png_set_tRNS(png, info, options->palette_alpha, options->palette_alpha_size, NULL);
    }

    if (options->icc != NULL && options->icc_size > 0)
        png_set_iCCP(png, info, options->icc_name != NULL ? options->icc_name : "ICC Profile",
                     PNG_COMPRESSION_TYPE_BASE, options->icc, (png_uint_32)options->icc_size);
    if (options->exif != NULL && options->exif_size > 0)
        png_set_eXIf_1(png, info, (png_uint_32)options->exif_size, (png_bytep)options->exif);
    if (text_chunk_count(options) > 0) {
        texts = malloc(text_storage_size(options));
        if (texts == NULL) png_error(png, "out of memory");
        set_texts(png, info, options, texts);
    }
    png_write_info(png, info);   /* everything set so far goes before IDAT */

    rows = malloc(sizeof(png_bytep) * (size_t)height);
    if (rows == NULL) png_error(png, "out of memory");
    for (int y = 0; y < height; y++) rows[y] = (png_bytep)(pixels + row_bytes * (size_t)y);
    png_write_image(png, rows);
    png_write_end(png, NULL);

    *out = io.out;
    *out_size = io.out_size;
    free(rows);
    free(texts);
    png_destroy_write_struct(&png, &info);
    return 0;
}
