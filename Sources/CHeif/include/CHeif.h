#include <stddef.h>
#include <libheif/heif.h>

/// Opens libheif, once per process; every other call into libheif must come after it succeeded.
/// Returns 0, or -1 with dlopen's reason in `message` (always terminated).
int imgprep_heif_load(char *message, size_t capacity);

/// One HEVC picture from libde265: its planes stay valid until imgprep_hevc_release.
typedef struct {
    void *context;
    int chroma;                 /* de265_chroma: 1 is 4:2:0 */
    const unsigned char *planes[3];
    int strides[3], widths[3], heights[3], depths[3];
    int full_range, matrix;     /* from the bitstream's VUI (H.273 code points) */
} imgprep_hevc_picture;

/// Decodes one picture from `headers` (the hvcC's parameter sets, each preceded by a 4-byte big-endian length)
/// and `data` (NAL units preceded by `length_size`-byte lengths). Returns 0, or -1 with the reason in `message`.
int imgprep_hevc_decode(const unsigned char *headers, size_t headers_size, const unsigned char *data, size_t size,
                        int length_size, imgprep_hevc_picture *out, char *message, size_t capacity);
void imgprep_hevc_release(imgprep_hevc_picture *picture);
