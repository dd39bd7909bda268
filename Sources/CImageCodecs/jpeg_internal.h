/* Private to the jpeg_*.c files (not in include/, the module header Swift sees): what they share. */
/* libjpeg(-turbo) behind setjmp: see CImageCodecs.h for the contract. */
#ifndef JPEG_INTERNAL_H
#define JPEG_INTERNAL_H

#include <stdio.h>   /* jpeglib.h needs FILE and size_t declared first */
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <jpeglib.h>

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
    /* The top output row of the row of blocks being decoded when the data ran out (a file with
     * several scans is read whole before the first row: there it says nothing). */
    long eof_row;
} cic_jpeg_error;

/* Copies `message` into the caller's `err` buffer and returns 1. */
int cic_jpeg_fail(char *err, size_t errlen, const char *message);
/* Clears `e` and installs its handlers: errors longjmp to e->jump, warnings are recorded. */
struct jpeg_error_mgr *cic_jpeg_error_mgr_init(cic_jpeg_error *e);
/* Progress monitor: stops a decode with too many scans. */
void cic_jpeg_limit_scans(j_common_ptr cinfo);
/* The message to fail with, or NULL when every pixel came from real data. */
const char *cic_jpeg_damage(j_decompress_ptr cinfo, cic_jpeg_error *e);

/* A growable in-memory destination. Unlike jpeg_mem_dest's, its buffer stays reachable after
 * an error, so it can be freed. */
typedef struct {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;
    size_t capacity;
    size_t size;            /* set when the encode finishes */
} growing_dest;

/* Its callbacks, defined in jpeg_encode.c (re-coding uses them too). */
void cic_jpeg_dest_init(j_compress_ptr cinfo);
boolean cic_jpeg_dest_grow(j_compress_ptr cinfo);
void cic_jpeg_dest_term(j_compress_ptr cinfo);

#endif
