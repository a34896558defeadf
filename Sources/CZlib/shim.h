#include <zlib.h>

// inflateInit2 and deflateInit2 are macros, which Swift cannot call: one wrapper each, passing
// the library's version and stream size as the macros do.

/// Starts inflating raw DEFLATE (no zlib or gzip header), as Core Data's model cache holds it.
static inline int strata_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}

/// Starts deflating to raw DEFLATE (no zlib or gzip header) at the given level.
static inline int strata_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
