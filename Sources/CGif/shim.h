// giflib ships no pkg-config file on Debian 12: the header is in /usr/include and the library is -lgif.
#include <gif_lib.h>
