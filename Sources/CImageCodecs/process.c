#define _GNU_SOURCE   /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "CImageCodecs.h"

int cic_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/* The write end of the signal pipe; set once, before any handler can run. */
static volatile int cic_signal_write_end = -1;

static void cic_signal_to_pipe(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    ssize_t written = write(cic_signal_write_end, &byte, 1); /* async-signal-safe; a full pipe drops it */
    (void)written;
    errno = saved;
}

int cic_signal_pipe_install(const int *signals, int count) {
    int fds[2];
    if (cic_signal_write_end >= 0 || count < 0 || cic_pipe_cloexec(fds) != 0) return -1;
    /* Never block in a handler, however many signals come. */
    if (fcntl(fds[1], F_SETFL, O_NONBLOCK) != 0) { close(fds[0]); close(fds[1]); return -1; }
    cic_signal_write_end = fds[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = cic_signal_to_pipe;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART; /* the batch's reads and writes go on; the reading thread decides */
    for (int i = 0; i < count; i++)
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    return fds[0];
}
