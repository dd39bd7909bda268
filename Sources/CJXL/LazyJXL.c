// libjxl is opened on first use instead of being linked. Loading it (with libhwy, brotli) in every
// process, JPEG XL or not, cost about 4-5 ms of CPU per process here (perf stat, LD_PRELOAD of libjxl and
// libjxl_threads into /bin/true beside libstdc++ and lcms2, which imgprep loads anyway): more than an
// imgprep process's whole start. Swift calls the functions the headers declare; they are defined here
// and forward to the libraries once they are open (as Sources/CHeif/LazyHeif.c does for libheif).
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "CJXL.h"

// The Debian 12 packages' sonames; the libraries a link against -ljxl -ljxl_threads would have loaded.
static const char codec_name[] = "libjxl.so.0.7";
static const char threads_name[] = "libjxl_threads.so.0.7";

#define JXL_FUNCTION(library, type, name, parameters, arguments) static __typeof__(&name) loaded_##name;
#define JXL_VOID_FUNCTION(library, name, parameters, arguments) static __typeof__(&name) loaded_##name;
#include "JXLFunctions.def"
#undef JXL_FUNCTION
#undef JXL_VOID_FUNCTION

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[512];  // empty once every function was found

static void *open_library(const char *name) {
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL && load_failure[0] == 0) {
        const char *reason = dlerror();
        snprintf(load_failure, sizeof load_failure, "%s", reason ? reason : name);
    }
    return library;
}

static void load(void) {
    void *codec = open_library(codec_name);
    void *threads = open_library(threads_name);
    if (codec == NULL || threads == NULL) return;
    const char *missing = NULL;
#define JXL_FUNCTION(library, type, name, parameters, arguments)                    \
    loaded_##name = (__typeof__(&name))dlsym(library, #name);                       \
    if (loaded_##name == NULL && missing == NULL) missing = #name;
#define JXL_VOID_FUNCTION(library, name, parameters, arguments) JXL_FUNCTION(library, void, name, parameters, arguments)
#include "JXLFunctions.def"
#undef JXL_FUNCTION
#undef JXL_VOID_FUNCTION
    if (missing != NULL) snprintf(load_failure, sizeof load_failure, "libjxl has no %s", missing);
}

int imgprep_jxl_load(char *message, size_t capacity) {
    pthread_once(&load_once, load);
    if (load_failure[0] == 0) return 0;
    if (capacity > 0) snprintf(message, capacity, "%s", load_failure);
    return -1;
}

// Every Swift path that reaches libjxl calls imgprep_jxl_load first and stops with an error when it
// fails, so this never stops the process in practice; it only keeps a forgotten call from jumping to a
// null pointer.
static void require_loaded(const char *function) {
    char reason[512];
    if (imgprep_jxl_load(reason, sizeof reason) == 0) return;
    fprintf(stderr, "imgprep: %s called, but libjxl could not be loaded: %s\n", function, reason);
    abort();
}

#define JXL_FUNCTION(library, type, name, parameters, arguments)                    \
    type name parameters {                                                          \
        require_loaded(#name);                                                      \
        return loaded_##name arguments;                                             \
    }
#define JXL_VOID_FUNCTION(library, name, parameters, arguments)                     \
    void name parameters {                                                          \
        require_loaded(#name);                                                      \
        loaded_##name arguments;                                                    \
    }
#include "JXLFunctions.def"
