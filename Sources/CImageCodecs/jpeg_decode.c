/* Decoding to RGB or to Y'CbCr 4:2:0 planes, and reading the header alone. */
#include <stdlib.h>
#include <string.h>

#include "CImageCodecs.h"
#include "jpeg_internal.h"

/* ---- Decoding --------------------------------------------------------------------------- */

/* Ends a decode once every scanline is read: hands `buffer` out through `out`, or frees it and fails
 * when the picture data was damaged. Reads on to the EOI first: a damaged scan can decode to the last
 * block without a warning and leave bytes it never used, which libjpeg only reports on reaching the next
 * marker ("extraneous bytes before marker"). Whatever follows the EOI (an Ultra HDR gain map) is not read.
 * Must be called under the caller's setjmp: reading the markers may fail. */
static int finish_decode(struct jpeg_decompress_struct *cinfo, cic_jpeg_error *jerr, uint8_t *buffer,
                         uint8_t **out, int *width, int *height, int allow_truncated, int *rows_missing,
                         char *err, size_t errlen) {
    /* What jpeg_finish_decompress does, without freeing the state cic_jpeg_damage reads. Each call
     * reads a marker; jpeg_mem_src ends the data with a fake EOI, so this stops. */
    while (!jpeg_input_complete(cinfo))
        if (jpeg_consume_input(cinfo) == JPEG_SUSPENDED) break;
    const char *problem = cic_jpeg_damage(cinfo, jerr);
    /* Opted in: a file that only ends early keeps what decoded (libjpeg fills the rest with grey). */
    *rows_missing = 0;
    if (problem != NULL && allow_truncated && jerr->eof_in_decode && !jerr->eof_in_header) {
        problem = NULL;
        long reached = jerr->eof_row < (long)cinfo->output_height ? jerr->eof_row : (long)cinfo->output_height;
        *rows_missing = cinfo->progressive_mode || jpeg_has_multiple_scans(cinfo)
            ? -1 : (int)((long)cinfo->output_height - reached);
    }
    if (problem != NULL) {
        cic_jpeg_fail(err, errlen, problem);
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
    cinfo.err = cic_jpeg_error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return cic_jpeg_fail(err, errlen, jerr.message);
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
                    int allow_truncated, int *rows_missing, char *err, size_t errlen) {
    struct jpeg_decompress_struct cinfo;
    cic_jpeg_error jerr;
    struct jpeg_progress_mgr progress = { cic_jpeg_limit_scans, 0, 0, 0, 0 };   /* libjpeg counts passes in it */
    uint8_t *volatile buffer = NULL;   /* volatile: still read after a longjmp */

    *pixels = NULL;
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8)
        return cic_jpeg_fail(err, errlen, "scale denominator must be 1, 2, 4 or 8");
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = cic_jpeg_error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        free(buffer);
        jpeg_destroy_decompress(&cinfo);
        return cic_jpeg_fail(err, errlen, jerr.message);
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
        return cic_jpeg_fail(err, errlen, "out of memory for the decoded pixels");
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

    return finish_decode(&cinfo, &jerr, buffer, pixels, width, height, allow_truncated, rows_missing, err, errlen);
}

int cic_jpeg_decode_ycbcr420(const uint8_t *data, size_t size, uint8_t **planes,
                             int *width, int *height, int allow_truncated, int *rows_missing,
                             char *err, size_t errlen) {
    struct jpeg_decompress_struct cinfo;
    cic_jpeg_error jerr;
    struct jpeg_progress_mgr progress = { cic_jpeg_limit_scans, 0, 0, 0, 0 };   /* libjpeg counts passes in it */
    uint8_t *volatile buffer = NULL;   /* volatile: still read after a longjmp */

    *planes = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = cic_jpeg_error_mgr_init(&jerr);
    if (setjmp(jerr.jump)) {
        free(buffer);
        jpeg_destroy_decompress(&cinfo);
        return cic_jpeg_fail(err, errlen, jerr.message);
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
        return cic_jpeg_fail(err, errlen, "out of memory for the decoded pixels");
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

    return finish_decode(&cinfo, &jerr, buffer, planes, width, height, allow_truncated, rows_missing, err, errlen);
}
