/* Checking and re-writing a JPEG's coefficients (no decode to pixels): lossless re-coding. */
#include <stdlib.h>
#include <string.h>

#include "CImageCodecs.h"
#include "jpeg_internal.h"

/* ---- Re-writing coefficients -------------------------------------------------------------- */

int cic_jpeg_check(const uint8_t *data, size_t size, char *err, size_t errlen) {
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
    jerr.phase = PHASE_DECODE;
    jpeg_read_coefficients(&cinfo);   /* entropy decoding only: no IDCT, no colour */
    const char *problem = cic_jpeg_damage(&cinfo, &jerr);
    int status = problem != NULL ? cic_jpeg_fail(err, errlen, problem) : 0;
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
    src.err = cic_jpeg_error_mgr_init(&jerr);
    dst.err = &jerr.pub;   /* one error manager: either side longjmps here */
    if (setjmp(jerr.jump)) {
        jpeg_destroy_compress(&dst);
        jpeg_destroy_decompress(&src);
        free(dest.buffer);
        return cic_jpeg_fail(err, errlen, jerr.message);
    }
    jpeg_create_decompress(&src);
    jpeg_create_compress(&dst);
    jpeg_mem_src(&src, data, (unsigned long)size);
    jpeg_read_header(&src, TRUE);
    jerr.phase = PHASE_DECODE;
    jvirt_barray_ptr *coefficients = jpeg_read_coefficients(&src);
    const char *problem = cic_jpeg_damage(&src, &jerr);
    if (problem != NULL) {
        cic_jpeg_fail(err, errlen, problem);
        jpeg_destroy_compress(&dst);
        jpeg_destroy_decompress(&src);
        return 1;
    }

    dest.pub.init_destination = cic_jpeg_dest_init;
    dest.pub.empty_output_buffer = cic_jpeg_dest_grow;
    dest.pub.term_destination = cic_jpeg_dest_term;
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
