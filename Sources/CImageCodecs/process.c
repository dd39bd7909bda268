#define _GNU_SOURCE   /* pipe2 */
#include <fcntl.h>
#include <unistd.h>
#include "CImageCodecs.h"

int cic_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
