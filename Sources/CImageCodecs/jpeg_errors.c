/* The libjpeg error manager (errors longjmp, warnings recorded), the scan limit and the damage checks. */
#include <string.h>
#include <jerror.h>

#include "jpeg_internal.h"

int cic_jpeg_fail(char *err, size_t errlen, const char *message) {
    if (err != NULL && errlen > 0) snprintf(err, errlen, "%s", message);
    return 1;
}

/* ---- Errors and warnings ---------------------------------------------------------------- */

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
        if (e->phase == PHASE_HEADER) {
            e->eof_in_header = 1;
        } else if (!e->eof_in_decode) {
            e->eof_in_decode = 1;
            /* The row of blocks being decoded when the data ran out: its left part may be real, the
             * rest of the picture from its top is grey. */
            j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
#if JPEG_LIB_VERSION >= 70
            long rows_per_imcu = (long)dinfo->max_v_samp_factor * dinfo->min_DCT_v_scaled_size;
#else
            long rows_per_imcu = (long)dinfo->max_v_samp_factor * dinfo->min_DCT_scaled_size;
#endif
            e->eof_row = (long)dinfo->input_iMCU_row * rows_per_imcu;
        }
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

struct jpeg_error_mgr *cic_jpeg_error_mgr_init(cic_jpeg_error *e) {
    memset(e, 0, sizeof *e);
    jpeg_std_error(&e->pub);
    e->pub.error_exit = on_error_exit;
    e->pub.emit_message = on_emit_message;
    e->pub.output_message = on_output_message;
    return &e->pub;
}

/* A progressive file may hold any number of scans, each a full pass over the picture's
 * coefficients: a few kilobytes of tiny scans would keep the decoder busy for minutes. Real
 * encoders write at most a few dozen (libjpeg-turbo's own fuzzers stop at 500). */
#define MAX_SCANS 256

void cic_jpeg_limit_scans(j_common_ptr cinfo) {
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
const char *cic_jpeg_damage(j_decompress_ptr cinfo, cic_jpeg_error *e) {
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
