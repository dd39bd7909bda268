#include <stddef.h>
#include "CImageCodecs.h"

static int saved_argc;
static char **saved_argv;

/* glibc calls .init_array functions with (argc, argv, envp), before main and without reading /proc. */
static void capture_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    saved_argc = argc;
    saved_argv = argv;
}

__attribute__((used, section(".init_array")))
static void (*const capture_arguments_entry)(int, char **, char **) = capture_arguments;

int cic_process_argc(void) { return saved_argv == NULL ? 0 : saved_argc; }
char **cic_process_argv(void) { return saved_argv; }
