#include <stddef.h>
#include <stdint.h>

/// Opens libcurl, once per process; every other call must come after it succeeded. Returns 0, or -1
/// with dlopen's reason in `message` (always terminated).
int imgprep_curl_load(char *message, size_t capacity);

/// libcurl's version ("7.88.1"), or "" before a successful load.
const char *imgprep_curl_version(void);

/// A CURL easy handle, or NULL (out of memory). Freed with imgprep_curl_free.
void *imgprep_curl_new(void);
void imgprep_curl_free(void *handle);

/// Makes every transfer in progress, and every later one, stop at its next progress check.
void imgprep_curl_cancel_all(void);

typedef struct {
    const char *url;
    const char *user_agent;
    /// A PEM file of certificates trusted besides the system's store, or NULL.
    const char *ca_file;
    /// Sent as If-None-Match / If-Modified-Since when not NULL (checked printable by the caller).
    const char *if_none_match;
    const char *if_modified_since;
    long timeout_ms;          // the whole transfer; 0 for none
    long connect_timeout_ms;
    int64_t max_bytes;        // the body is cut off past this
    int fd;                   // a 200's body is written here
} imgprep_fetch_request;

enum {
    IMGPREP_FETCH_DONE = 0,      // a response arrived: see status
    IMGPREP_FETCH_CURL = 1,      // libcurl failed: message
    IMGPREP_FETCH_TOO_LARGE = 2, // the body passed max_bytes
    IMGPREP_FETCH_WRITE = 3,     // writing to fd failed: saved_errno
    IMGPREP_FETCH_CANCELLED = 4,
};

/// What the last response of a transfer said. Header values longer than their field are dropped and
/// flagged, never cut, so a cut validator is never sent back.
typedef struct {
    int outcome;
    int curl_code;
    int saved_errno;
    long status;
    int64_t bytes;               // body bytes written to fd
    int headers_overflowed;      // a captured header did not fit
    char message[256];           // libcurl's message (CURLOPT_ERRORBUFFER or curl_easy_strerror)
    char etag[256];
    char last_modified[64];
    char cache_control[256];
    /// A 3xx's Location, resolved against the URL asked for (CURLINFO_REDIRECT_URL); "" for none.
    /// Redirects are not followed here: the caller checks each one as it checks the first URL.
    char redirect_url[4096];
    int redirect_overflowed;     // the redirect's URL did not fit
} imgprep_fetch_result;

/// One GET on `handle` (reused: libcurl keeps its connections), redirects not followed. Never longjmps or exits.
void imgprep_curl_get(void *handle, const imgprep_fetch_request *request, imgprep_fetch_result *result);
