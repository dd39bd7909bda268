/* Encoding RGB, RGB planes or Y'CbCr 4:2:0 planes into a growing in-memory buffer. */
#include <stdlib.h>
#include <string.h>
#include <jerror.h>

#include "CImageCodecs.h"
#include "jpeg_internal.h"

/* ---- Encoding --------------------------------------------------------------------------- */

void cic_jpeg_dest_init(j_compress_ptr cinfo) {
    growing_dest *dest = (growing_dest *)cinfo->dest;
    /* A first guess of 1 byte per 8 pixels fits most q85 photos without growing. */
    dest->capacity = (size_t)cinfo->image_width * cinfo->image_height / 8 + 65536;
    dest->buffer = malloc(dest->capacity);
    if (dest->buffer == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

boolean cic_jpeg_dest_grow(j_compress_ptr cinfo) {
    growing_dest *dest = (growing_dest *)cinfo->dest;
    size_t used = dest->capacity;   /* called only when the buffer is full */
    uint8_t *bigger = realloc(dest->buffer, used * 2);
    if (bigger == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
    dest->buffer = bigger;
    dest->capacity = used * 2;
    dest->pub.next_output_byte = bigger + used;
    dest->pub.free_in_buffer = dest->capacity - used;
    return TRUE;
}

void cic_jpeg_dest_term(j_compress_ptr cinfo) {
    growing_dest *dest = (growing_dest *)cinfo->dest;
    dest->size = dest->capacity - dest->pub.free_in_buffer;
}

/* Everything both encoders share, up to jpeg_start_compress and the marker segments. Runs under
 * the caller's setjmp: a libjpeg error longjmps back there. */
static void start_compress(struct jpeg_compress_struct *cinfo, growing_dest *dest, int width, int height,
                           J_COLOR_SPACE color_space, int raw, const cic_jpeg_options *options,
                           const cic_jpeg_segment *segments, size_t segment_count) {
    dest->pub.init_destination = cic_jpeg_dest_init;
    dest->pub.empty_output_buffer = cic_jpeg_dest_grow;
    dest->pub.term_destination = cic_jpeg_dest_term;
    cinfo->dest = &dest->pub;

    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->input_components = color_space == JCS_GRAYSCALE ? 1 : 3;
    cinfo->in_color_space = color_space;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, options->quality, TRUE);
    if (options->transpose_quant_tables) {
        for (int t = 0; t < NUM_QUANT_TBLS; t++) {
            JQUANT_TBL *table = cinfo->quant_tbl_ptrs[t];
            if (table == NULL) continue;
            for (int row = 0; row < DCTSIZE; row++)
                for (int col = row + 1; col < DCTSIZE; col++) {
                    UINT16 step = table->quantval[row * DCTSIZE + col];   /* natural order */
                    table->quantval[row * DCTSIZE + col] = table->quantval[col * DCTSIZE + row];
                    table->quantval[col * DCTSIZE + row] = step;
                }
        }
    }
    cinfo->dct_method = JDCT_ISLOW;
    jpeg_component_info *luma = &cinfo->comp_info[0];   /* chroma stays 1x1 */
    switch (color_space == JCS_GRAYSCALE ? CIC_SUBSAMPLING_444 : raw ? CIC_SUBSAMPLING_420 : options->subsampling) {
    case CIC_SUBSAMPLING_444: luma->h_samp_factor = 1; luma->v_samp_factor = 1; break;
    case CIC_SUBSAMPLING_422: luma->h_samp_factor = 2; luma->v_samp_factor = 1; break;
    default:                  luma->h_samp_factor = 2; luma->v_samp_factor = 2; break;
    }
    cinfo->raw_data_in = raw ? TRUE : FALSE;
    cinfo->optimize_coding = options->optimize_coding ? TRUE : FALSE;
    if (options->progressive) jpeg_simple_progression(cinfo);
    cinfo->write_JFIF_header = options->write_jfif ? TRUE : FALSE;

    jpeg_start_compress(cinfo, TRUE);
    for (size_t i = 0; i < segment_count; i++)
        jpeg_write_marker(cinfo, segments[i].marker, segments[i].data, segments[i].length);
}

/* Where the samples come from: interleaved RGB in planes[0], or three planes (R, G, B or Y', Cb, Cr). */
typedef struct {
    const uint8_t *planes[3];
    size_t strides[3];
} sample_source;

/* Hands every row of `source` to a started compressor. Scratch memory comes from libjpeg's image pool,
 * so an error that longjmps out of a feeder leaks nothing. */
typedef void (*row_feeder)(j_compress_ptr cinfo, const sample_source *source);

static void feed_rgb(j_compress_ptr cinfo, const sample_source *source) {
    while (cinfo->next_scanline < cinfo->image_height) {
        /* Rows straight from the caller's buffer, many per call. */
        JSAMPROW rows[64];
        JDIMENSION left = cinfo->image_height - cinfo->next_scanline;
        JDIMENSION n = left < 64 ? left : 64;
        for (JDIMENSION i = 0; i < n; i++)
            rows[i] = (JSAMPROW)(source->planes[0] + source->strides[0] * (cinfo->next_scanline + i));
        jpeg_write_scanlines(cinfo, rows, n);
    }
}

static void feed_rgb_planes(j_compress_ptr cinfo, const sample_source *source) {
    enum { BAND = 16 };   /* one 4:2:0 MCU row: the interleaved band stays in cache */
    const size_t width = cinfo->image_width;
    JSAMPARRAY band = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, (JDIMENSION)(width * 3), BAND);
    while (cinfo->next_scanline < cinfo->image_height) {
        JDIMENSION first = cinfo->next_scanline, left = cinfo->image_height - first;
        JDIMENSION n = left < BAND ? left : BAND;
        for (JDIMENSION i = 0; i < n; i++) {
            const uint8_t *r = source->planes[0] + source->strides[0] * (first + i);
            const uint8_t *g = source->planes[1] + source->strides[1] * (first + i);
            const uint8_t *b = source->planes[2] + source->strides[2] * (first + i);
            JSAMPROW row = band[i];
            for (size_t x = 0; x < width; x++) {
                row[3 * x] = r[x];
                row[3 * x + 1] = g[x];
                row[3 * x + 2] = b[x];
            }
        }
        jpeg_write_scanlines(cinfo, band, n);
    }
}

/* Copies one source row into a padded row (edge sample repeated). */
static void copy_row(JSAMPROW to, const uint8_t *from, int count, int padded) {
    memcpy(to, from, (size_t)count);
    for (int x = count; x < padded; x++) to[x] = to[count - 1];
}

static void feed_ycbcr420(j_compress_ptr cinfo, const sample_source *source) {
    const int width = (int)cinfo->image_width, height = (int)cinfo->image_height;
    const int chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
    /* The raw interface takes whole MCU rows (16 luma, 8 chroma rows) of whole blocks, so each band
     * is copied into padded rows with the last row and column repeated. */
    const int luma_padded = (int)cinfo->comp_info[0].width_in_blocks * DCTSIZE;
    const int chroma_padded = (int)cinfo->comp_info[1].width_in_blocks * DCTSIZE;
    JSAMPARRAY luma_rows = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, (JDIMENSION)luma_padded, 16);
    JSAMPARRAY cb_rows = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, (JDIMENSION)chroma_padded, 8);
    JSAMPARRAY cr_rows = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE, (JDIMENSION)chroma_padded, 8);
    JSAMPARRAY planes[3] = { luma_rows, cb_rows, cr_rows };
    while (cinfo->next_scanline < cinfo->image_height) {
        int top = (int)cinfo->next_scanline;
        for (int i = 0; i < 16; i++) {
            int row = top + i < height ? top + i : height - 1;
            copy_row(luma_rows[i], source->planes[0] + source->strides[0] * (size_t)row, width, luma_padded);
        }
        for (int i = 0; i < 8; i++) {
            int row = top / 2 + i < chroma_height ? top / 2 + i : chroma_height - 1;
            copy_row(cb_rows[i], source->planes[1] + source->strides[1] * (size_t)row, chroma_width, chroma_padded);
            copy_row(cr_rows[i], source->planes[2] + source->strides[2] * (size_t)row, chroma_width, chroma_padded);
        }
        jpeg_write_raw_data(cinfo, planes, 16);
    }
}

/* The one place an encode starts, catches libjpeg's errors and hands its bytes back. `invalid` is the
 * caller's complaint about its arguments, or NULL. */
static int encode(int width, int height, J_COLOR_SPACE color_space, int raw, const cic_jpeg_options *options,
                  const cic_jpeg_segment *segments, size_t segment_count,
                  row_feeder feed, const sample_source *source, const char *invalid,
                  uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION)
        return cic_jpeg_fail(err, errlen, "image size out of range for JPEG");
    if (options->quality < 1 || options->quality > 100)
        return cic_jpeg_fail(err, errlen, "quality must be 1...100");
    if (invalid) return cic_jpeg_fail(err, errlen, invalid);

    struct jpeg_compress_struct cinfo;
    cic_jpeg_error jerr;
    growing_dest dest;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&dest, 0, sizeof dest);
    cinfo.err = cic_jpeg_error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(dest.buffer);
        return cic_jpeg_fail(err, errlen, jerr.message);
    }
    jpeg_create_compress(&cinfo);
    start_compress(&cinfo, &dest, width, height, color_space, raw, options, segments, segment_count);
    feed(&cinfo, source);
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);

    *out = dest.buffer;
    *out_size = dest.size;
    return 0;
}

int cic_jpeg_encode(const uint8_t *rgb, int width, int height, size_t stride,
                    const cic_jpeg_options *options,
                    const cic_jpeg_segment *segments, size_t segment_count,
                    uint8_t **out, size_t *out_size,
                    char *err, size_t errlen) {
    const sample_source source = { { rgb }, { stride } };
    return encode(width, height, JCS_RGB, 0, options, segments, segment_count, feed_rgb, &source,
                  stride < (size_t)width * 3 ? "row stride shorter than a row" : NULL, out, out_size, err, errlen);
}

int cic_jpeg_encode_rgb_planes(const uint8_t *r, size_t r_stride, const uint8_t *g, size_t g_stride,
                               const uint8_t *b, size_t b_stride,
                               int width, int height, const cic_jpeg_options *options,
                               const cic_jpeg_segment *segments, size_t segment_count,
                               uint8_t **out, size_t *out_size,
                               char *err, size_t errlen) {
    const sample_source source = { { r, g, b }, { r_stride, g_stride, b_stride } };
    const int short_rows = r_stride < (size_t)width || g_stride < (size_t)width || b_stride < (size_t)width;
    return encode(width, height, JCS_RGB, 0, options, segments, segment_count, feed_rgb_planes, &source,
                  short_rows ? "plane stride shorter than a row" : NULL, out, out_size, err, errlen);
}

int cic_jpeg_encode_ycbcr420(const uint8_t *y, size_t y_stride,
                             const uint8_t *cb, size_t cb_stride,
                             const uint8_t *cr, size_t cr_stride,
                             int width, int height,
                             const cic_jpeg_options *options,
                             const cic_jpeg_segment *segments, size_t segment_count,
                             uint8_t **out, size_t *out_size,
                             char *err, size_t errlen) {
    const sample_source source = { { y, cb, cr }, { y_stride, cb_stride, cr_stride } };
    const size_t chroma_width = (size_t)(width + 1) / 2;
    const int short_rows = y_stride < (size_t)width || cb_stride < chroma_width || cr_stride < chroma_width;
    return encode(width, height, JCS_YCbCr, 1, options, segments, segment_count, feed_ycbcr420, &source,
                  short_rows ? "plane stride shorter than a row" : NULL, out, out_size, err, errlen);
}

int cic_jpeg_encode_gray(const uint8_t *samples, int width, int height, size_t stride,
                         const cic_jpeg_options *options,
                         const cic_jpeg_segment *segments, size_t segment_count,
                         uint8_t **out, size_t *out_size,
                         char *err, size_t errlen) {
    const sample_source source = { { samples }, { stride } };
    return encode(width, height, JCS_GRAYSCALE, 0, options, segments, segment_count, feed_rgb, &source,
                  stride < (size_t)width ? "row stride shorter than a row" : NULL, out, out_size, err, errlen);
}
