// libcurl is opened on first use instead of being linked: with its TLS, HTTP/2, LDAP and Kerberos
// libraries it cost about 13 ms per process here (200 runs of an empty program linked with -lcurl:
// 3.2 s against 0.5 s), paid by every worker process that never downloads anything. Only the batch
// parent downloads, so only it opens libcurl. curl_easy_setopt and curl_easy_getinfo are variadic,
// which Swift cannot call: the whole transfer is set up here and Swift sees one plain function.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "CFetch.h"

static const char library_name[] = "libcurl.so.4";  // Debian 12's soname (libcurl4 / libcurl4-openssl-dev)

static __typeof__(&curl_global_init) loaded_global_init;
static __typeof__(&curl_easy_init) loaded_easy_init;
static __typeof__(&curl_easy_cleanup) loaded_easy_cleanup;
static __typeof__(&curl_easy_setopt) loaded_easy_setopt;
static __typeof__(&curl_easy_getinfo) loaded_easy_getinfo;
static __typeof__(&curl_easy_perform) loaded_easy_perform;
static __typeof__(&curl_easy_strerror) loaded_easy_strerror;
static __typeof__(&curl_slist_append) loaded_slist_append;
static __typeof__(&curl_slist_free_all) loaded_slist_free_all;
static __typeof__(&curl_version_info) loaded_version_info;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_failure[512];
static char version[32];
static atomic_int cancelled;

static void load(void) {
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_failure, sizeof load_failure, "%s", reason ? reason : library_name);
        return;
    }
    const char *missing = NULL;
#define LOOK_UP(field, name) \
    field = (__typeof__(field))dlsym(library, name); \
    if (field == NULL && missing == NULL) missing = name;
    LOOK_UP(loaded_global_init, "curl_global_init")
    LOOK_UP(loaded_easy_init, "curl_easy_init")
    LOOK_UP(loaded_easy_cleanup, "curl_easy_cleanup")
    LOOK_UP(loaded_easy_setopt, "curl_easy_setopt")
    LOOK_UP(loaded_easy_getinfo, "curl_easy_getinfo")
    LOOK_UP(loaded_easy_perform, "curl_easy_perform")
    LOOK_UP(loaded_easy_strerror, "curl_easy_strerror")
    LOOK_UP(loaded_slist_append, "curl_slist_append")
    LOOK_UP(loaded_slist_free_all, "curl_slist_free_all")
    LOOK_UP(loaded_version_info, "curl_version_info")
#undef LOOK_UP
    if (missing != NULL) {
        snprintf(load_failure, sizeof load_failure, "libcurl has no %s", missing);
        return;
    }
    // Not thread-safe in every libcurl build: once, here, before any handle exists.
    CURLcode code = loaded_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(load_failure, sizeof load_failure, "curl_global_init: %s", loaded_easy_strerror(code));
        return;
    }
    curl_version_info_data *info = loaded_version_info(CURLVERSION_NOW);
    snprintf(version, sizeof version, "%s", info && info->version ? info->version : "unknown");
}

int imgprep_curl_load(char *message, size_t capacity) {
    pthread_once(&load_once, load);
    if (load_failure[0] == 0) return 0;
    if (capacity > 0) snprintf(message, capacity, "%s", load_failure);
    return -1;
}

static int loaded(void) {
    char ignored[8];
    return imgprep_curl_load(ignored, sizeof ignored) == 0;
}

const char *imgprep_curl_version(void) { return version; }

void *imgprep_curl_new(void) { return loaded() ? loaded_easy_init() : NULL; }

void imgprep_curl_free(void *handle) {
    if (handle != NULL && loaded()) loaded_easy_cleanup(handle);
}

void imgprep_curl_cancel_all(void) { atomic_store(&cancelled, 1); }

typedef struct {
    const imgprep_fetch_request *request;
    imgprep_fetch_result *result;
    CURL *handle;
    int64_t discarded;  // body bytes of answers other than 200, also bounded by max_bytes
} transfer;

// Copies a header's value into `field` when the whole value fits; otherwise leaves it empty and flags
// the overflow. Values are trimmed of spaces and the line end.
static void capture(const char *value, size_t length, char *field, size_t capacity, imgprep_fetch_result *result) {
    while (length > 0 && (value[0] == ' ' || value[0] == '\t')) { value++; length--; }
    while (length > 0 && (value[length - 1] == '\r' || value[length - 1] == '\n' || value[length - 1] == ' ' ||
                          value[length - 1] == '\t')) length--;
    if (length >= capacity) {
        field[0] = 0;
        result->headers_overflowed = 1;
        return;
    }
    memcpy(field, value, length);
    field[length] = 0;
}

// Is `line` the header `name` (case-insensitive)? Then *value is what follows the colon.
static int header_named(const char *line, size_t length, const char *name, const char **value, size_t *value_length) {
    size_t name_length = strlen(name);
    if (length <= name_length || line[name_length] != ':' || strncasecmp(line, name, name_length) != 0) return 0;
    *value = line + name_length + 1;
    *value_length = length - name_length - 1;
    return 1;
}

// One header line of any response, redirects included: a status line starts a new response, so only
// the last response's headers are kept.
static size_t on_header(char *line, size_t size, size_t count, void *context) {
    transfer *t = context;
    imgprep_fetch_result *result = t->result;
    size_t length = size * count;  // libcurl: size is always 1
    const char *value;
    size_t value_length;
    if (length >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        result->etag[0] = result->last_modified[0] = result->cache_control[0] = 0;
        result->headers_overflowed = 0;
    } else if (header_named(line, length, "ETag", &value, &value_length)) {
        capture(value, value_length, result->etag, sizeof result->etag, result);
    } else if (header_named(line, length, "Last-Modified", &value, &value_length)) {
        capture(value, value_length, result->last_modified, sizeof result->last_modified, result);
    } else if (header_named(line, length, "Cache-Control", &value, &value_length)) {
        if (result->cache_control[0] != 0) {
            // A second Cache-Control header: too much to combine safely; flagged so nothing is stored.
            result->headers_overflowed = 1;
        } else {
            capture(value, value_length, result->cache_control, sizeof result->cache_control, result);
        }
    }
    return length;
}

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    transfer *t = context;
    imgprep_fetch_result *result = t->result;
    size_t length = size * count;
    long status = 0;
    loaded_easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        // Another answer's body (a redirect's page, a 204 or 206): not kept, but not endless either.
        t->discarded += (int64_t)length;
        if (t->discarded <= t->request->max_bytes) return length;
        result->outcome = IMGPREP_FETCH_TOO_LARGE;
        return 0;
    }
    if ((int64_t)length > t->request->max_bytes - result->bytes) {
        result->outcome = IMGPREP_FETCH_TOO_LARGE;
        return 0;  // libcurl stops with CURLE_WRITE_ERROR
    }
    size_t written = 0;
    while (written < length) {
        ssize_t n = write(t->request->fd, data + written, length - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            result->outcome = IMGPREP_FETCH_WRITE;
            result->saved_errno = n < 0 ? errno : ENOSPC;
            return 0;
        }
        written += (size_t)n;
    }
    result->bytes += (int64_t)length;
    return length;
}

static int on_progress(void *context, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d) {
    (void)a; (void)b; (void)c; (void)d;
    transfer *t = context;
    if (!atomic_load(&cancelled)) return 0;
    t->result->outcome = IMGPREP_FETCH_CANCELLED;
    return 1;  // libcurl stops with CURLE_ABORTED_BY_CALLBACK
}

static struct curl_slist *add_header(struct curl_slist *list, const char *name, const char *value, int *failed) {
    if (value == NULL || *failed) return list;
    char line[512];
    if ((size_t)snprintf(line, sizeof line, "%s: %s", name, value) >= sizeof line) return list;  // too long to send
    struct curl_slist *grown = loaded_slist_append(list, line);
    if (grown == NULL) *failed = 1;
    return grown ? grown : list;
}

void imgprep_curl_get(void *handle, const imgprep_fetch_request *request, imgprep_fetch_result *result) {
    memset(result, 0, sizeof *result);
    if (!loaded() || handle == NULL) {
        result->outcome = IMGPREP_FETCH_CURL;
        snprintf(result->message, sizeof result->message, "libcurl is not loaded");
        return;
    }
    if (atomic_load(&cancelled)) {
        result->outcome = IMGPREP_FETCH_CANCELLED;
        return;
    }
    transfer t = {request, result, handle, 0};
    char error[CURL_ERROR_SIZE] = {0};
    int header_failed = 0;
    struct curl_slist *headers = NULL;
    headers = add_header(headers, "If-None-Match", request->if_none_match, &header_failed);
    headers = add_header(headers, "If-Modified-Since", request->if_modified_since, &header_failed);
    CURL *curl = handle;
    CURLcode code = CURLE_OK;
#define SET(option, value) if (code == CURLE_OK) code = loaded_easy_setopt(curl, option, value)
    SET(CURLOPT_URL, request->url);
    SET(CURLOPT_ERRORBUFFER, error);
    SET(CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for name resolution timeouts
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    // libcurl would send the credentials of a redirect's URL (user:password@): each hop is the caller's.
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    SET(CURLOPT_USERAGENT, request->user_agent);
    SET(CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    SET(CURLOPT_TIMEOUT_MS, request->timeout_ms);
    SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_bytes);  // a stated Content-Length past it fails at once
    SET(CURLOPT_FAILONERROR, 1L);  // 4xx and 5xx end the transfer; the status is read below
    SET(CURLOPT_HTTPHEADER, headers);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, &t);
    SET(CURLOPT_WRITEFUNCTION, on_body);
    SET(CURLOPT_WRITEDATA, &t);
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, &t);
    SET(CURLOPT_NOPROGRESS, 0L);
    if (request->ca_file != NULL) SET(CURLOPT_CAINFO, request->ca_file);  // the system's CA path stays
#undef SET
    if (code == CURLE_OK && header_failed) code = CURLE_OUT_OF_MEMORY;
    if (code == CURLE_OK) code = loaded_easy_perform(curl);
    loaded_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result->status);
    char *location = NULL;
    if (code == CURLE_OK && loaded_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location != NULL) {
        size_t length = strlen(location);
        if (length < sizeof result->redirect_url) {
            memcpy(result->redirect_url, location, length + 1);
        } else {
            result->redirect_overflowed = 1;
        }
    }
    // The header list and the error buffer end here: the handle must not point at them afterwards.
    loaded_easy_setopt(curl, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
    loaded_easy_setopt(curl, CURLOPT_ERRORBUFFER, (char *)NULL);
    loaded_slist_free_all(headers);
    result->curl_code = (int)code;
    if (code == CURLE_OK || result->outcome != IMGPREP_FETCH_DONE) return;
    if (code == CURLE_FILESIZE_EXCEEDED) {
        result->outcome = IMGPREP_FETCH_TOO_LARGE;
        return;
    }
    result->outcome = IMGPREP_FETCH_CURL;
    snprintf(result->message, sizeof result->message, "%s", error[0] ? error : loaded_easy_strerror(code));
}
