/*
 * CImageCodecs: setjmp-guarded calls into libjpeg(-turbo) and libpng, lossless JPEG transforms through
 * TurboJPEG, plus the C needs that Swift cannot meet itself: the resize filter's inner loops built per
 * CPU level, the RGB to Y'CbCr loop for libheif's encoders, glibc's allocator settings, close-on-exec
 * pipes for worker processes, SHA-256 (Foundation on Linux has none; the fast path needs a CPU target),
 * and the versions of the libraries loaded.
 *
 * Both libraries report fatal errors by exit() or longjmp, which Swift cannot catch, so every
 * entry point here catches them and returns 0 on success or nonzero on failure, with the
 * library's message copied into the caller's `err` buffer (always NUL-terminated when
 * errlen > 0). Nothing here prints to stdout or stderr.
 *
 * Pixels are 8 bits per sample, interleaved and tightly packed (row bytes = width * channels) unless
 * a function says planes or strides.
 * Every buffer handed back is malloc'd and must be released with cic_free (or the matching
 * *_free function for structs).
 */
#ifndef CIMAGECODECS_H
#define CIMAGECODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Releases a buffer returned by any function below. NULL is allowed. */
void cic_free(void *p);

/* ---- JPEG ------------------------------------------------------------------------------- */

/* Reads only the headers (up to the first SOS): image size and number of components.
 * Cheap enough to check a pixel cap before decoding. */
int cic_jpeg_read_header(const uint8_t *data, size_t size,
                         int *width, int *height, int *components,
                         char *err, size_t errlen);

/* Decodes to 8-bit RGB (3 channels) whatever the source colour space (gray, YCbCr, RGB, CMYK,
 * YCCK). scale_denom is 1, 2, 4 or 8: libjpeg's DCT scaling decodes straight to about
 * 1/scale_denom of the size, which is much cheaper than decoding at full size then shrinking.
 *
 * Damaged data is an error, never grey fill: the decode fails if entropy-coded data is missing
 * or corrupt, if a progressive file ends before every scan arrived, if a multi-scan sequential
 * or arithmetic-coded file ends early at all (their completeness cannot be checked), or if
 * arithmetic-coded data runs into a marker that cannot follow a scan. A file that only lacks
 * its final EOI marker, or has junk between header segments, decodes.
 * With allow_truncated, a file whose data ends early (and is not otherwise damaged) decodes too, the
 * rest grey: *rows_missing is then the rows at the bottom the data never reached (-1 when the file has
 * several scans and the whole picture lacks some of them), 0 for a whole file.
 * On success *pixels holds width * height * 3 bytes (free with cic_free). */
int cic_jpeg_decode(const uint8_t *data, size_t size, int scale_denom,
                    uint8_t **pixels, int *width, int *height,
                    int allow_truncated, int *rows_missing, char *err, size_t errlen);

/* Returned by cic_jpeg_decode_ycbcr420 for a file that is not Y'CbCr 4:2:0 (no message set). */
#define CIC_NOT_YCBCR420 2

/* Decodes a Y'CbCr 4:2:0 JPEG to its planes without colour conversion or upsampling (libjpeg's
 * raw-data interface), with the same damage rules as cic_jpeg_decode. *planes is one buffer
 * (free with cic_free): luma width*height, then Cb and Cr, ((width+1)/2)*((height+1)/2) each. */
int cic_jpeg_decode_ycbcr420(const uint8_t *data, size_t size, uint8_t **planes,
                             int *width, int *height, int allow_truncated, int *rows_missing,
                             char *err, size_t errlen);

typedef enum {
    CIC_SUBSAMPLING_420 = 0,
    CIC_SUBSAMPLING_422 = 1,
    CIC_SUBSAMPLING_444 = 2
} cic_subsampling;

typedef struct {
    int quality;            /* 1...100, libjpeg's scale */
    cic_subsampling subsampling;
    int optimize_coding;    /* nonzero: optimal Huffman tables (an extra pass, smaller file) */
    int progressive;        /* nonzero: progressive scans (implies optimal Huffman tables) */
    int write_jfif;         /* nonzero: write the JFIF APP0 header right after SOI */
    int transpose_quant_tables; /* nonzero: quantize row frequencies as the standard tables do columns */
} cic_jpeg_options;

/* One marker segment, written verbatim after SOI (and JFIF APP0) in the order given.
 * length <= 65533 (the marker's length field is added by libjpeg). */
typedef struct {
    int marker;             /* e.g. 0xE1 for APP1 */
    const uint8_t *data;
    unsigned int length;
} cic_jpeg_segment;

/* Encodes width * height 8-bit RGB pixels (rows `stride` bytes apart; read in place, never
 * copied). Stateless: keeping a compressor alive across encodes was measured to save nothing.
 * On success *out holds *out_size bytes of JPEG (free with cic_free). */
int cic_jpeg_encode(const uint8_t *rgb, int width, int height, size_t stride,
                    const cic_jpeg_options *options,
                    const cic_jpeg_segment *segments, size_t segment_count,
                    uint8_t **out, size_t *out_size,
                    char *err, size_t errlen);

/* Like cic_jpeg_encode for one grey sample per pixel (a one-component JPEG; subsampling ignored). */
int cic_jpeg_encode_gray(const uint8_t *samples, int width, int height, size_t stride,
                         const cic_jpeg_options *options,
                         const cic_jpeg_segment *segments, size_t segment_count,
                         uint8_t **out, size_t *out_size,
                         char *err, size_t errlen);

/* Like cic_jpeg_encode for RGB held as three planes (libheif's planar output), rows `*_stride`
 * bytes apart: rows are interleaved a band at a time, so no full-size RGB copy is ever made. */
int cic_jpeg_encode_rgb_planes(const uint8_t *r, size_t r_stride, const uint8_t *g, size_t g_stride,
                               const uint8_t *b, size_t b_stride,
                               int width, int height, const cic_jpeg_options *options,
                               const cic_jpeg_segment *segments, size_t segment_count,
                               uint8_t **out, size_t *out_size,
                               char *err, size_t errlen);
/* Encodes 8-bit Y'CbCr 4:2:0 planes as a 4:2:0 JPEG without any colour conversion or resampling
 * (libjpeg's raw-data interface): chroma planes are (width+1)/2 x (height+1)/2, full range as JPEG
 * stores them. options->subsampling is ignored (always 4:2:0). Same output rules as above. */
int cic_jpeg_encode_ycbcr420(const uint8_t *y, size_t y_stride,
                             const uint8_t *cb, size_t cb_stride,
                             const uint8_t *cr, size_t cr_stride,
                             int width, int height,
                             const cic_jpeg_options *options,
                             const cic_jpeg_segment *segments, size_t segment_count,
                             uint8_t **out, size_t *out_size,
                             char *err, size_t errlen);
/* Reads every DCT coefficient (entropy decoding only, no pixels) and judges the data by
 * cic_jpeg_decode's rules: 0 when a decode would succeed, else its error. For files passed on without
 * decoding, so a truncated JPEG fails as it would when re-encoded. */
int cic_jpeg_check(const uint8_t *data, size_t size, char *err, size_t errlen);

/* Re-writes a JPEG's DCT coefficients without decoding them (nothing is requantized): optimal Huffman
 * tables, progressive scans when `progressive` is nonzero, the same quantization tables, sampling and
 * colour space, and `segments` written after SOI (and JFIF APP0) in place of every other marker segment.
 * Damaged data is an error, as in cic_jpeg_decode. Same output rules as the encoders. */
int cic_jpeg_recode(const uint8_t *data, size_t size, int progressive,
                    const cic_jpeg_segment *segments, size_t segment_count,
                    uint8_t **out, size_t *out_size, char *err, size_t errlen);

/* Returned by cic_jpeg_transform when the turn cannot be lossless (no message set). */
#define CIC_NOT_PERFECT 3

/* Turns or flips a JPEG upright without decoding it, as `jpegtran -perfect` does (libjpeg-turbo's
 * TurboJPEG tjTransform moves the DCT coefficients), then re-writes it with cic_jpeg_recode's rules.
 * `orientation` is the EXIF Orientation (2...8) to undo. Returns CIC_NOT_PERFECT when a partial MCU
 * at an edge would have to move (the side that becomes the top or left is not a multiple of the MCU
 * size, 8 or 16 pixels) or the sampling is one TurboJPEG does not know. */
int cic_jpeg_transform(const uint8_t *data, size_t size, int orientation, int progressive,
                       const cic_jpeg_segment *segments, size_t segment_count,
                       uint8_t **out, size_t *out_size, char *err, size_t errlen);

/* ---- PNG -------------------------------------------------------------------------------- */

/* A decoded PNG. Buffers that are absent are NULL with size 0. */
typedef struct {
    uint8_t *pixels;        /* width * height * channels bytes */
    int width;
    int height;
    int channels;           /* 3 (RGB) or 4 (RGBA, straight alpha) */
    int bytes_per_sample;   /* 1, or 2 (native-endian words) when 16 bits were asked for and stored */
    uint8_t *icc;           /* iCCP profile, decompressed */
    size_t icc_size;
    uint8_t *exif;          /* eXIf payload exactly as stored (may start with "Exif\0\0") */
    size_t exif_size;
    uint8_t *xmp;           /* text of the "XML:com.adobe.xmp" iTXt chunk */
    size_t xmp_size;
    char icc_problem[256];  /* when icc is NULL: libpng's warning about an iCCP chunk it rejected (CMYK,
                             * damaged), else empty */
} cic_png_image;

/* Decodes any PNG to 8-bit RGB or RGBA: palette expanded, gray to RGB, tRNS to alpha,
 * 16-bit scaled to 8-bit with rounding, interlacing undone. Truncated or corrupt data is an
 * error (libpng's message; warnings seen before the error are appended). On success the
 * caller releases *image with cic_png_image_free. */
int cic_png_decode(const uint8_t *data, size_t size, cic_png_image *image,
                   char *err, size_t errlen);
/* The same, but a 16-bit PNG keeps its 16 bits (for a colour conversion before the reduction to 8). */
int cic_png_decode16(const uint8_t *data, size_t size, cic_png_image *image,
                     char *err, size_t errlen);
void cic_png_image_free(cic_png_image *image);

/* A text to write as a "Comment" chunk: tEXt (Latin-1) when utf8 is 0, else iTXt. No NUL bytes. */
typedef struct {
    const uint8_t *text;
    size_t size;
    int utf8;
} cic_png_text;

/* What a PNG says about itself, without inflating any picture data: size, the same metadata as
 * cic_png_decode, channels 4 when the decoded picture would have alpha (alpha colour type or tRNS),
 * and the IHDR bit depth (8 for palette images). pixels stays NULL. Free with cic_png_image_free. */
int cic_png_read_info(const uint8_t *data, size_t size, cic_png_image *image, int *bit_depth,
                      char *err, size_t errlen);

/* What to write besides the pixels; NULL/0 fields are skipped. */
typedef struct {
    int compression_level;  /* zlib level 0...9 (6 is libpng's default) */
    /* How the rows are laid out (cic_png_encode_rows): PNG colour type 0 grey, 2 RGB, 3 palette,
     * 4 grey+alpha, 6 RGBA; bit depth 1, 2, 4 (grey and palette only) or 8, rows packed as PNG stores them. */
    int color_type;
    int bit_depth;
    const uint8_t *palette; /* palette_size RGB triples (colour type 3) */
    int palette_size;
    const uint8_t *palette_alpha;  /* the first palette_alpha_size entries' alpha, written as tRNS */
    int palette_alpha_size;
    int filters_none;       /* 1: every row unfiltered (best for palettes); 0: libpng's adaptive choice */
    const uint8_t *icc;
    size_t icc_size;
    const char *icc_name;   /* NULL: "ICC Profile" */
    const uint8_t *exif;    /* TIFF bytes, written as eXIf */
    size_t exif_size;
    const uint8_t *xmp;     /* XMP packet, written as uncompressed iTXt "XML:com.adobe.xmp" */
    size_t xmp_size;
    const cic_png_text *comments;
    size_t comment_count;
} cic_png_options;

/* Encodes rows already in options' colour type and bit depth (see PNGReduction), non-interlaced,
 * unfiltered or with libpng's adaptive filtering. Metadata chunks go before IDAT. On success *out holds
 * *out_size bytes. */
int cic_png_encode_rows(const uint8_t *rows, size_t row_bytes, int width, int height,
                        const cic_png_options *options,
                        uint8_t **out, size_t *out_size,
                        char *err, size_t errlen);

/* ---- SHA-256 ---------------------------------------------------------------------------- */

typedef enum {
    CIC_SHA256_AUTO = 0,        /* the SHA extensions when the CPU has them, else portable C */
    CIC_SHA256_PORTABLE = 1,
    CIC_SHA256_ACCELERATED = 2  /* x86 SHA extensions (SHA-NI) */
} cic_sha256_engine;

/* An incremental SHA-256: init, update any number of times, final once. Plain data: copy it to
 * fork a hash of a common prefix. */
typedef struct {
    uint32_t state[8];
    uint64_t length;            /* bytes hashed so far */
    uint8_t buffer[64];         /* a partial block */
    size_t buffered;
    cic_sha256_engine engine;   /* resolved: never CIC_SHA256_AUTO after init */
} cic_sha256_context;

void cic_sha256_init(cic_sha256_context *context);
/* Forces one implementation (tests, measurements). Asking for CIC_SHA256_ACCELERATED on a CPU
 * without it returns nonzero and falls back to the portable code. */
int cic_sha256_init_engine(cic_sha256_context *context, cic_sha256_engine engine);
void cic_sha256_update(cic_sha256_context *context, const void *data, size_t size);
void cic_sha256_final(cic_sha256_context *context, uint8_t digest[32]);
/* Nonzero when this CPU has the SHA extensions (and SSE4.1, which the fast path also uses). */
int cic_sha256_accelerated_available(void);

#ifdef __cplusplus
}
#endif

/* ---- Resampling ------------------------------------------------------------------------ */

/* line[i] = sum over k < count of weights[k] * first_row[k * row_bytes + i], for i < length: the
 * vertical pass of a separable filter. Vectorized for AVX2 where the CPU has it. */
void cic_vertical_taps(const uint8_t *first_row, size_t row_bytes, size_t length,
                       const float *weights, int count, float *line);

/* The horizontal pass for one plane: out[x] = line[starts[x] + k] * weights[x * stride + k] summed over
 * k < stride, rounded and clamped to 0...255. stride is a multiple of 8 (zero weights pad it) and
 * line has stride readable floats past its last start. */
void cic_horizontal_taps(const float *line, const long *starts, const float *weights, int stride,
                         size_t width, uint8_t *out);

/* ---- Colour ------------------------------------------------------------------------------ */

/* libheif 1.15's conversion of 8-bit planar RGB to Y'CbCr for its encoders (Op_RGB_to_YCbCr<uint8_t> with
 * the profile it gives an image that has none: BT.601, full range), sample for sample, in vector code.
 * sub_h x sub_v is 1x1 (4:4:4), 2x1 (4:2:2) or 2x2 (4:2:0); the chroma planes hold
 * ceil(width / sub_h) x ceil(height / sub_v) samples. */
void cic_rgb_planes_to_ycbcr(const uint8_t *r, ptrdiff_t r_stride, const uint8_t *g, ptrdiff_t g_stride,
                             const uint8_t *b, ptrdiff_t b_stride, int width, int height, int sub_h, int sub_v,
                             uint8_t *y, ptrdiff_t y_stride, uint8_t *cb, ptrdiff_t cb_stride,
                             uint8_t *cr, ptrdiff_t cr_stride);


/* Y'CbCr 4:2:0 planes from one matrix and range to another: out = matrix x (Y' - luma_in, Cb - 128, Cr - 128)
 * + (luma_out, 128, 128), row-major 3x3; luma uses the chroma of its 2x2 block, chroma the block's mean luma. */
void cic_ycbcr420_convert(const uint8_t *y, ptrdiff_t y_stride, const uint8_t *cb, ptrdiff_t cb_stride,
                          const uint8_t *cr, ptrdiff_t cr_stride, int width, int height,
                          const float matrix[9], float luma_in, float luma_out,
                          uint8_t *out_y, ptrdiff_t out_y_stride, uint8_t *out_cb, ptrdiff_t out_cb_stride,
                          uint8_t *out_cr, ptrdiff_t out_cr_stride);

/* pipe2(fds, O_CLOEXEC), which Swift's Glibc module does not export: worker pipes must be created
 * close-on-exec atomically, or a worker spawned meanwhile by another thread would inherit them. */
int cic_pipe_cloexec(int fds[2]);

/* The given signals handled by writing their number as one byte to a close-on-exec pipe, whose read end is
 * returned (-1 on failure, or when already installed). sigaction takes effect at once, unlike libdispatch's
 * signal sources (registered later on its own thread): a signal sent in between was lost. */
int cic_signal_pipe_install(const int *signals, int count);

/* The process's argc and argv as the C runtime handed them to the program, captured by an ELF constructor.
 * Swift's CommandLine (static runtime, Linux) sees no arguments when /proc is not mounted. */
int cic_process_argc(void);
char **cic_process_argv(void);

/* Whether the resize loops run their AVX2/FMA build, whose float rounding may differ from the
 * baseline build's (part of the output cache's key). */
int cic_resize_uses_avx2(void);

/* Fixes glibc's mmap and trim thresholds (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD): see BatchRunner for why. */
void cic_tune_allocator(size_t mmap_threshold, size_t trim_threshold);

/* ---- Library versions ------------------------------------------------------------------- */

/* libpng's version as the loaded library reports it ("1.6.39"). */
const char *cic_png_version(void);
/* libjpeg-turbo's version and build ("2.1.5 (build 20230203)") read from the loaded library; 0 on success. */
int cic_jpeg_version(char *buffer, size_t size);
/* The file the shared library holding `symbol` was loaded from, symlinks resolved; 0 on success. */
int cic_library_file(const void *symbol, char *buffer, size_t size);

#endif /* CIMAGECODECS_H */
