// libheif is opened on first use instead of being linked. Loading it runs its constructors in every
// process, HEIF or not: it registers its plugins and libde265 builds its tables, about 4 ms of CPU,
// nearly half of an imgprep process's start, paid by the main process and by every worker. Swift calls
// the functions heif.h declares; they are defined here and forward to the library once it is open.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "CHeif.h"

// The Debian 12 package's soname; the same library a link against -lheif would have loaded.
static const char library_name[] = "libheif.so.1";

#define HEIF_FUNCTION(type, name, parameters, arguments) static __typeof__(&name) loaded_##name;
#define HEIF_VOID_FUNCTION(name, parameters, arguments) static __typeof__(&name) loaded_##name;
#include "HeifFunctions.def"
#undef HEIF_FUNCTION
#undef HEIF_VOID_FUNCTION

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[512];  // empty once every function was found

static void load(void) {
    // RTLD_GLOBAL: `imgprep --version` finds the decoders libheif brought in (libde265, dav1d, libaom)
    // by their symbols, as it did when they were linked.
    void *library = dlopen(library_name, RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_failure, sizeof load_failure, "%s", reason ? reason : library_name);
        return;
    }
    const char *missing = NULL;
#define HEIF_FUNCTION(type, name, parameters, arguments)                            \
    loaded_##name = (__typeof__(&name))dlsym(library, #name);                       \
    if (loaded_##name == NULL && missing == NULL) missing = #name;
#define HEIF_VOID_FUNCTION(name, parameters, arguments) HEIF_FUNCTION(void, name, parameters, arguments)
#include "HeifFunctions.def"
#undef HEIF_FUNCTION
#undef HEIF_VOID_FUNCTION
    if (missing != NULL) snprintf(load_failure, sizeof load_failure, "%s has no %s", library_name, missing);
}

int imgprep_heif_load(char *message, size_t capacity) {
    pthread_once(&load_once, load);
    if (load_failure[0] == 0) return 0;
    if (capacity > 0) snprintf(message, capacity, "%s", load_failure);
    return -1;
}

// Every Swift path that reaches libheif (opening a file, creating an encoder, asking versions) calls
// imgprep_heif_load first and stops with an error when it fails, so this never stops the process in
// practice; it only keeps a forgotten call from jumping to a null pointer.
static void require_loaded(const char *function) {
    char reason[512];
    if (imgprep_heif_load(reason, sizeof reason) == 0) return;
    fprintf(stderr, "imgprep: %s called, but libheif could not be loaded: %s\n", function, reason);
    abort();
}

#define HEIF_FUNCTION(type, name, parameters, arguments)                            \
    type name parameters {                                                          \
        require_loaded(#name);                                                      \
        return loaded_##name arguments;                                             \
    }
#define HEIF_VOID_FUNCTION(name, parameters, arguments)                             \
    void name parameters {                                                          \
        require_loaded(#name);                                                      \
        loaded_##name arguments;                                                    \
    }
#include "HeifFunctions.def"
