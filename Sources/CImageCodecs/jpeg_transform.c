/* Lossless JPEG turns and flips: see cic_jpeg_transform in CImageCodecs.h. TurboJPEG reports errors by
 * return value (no exit(), no longjmp out of it), so no setjmp is needed here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "CImageCodecs.h"

static int fail_tj(tjhandle handle, const char *what, char *err, size_t errlen) {
    if (err != NULL && errlen > 0) snprintf(err, errlen, "%s: %s", what, tjGetErrorStr2(handle));
    return 1;
}

/* EXIF Orientation -> the TurboJPEG operation that makes the stored picture upright. */
static int operation(int orientation) {
    switch (orientation) {
    case 2: return TJXOP_HFLIP;
    case 3: return TJXOP_ROT180;
    case 4: return TJXOP_VFLIP;
    case 5: return TJXOP_TRANSPOSE;
    case 6: return TJXOP_ROT90;
    case 7: return TJXOP_TRANSVERSE;
    case 8: return TJXOP_ROT270;
    default: return -1;
    }
}

/* libjpeg-turbo's transupp rule (jtransform_perfect_transform): a side that ends up moved to the top or
 * left edge must be whole MCUs, or its partial blocks could not move with the rest. */
static int is_perfect(int op, int width, int height, int mcu_width, int mcu_height) {
    int whole_width = width % mcu_width == 0, whole_height = height % mcu_height == 0;
    switch (op) {
    case TJXOP_HFLIP: case TJXOP_ROT270: return whole_width;
    case TJXOP_VFLIP: case TJXOP_ROT90: return whole_height;
    case TJXOP_ROT180: case TJXOP_TRANSVERSE: return whole_width && whole_height;
    default: return 1;   /* transpose moves no partial block */
    }
}

int cic_jpeg_transform(const uint8_t *data, size_t size, int orientation, int progressive,
                       const cic_jpeg_segment *segments, size_t segment_count,
                       uint8_t **out, size_t *out_size, char *err, size_t errlen) {
    *out = NULL;
    *out_size = 0;
    int op = operation(orientation);
    if (op < 0) {
        if (err != NULL && errlen > 0) snprintf(err, errlen, "orientation %d needs no transform", orientation);
        return 1;
    }
    tjhandle handle = tjInitTransform();
    if (handle == NULL) {
        if (err != NULL && errlen > 0) snprintf(err, errlen, "cannot start a transform: %s", tjGetErrorStr2(NULL));
        return 1;
    }
    int width = 0, height = 0, subsampling = -1, colorspace = -1;
    if (tjDecompressHeader3(handle, data, (unsigned long)size, &width, &height, &subsampling, &colorspace) != 0) {
        int status = fail_tj(handle, "cannot read the header", err, errlen);
        tjDestroy(handle);
        return status;
    }
    if (subsampling < 0 || subsampling >= TJ_NUMSAMP
        || !is_perfect(op, width, height, tjMCUWidth[subsampling], tjMCUHeight[subsampling])) {
        tjDestroy(handle);
        return CIC_NOT_PERFECT;
    }

    tjtransform transform;
    memset(&transform, 0, sizeof transform);
    transform.op = op;
    /* PERFECT: fail rather than leave edge blocks unturned (the check above should make it moot).
     * COPYNONE: the metadata is ours to write. */
    transform.options = TJXOPT_PERFECT | TJXOPT_COPYNONE;
    unsigned char *turned = NULL;
    unsigned long turned_size = 0;
    /* STOPONWARNING: damaged data fails instead of turning grey. LIMITSCANS: a progressive file with
     * hundreds of scans (a known denial of service) is refused. */
    if (tjTransform(handle, data, (unsigned long)size, 1, &turned, &turned_size, &transform,
                    TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0) {
        int status = fail_tj(handle, "cannot transform", err, errlen);
        tjFree(turned);
        tjDestroy(handle);
        return status;
    }
    tjDestroy(handle);
    /* TurboJPEG 2.x writes the turned coefficients with standard Huffman tables; re-write them with
     * optimal ones (or progressive) and our segments. */
    int status = cic_jpeg_recode(turned, (size_t)turned_size, progressive, segments, segment_count,
                                 out, out_size, err, errlen);
    tjFree(turned);
    return status;
}
