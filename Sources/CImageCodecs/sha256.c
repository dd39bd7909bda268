/*
 * SHA-256 (FIPS 180-4) for the output cache and shard assignment. Foundation on Linux has no
 * SHA-256 and we add no crypto library for one hash, so it is here: a portable version, and one
 * using the x86 SHA extensions (Intel since Goldmont/Ice Lake, AMD since Zen), picked at run time
 * because the binary is built for the x86-64 baseline.
 */
#include <string.h>
#include "CImageCodecs.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#define CIC_SHA_NI 1
#include <immintrin.h>
#endif

static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotate_right(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    for (; blocks > 0; blocks--, data += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++) {
            w[i] = (uint32_t)data[4 * i] << 24 | (uint32_t)data[4 * i + 1] << 16
                 | (uint32_t)data[4 * i + 2] << 8 | (uint32_t)data[4 * i + 3];
        }
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = h + (rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25))
                        + ((e & f) ^ (~e & g)) + round_constants[i] + w[i];
            uint32_t t2 = (rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22))
                        + ((a & b) ^ (a & c) ^ (b & c));
            h = g; g = f; f = e; e = d + t1;
            d = c; c = b; b = a; a = t1 + t2;
        }
        state[0] += a; state[1] += b; state[2] += c; state[3] += d;
        state[4] += e; state[5] += f; state[6] += g; state[7] += h;
    }
}

#ifdef CIC_SHA_NI
/* The SHA extensions keep the state as ABEF and CDGH and do two rounds per sha256rnds2; the message
 * schedule for words 16..63 is sha256msg1 (the sigma0 half), an add of W[t-7], and sha256msg2 (the
 * sigma1 half), four words at a time. Loops of constant count: the compiler unrolls them. */
__attribute__((target("sha,sse4.1")))
static void blocks_sha_ni(uint32_t state[8], const uint8_t *data, size_t blocks) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef_before = abef, cdgh_before = cdgh;
        __m128i w[4];   /* message words 4g..4g+3 live in w[g % 4] */
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byte_swap);
            } else {
                __m128i sum = _mm_sha256msg1_epu32(w[g % 4], w[(g + 1) % 4]);
                sum = _mm_add_epi32(sum, _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4));
                w[g % 4] = _mm_sha256msg2_epu32(sum, w[(g + 3) % 4]);
            }
            __m128i words = _mm_add_epi32(w[g % 4], _mm_loadu_si128((const __m128i *)&round_constants[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, words);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(words, 0x0E));
        }
        abef = _mm_add_epi32(abef, abef_before);
        cdgh = _mm_add_epi32(cdgh, cdgh_before);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}
#endif

int cic_sha256_accelerated_available(void) {
#ifdef CIC_SHA_NI
    __builtin_cpu_init();
    return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1");
#else
    return 0;
#endif
}

static void process_blocks(cic_sha256_context *context, const uint8_t *data, size_t blocks) {
#ifdef CIC_SHA_NI
    if (context->engine == CIC_SHA256_ACCELERATED) {
        blocks_sha_ni(context->state, data, blocks);
        return;
    }
#endif
    blocks_portable(context->state, data, blocks);
}

int cic_sha256_init_engine(cic_sha256_context *context, cic_sha256_engine engine) {
    static const uint32_t initial[8] = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    memset(context, 0, sizeof *context);
    memcpy(context->state, initial, sizeof initial);
    int accelerated = cic_sha256_accelerated_available();
    switch (engine) {
    case CIC_SHA256_AUTO:
        context->engine = accelerated ? CIC_SHA256_ACCELERATED : CIC_SHA256_PORTABLE;
        return 0;
    case CIC_SHA256_PORTABLE:
        context->engine = CIC_SHA256_PORTABLE;
        return 0;
    case CIC_SHA256_ACCELERATED:
        context->engine = accelerated ? CIC_SHA256_ACCELERATED : CIC_SHA256_PORTABLE;
        return accelerated ? 0 : 1;
    }
    context->engine = CIC_SHA256_PORTABLE;
    return 1;
}

void cic_sha256_init(cic_sha256_context *context) {
    (void)cic_sha256_init_engine(context, CIC_SHA256_AUTO);
}

void cic_sha256_update(cic_sha256_context *context, const void *bytes, size_t size) {
    const uint8_t *data = bytes;
    context->length += size;
    if (context->buffered > 0) {
        size_t take = 64 - context->buffered < size ? 64 - context->buffered : size;
        memcpy(context->buffer + context->buffered, data, take);
        context->buffered += take;
        data += take;
        size -= take;
        if (context->buffered < 64) return;
        process_blocks(context, context->buffer, 1);
        context->buffered = 0;
    }
    if (size >= 64) {
        process_blocks(context, data, size / 64);
        data += size / 64 * 64;
        size %= 64;
    }
    memcpy(context->buffer, data, size);
    context->buffered = size;
}

void cic_sha256_final(cic_sha256_context *context, uint8_t digest[32]) {
    /* The length in bits, modulo 2^64 as the standard says (inputs of 2 EiB and more wrap). */
    uint64_t bits = context->length * 8;
    uint8_t padding[72] = {0x80};
    size_t pad = (context->buffered < 56 ? 56 : 120) - context->buffered;
    for (int i = 0; i < 8; i++) padding[pad + i] = (uint8_t)(bits >> (56 - 8 * i));
    cic_sha256_update(context, padding, pad + 8);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(context->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(context->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(context->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)context->state[i];
    }
}
