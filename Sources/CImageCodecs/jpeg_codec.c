/* libjpeg(-turbo) behind setjmp: see CImageCodecs.h for the contract. */
#include <stdio.h>   /* jpeglib.h needs FILE and size_t declared first */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

#include "CImageCodecs.h"

void cic_free(void *p) { free(p); }

static int fail(char *err, size_t errlen, const char *message) {
    if (err != NULL && errlen > 0) snprintf(err, errlen, "%s", message);
    return 1;
}

/* ---- Errors and warnings ---------------------------------------------------------------- */

enum phase { PHASE_HEADER, PHASE_DECODE };

typedef struct {
    struct jpeg_error_mgr pub;   /* first, so a j_common_ptr's err can be cast to this */
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    /* Decoding only: libjpeg reports missing or damaged data as warnings and fills in grey,
     * so the warnings are recorded here and judged once the pixels are read. */
    enum phase phase;
    int eof_in_header;
    int eof_in_decode;
    char eof_message[JMSG_LENGTH_MAX];
    char corrupt_message[JMSG_LENGTH_MAX];   /* first damaged-data warning while decoding */
} cic_jpeg_error;

static void on_error_exit(j_common_ptr cinfo) {
    cic_jpeg_error *e = (cic_jpeg_error *)cinfo->err;
    cinfo->err->format_message(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level != -1) return;   /* >= 0 are trace messages */
    cic_jpeg_error *e = (cic_jpeg_error *)cinfo->err;
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF) {
        /* jpeg_mem_src then feeds a fake EOI, so decoding carries on with no data. */
        if (e->phase == PHASE_HEADER) e->eof_in_header = 1;
        else e->eof_in_decode = 1;
        cinfo->err->format_message(cinfo, e->eof_message);
    } else if (e->phase == PHASE_DECODE && code != JWRN_ADOBE_XFORM && code != JWRN_JFIF_MAJOR
               && e->corrupt_message[0] == '\0') {
        /* Everything else met while reading entropy-coded data means damaged data (bad Huffman
         * code, data segment cut short, missing RST, junk inside the scans, bad progression).
         * Junk between header segments (before the first SOS) is harmless and ignored. */
        cinfo->err->format_message(cinfo, e->corrupt_message);
    }
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; /* never print */ }

static struct jpeg_error_mgr *error_mgr_init(cic_jpeg_error *e) {
    memset(e, 0, sizeof *e);
    jpeg_std_error(&e->pub);
    e->pub.error_exit = on_error_exit;
    e->pub.emit_message = on_emit_message;
    e->pub.output_message = on_output_message;
    return &e->pub;
}

/* ---- Decoding --------------------------------------------------------------------------- */

/* A progressive file may hold any number of scans, each a full pass over the picture's
 * coefficients: a few kilobytes of tiny scans would keep the decoder busy for minutes. Real
 * encoders write at most a few dozen (libjpeg-turbo's own fuzzers stop at 500). */
#define MAX_SCANS 256

static void limit_scans(j_common_ptr cinfo) {
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (dinfo->input_scan_number > MAX_SCANS) {
        cic_jpeg_error *e = (cic_jpeg_error *)cinfo->err;
        snprintf(e->message, sizeof e->message, "more than %d scans (real files have a few dozen at most)", MAX_SCANS);
        longjmp(e->jump, 1);
    }
}

/* In progressive mode coef_bits[c][k] is the successive-approximation bit that coefficient k of
 * component c has been refined to: -1 never sent, 0 complete. */
static int progressive_scans_complete(j_decompress_ptr cinfo) {
    if (cinfo->coef_bits == NULL) return 0;
    for (int c = 0; c < cinfo->num_components; c++)
        for (int k = 0; k < DCTSIZE2; k++)
            if (cinfo->coef_bits[c][k] != 0) return 0;
    return 1;
}

/* Markers that may follow a complete scan: EOI, tables, DRI, DNL, APPn, COM. */
static int may_follow_scan(int marker) {
    return marker == 0 || marker == JPEG_EOI || marker == 0xC4 || marker == 0xCC
        || (marker >= 0xDB && marker <= 0xDD) || (marker >= JPEG_APP0 && marker <= JPEG_APP0 + 15)
        || marker == JPEG_COM;
}

/* The message to fail with, or NULL when every pixel came from real data. */
static const char *damage(j_decompress_ptr cinfo, cic_jpeg_error *e) {
    if (e->eof_in_header) return e->eof_message;
    if (e->corrupt_message[0] != '\0')
        return e->eof_in_decode ? e->eof_message : e->corrupt_message;
    /* Arithmetic-coded data may legally run into a marker (the decoder then supplies zeros), so
     * data cut short only shows in which marker stopped it: a SOF, say, means damage. */
    if (cinfo->arith_code && !may_follow_scan(cinfo->unread_marker)) {
        snprintf(e->corrupt_message, sizeof e->corrupt_message,
                 "Corrupt JPEG data: marker 0x%02x inside the compressed data", cinfo->unread_marker);
        return e->corrupt_message;
    }
    if (!e->eof_in_decode) return NULL;
    /* The file ended early but no data segment was cut short. For a single Huffman-coded scan
     * that proves every block was decoded (the decoder warns JWRN_HIT_MARKER when it runs out
     * of bits), so only EOI was missing. A progressive file must also have received every
     * scan. Multi-scan sequential and arithmetic-coded files cannot be checked: refuse them. */
    if (cinfo->progressive_mode) return progressive_scans_complete(cinfo) ? NULL : e->eof_message;
    if (cinfo->arith_code || jpeg_has_multiple_scans(cinfo)) return e->eof_message;
    return NULL;
}

/* Ends a decode once every scanline is read: hands `buffer` out through `out`, or frees it and fails
 * when the picture data was damaged. Not jpeg_finish_decompress: what follows the last scanline (EOI,
 * trailing data such as an Ultra HDR gain map) does not matter. */
static int finish_decode(struct jpeg_decompress_struct *cinfo, cic_jpeg_error *jerr, uint8_t *buffer,
                         uint8_t **out, int *width, int *height, char *err, size_t errlen) {
    const char *problem = damage(cinfo, jerr);
    if (problem != NULL) {
        fail(err, errlen, problem);
        free(buffer);
        jpeg_destroy_decompress(cinfo);
        return 1;
    }
    *out = buffer;
    *width = (int)cinfo->output_width;
    *height = (int)cinfo->output_height;
    jpeg_destroy_decompress(cinfo);
    return 0;
}

int cic_jpeg_read_header(const uint8_t *data, size_t size,
                         int *width, int *height, int *components,
                         char *err, size_t errlen) {
    struct jpeg_decompress_struct cinfo;
    cic_jpeg_error jerr;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return fail(err, errlen, jerr.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    *width = (int)cinfo.image_width;
    *height = (int)cinfo.image_height;
    *components = cinfo.num_components;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

/* Adobe applications write CMYK inverted (0 = full ink); libjpeg hands samples over as stored. */
static void cmyk_to_rgb(const JSAMPLE *cmyk, uint8_t *rgb, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++, cmyk += 4, rgb += 3) {
        unsigned k = inverted ? cmyk[3] : 255u - cmyk[3];
        for (int i = 0; i < 3; i++) {
            unsigned c = inverted ? cmyk[i] : 255u - cmyk[i];
            rgb[i] = (uint8_t)((c * k + 127) / 255);
        }
    }
}

int cic_jpeg_decode(const uint8_t *data, size_t size, int scale_denom,
                    uint8_t **pixels, int *width, int *height,
                    char *err, size_t errlen) {
    struct jpeg_decompress_struct cinfo;
    cic_jpeg_error jerr;
    struct jpeg_progress_mgr progress = { limit_scans, 0, 0, 0, 0 };   /* libjpeg counts passes in it */
    uint8_t *volatile buffer = NULL;   /* volatile: still read after a longjmp */

    *pixels = NULL;
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8)
        return fail(err, errlen, "scale denominator must be 1, 2, 4 or 8");
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        free(buffer);
        jpeg_destroy_decompress(&cinfo);
        return fail(err, errlen, jerr.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);

    jerr.phase = PHASE_DECODE;
    cinfo.progress = &progress;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)scale_denom;
    cinfo.dct_method = JDCT_ISLOW;
    int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;   /* libjpeg turns gray into RGB itself */
    jpeg_start_decompress(&cinfo);   /* reads the whole file when it has several scans */

    JDIMENSION w = cinfo.output_width, h = cinfo.output_height;
    size_t row_bytes = (size_t)w * 3;
    buffer = malloc(row_bytes * h);
    if (buffer == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return fail(err, errlen, "out of memory for the decoded pixels");
    }
    JSAMPARRAY cmyk_row = cmyk
        ? (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE, w * 4, 1) : NULL;
    while (cinfo.output_scanline < h) {
        uint8_t *row = buffer + row_bytes * cinfo.output_scanline;
        if (cmyk) {
            jpeg_read_scanlines(&cinfo, cmyk_row, 1);
            cmyk_to_rgb(cmyk_row[0], row, w, cinfo.saw_Adobe_marker);
        } else {
            /* Straight into the output: as many rows as libjpeg will give per call. */
            JSAMPROW rows[16];
            JDIMENSION n = h - cinfo.output_scanline < 16 ? h - cinfo.output_scanline : 16;
            for (JDIMENSION i = 0; i < n; i++) rows[i] = row + row_bytes * i;
            jpeg_read_scanlines(&cinfo, rows, n);
        }
    }

    return finish_decode(&cinfo, &jerr, buffer, pixels, width, height, err, errlen);
}

int cic_jpeg_decode_ycbcr420(const uint8_t *data, size_t size, uint8_t **planes,
                             int *width, int *height, char *err, size_t errlen) {
    struct jpeg_decompress_struct cinfo;
    cic_jpeg_error jerr;
    struct jpeg_progress_mgr progress = { limit_scans, 0, 0, 0, 0 };   /* libjpeg counts passes in it */
    uint8_t *volatile buffer = NULL;   /* volatile: still read after a longjmp */

    *planes = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        free(buffer);
        jpeg_destroy_decompress(&cinfo);
        return fail(err, errlen, jerr.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    const jpeg_component_info *c = cinfo.comp_info;
    if (cinfo.jpeg_color_space != JCS_YCbCr || cinfo.num_components != 3
        || c[0].h_samp_factor != 2 || c[0].v_samp_factor != 2
        || c[1].h_samp_factor != 1 || c[1].v_samp_factor != 1
        || c[2].h_samp_factor != 1 || c[2].v_samp_factor != 1) {
        jpeg_destroy_decompress(&cinfo);
        return CIC_NOT_YCBCR420;
    }

    jerr.phase = PHASE_DECODE;
    cinfo.progress = &progress;
    cinfo.raw_data_out = TRUE;
    cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&cinfo);   /* reads the whole file when it has several scans */

    const JDIMENSION w = cinfo.output_width, h = cinfo.output_height;
    const JDIMENSION cw = (w + 1) / 2, ch = (h + 1) / 2;
    buffer = malloc((size_t)w * h + 2 * (size_t)cw * ch);
    if (buffer == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return fail(err, errlen, "out of memory for the decoded pixels");
    }
    uint8_t *out[3] = { buffer, buffer + (size_t)w * h, buffer + (size_t)w * h + (size_t)cw * ch };
    const JDIMENSION out_width[3] = { w, cw, cw }, out_height[3] = { h, ch, ch };
    /* The raw interface hands out whole MCU rows (16 luma, 8 chroma rows) of whole blocks. */
    JSAMPARRAY bands[3];
    for (int i = 0; i < 3; i++)
        bands[i] = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                              cinfo.comp_info[i].width_in_blocks * DCTSIZE, i == 0 ? 16 : 8);
    while (cinfo.output_scanline < h) {
        const JDIMENSION top = cinfo.output_scanline;
        jpeg_read_raw_data(&cinfo, bands, 16);
        for (int i = 0; i < 3; i++) {
            const JDIMENSION first = i == 0 ? top : top / 2, rows = i == 0 ? 16 : 8;
            for (JDIMENSION r = 0; r < rows && first + r < out_height[i]; r++)
                memcpy(out[i] + (size_t)(first + r) * out_width[i], bands[i][r], out_width[i]);
        }
    }

    return finish_decode(&cinfo, &jerr, buffer, planes, width, height, err, errlen);
}

/* ---- Encoding --------------------------------------------------------------------------- */

/* A growable in-memory destination. Unlike jpeg_mem_dest's, its buffer stays reachable after
 * an error, so it can be freed. */
typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;
    size_t capacity;
    size_t size;            /* set when the encode finishes */
} growing_dest;

static void dest_init(j_compress_ptr cinfo) {
    growing_dest *dest = (growing_dest *)cinfo->dest;
    /* A first guess of 1 byte per 8 pixels fits most q85 photos without growing. */
    dest->capacity = (size_t)cinfo->image_width * cinfo->image_height / 8 + 65536;
    dest->buffer = malloc(dest->capacity);
    if (dest->buffer == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

static boolean dest_grow(j_compress_ptr cinfo) {
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

static void dest_term(j_compress_ptr cinfo) {
    growing_dest *dest = (growing_dest *)cinfo->dest;
    dest->size = dest->capacity - dest->pub.free_in_buffer;
}

/* Everything both encoders share, up to jpeg_start_compress and the marker segments. Runs under
 * the caller's setjmp: a libjpeg error longjmps back there. */
static void start_compress(struct jpeg_compress_struct *cinfo, growing_dest *dest, int width, int height,
                           J_COLOR_SPACE color_space, int raw, const cic_jpeg_options *options,
                           const cic_jpeg_segment *segments, size_t segment_count) {
    dest->pub.init_destination = dest_init;
    dest->pub.empty_output_buffer = dest_grow;
    dest->pub.term_destination = dest_term;
    cinfo->dest = &dest->pub;

    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->input_components = 3;
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
    switch (raw ? CIC_SUBSAMPLING_420 : options->subsampling) {
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
        return fail(err, errlen, "image size out of range for JPEG");
    if (options->quality < 1 || options->quality > 100)
        return fail(err, errlen, "quality must be 1...100");
    if (invalid) return fail(err, errlen, invalid);

    struct jpeg_compress_struct cinfo;
    cic_jpeg_error jerr;
    growing_dest dest;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&dest, 0, sizeof dest);
    cinfo.err = error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(dest.buffer);
        return fail(err, errlen, jerr.message);
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


/* ---- Re-writing coefficients -------------------------------------------------------------- */

int cic_jpeg_check(const uint8_t *data, size_t size, char *err, size_t errlen) {
    struct jpeg_decompress_struct cinfo;
    cic_jpeg_error jerr;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return fail(err, errlen, jerr.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    jerr.phase = PHASE_DECODE;
    jpeg_read_coefficients(&cinfo);   /* entropy decoding only: no IDCT, no colour */
    const char *problem = damage(&cinfo, &jerr);
    int status = problem != NULL ? fail(err, errlen, problem) : 0;
    jpeg_destroy_decompress(&cinfo);
    return status;
}

int cic_jpeg_recode(const uint8_t *data, size_t size, int progressive,
                    const cic_jpeg_segment *segments, size_t segment_count,
                    uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    struct jpeg_decompress_struct src;
    struct jpeg_compress_struct dst;
    cic_jpeg_error jerr;
    growing_dest dest;

    *out = NULL;
    *out_size = 0;
    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);
    memset(&dest, 0, sizeof dest);
    src.err = error_mgr_init(&jerr);
    dst.err = &jerr.pub;   /* one error manager: either side longjmps here */
    if (setjmp(jerr.jump)) {
        jpeg_destroy_compress(&dst);
        jpeg_destroy_decompress(&src);
        free(dest.buffer);
        return fail(err, errlen, jerr.message);
    }
    jpeg_create_decompress(&src);
    jpeg_create_compress(&dst);
    jpeg_mem_src(&src, data, (unsigned long)size);
    jpeg_read_header(&src, TRUE);
    jerr.phase = PHASE_DECODE;
    jvirt_barray_ptr *coefficients = jpeg_read_coefficients(&src);
    const char *problem = damage(&src, &jerr);
    if (problem != NULL) {
        fail(err, errlen, problem);
        jpeg_destroy_compress(&dst);
        jpeg_destroy_decompress(&src);
        return 1;
    }

    dest.pub.init_destination = dest_init;
    dest.pub.empty_output_buffer = dest_grow;
    dest.pub.term_destination = dest_term;
    dst.dest = &dest.pub;
    jpeg_copy_critical_parameters(&src, &dst);   /* same tables, sampling and colour space */
    dst.optimize_coding = TRUE;
    if (progressive) jpeg_simple_progression(&dst);
    jpeg_write_coefficients(&dst, coefficients);
    for (size_t i = 0; i < segment_count; i++)
        jpeg_write_marker(&dst, segments[i].marker, segments[i].data, segments[i].length);
    jpeg_finish_compress(&dst);
    jpeg_destroy_compress(&dst);
    jpeg_destroy_decompress(&src);

    *out = dest.buffer;
    *out_size = dest.size;
    return 0;
}
