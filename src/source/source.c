/* source.c: see source.h.  The drivers fill in SourceDriver; this file
 * only picks one by the URL's scheme and forwards to it. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/date.h"
#include "source/source.h"
#include "base/util.h"
#include "verify/verify.h"

static const SourceDriver *const drivers[] = {
	&source_maildir_driver,
	&source_mbox_driver,
	&source_imap_driver,
};

static gboolean
scheme_matches(const SourceDriver *driver, const char *scheme)
{
	if (strcmp(driver->scheme, scheme) == 0)
		return TRUE;
	/* One IMAP driver serves both the plain and the TLS scheme. */
	return strcmp(driver->scheme, "imap") == 0 &&
	       strcmp(scheme, "imaps") == 0;
}

Source *
source_open(const Conf *conf, const char *url, GError **error)
{
	const char *colon = url ? strchr(url, ':') : NULL;
	if (colon == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "source \"%s\": not a URL (maildir:PATH, mbox:PATH, imap://, imaps://)",
		            url ? url : "");
		return NULL;
	}
	g_autofree char *scheme = g_ascii_strdown(url, colon - url);
	for (gsize i = 0; i < G_N_ELEMENTS(drivers); i++)
		if (scheme_matches(drivers[i], scheme))
			return drivers[i]->open(conf, url, error);
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
	            "source \"%s\": unknown scheme \"%s\" (maildir, mbox, imap, imaps)",
	            url, scheme);
	return NULL;
}

gboolean
source_fetch(Source *source, SourceHandler handler, gpointer user_data,
             GError **error)
{
	return source->driver->fetch(source, handler, user_data, error);
}

gboolean
source_wait(Source *source, int timeout, GError **error)
{
	if (source->driver->wait == NULL)
		return TRUE;
	return source->driver->wait(source, timeout, error);
}

gboolean
source_probe(Source *source, SourceProbeReport report, gpointer user_data,
             GError **error)
{
	if (source->driver->probe == NULL)
		return FALSE;
	return source->driver->probe(source, report, user_data, error);
}

void
source_close(Source *source)
{
	if (source)
		source->driver->close(source);
}

void
source_wake_on(Source *source, int fd)
{
	source->wake_fd = fd;
}

int
source_sleep(Source *source, int fd, gint64 timeout_ms)
{
	sigset_t mask;
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGHUP);
	struct timespec pause = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (timeout_ms % 1000) * 1000000,
	};
	struct pollfd fds[2];
	nfds_t n = 0;
	if (fd >= 0)
		fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
	int wake_at = -1;
	if (source->wake_fd >= 0) {
		wake_at = (int)n;
		fds[n++] = (struct pollfd){.fd = source->wake_fd, .events = POLLIN};
	}
	int ready = ppoll(n > 0 ? fds : NULL, n, &pause, &mask);
	if (ready < 0)
		return errno == EINTR ? -1 : 1;
	if (ready == 0)
		return 0;
	if (wake_at >= 0 && fds[wake_at].revents != 0)
		return -1;
	return 1;
}

struct SourceMemo {
	SourceInterest interest;
	GArray *keys; /* SourceMemoKey, in the order noted */
	gboolean sorted;
};

SourceMemo *
source_memo_new(SourceInterest interest)
{
	SourceMemo *memo = g_new0(SourceMemo, 1);
	memo->interest = interest;
	memo->keys = g_array_new(FALSE, FALSE, sizeof(SourceMemoKey));
	return memo;
}

void
source_memo_free(SourceMemo *memo)
{
	if (memo == NULL)
		return;
	g_array_unref(memo->keys);
	g_free(memo);
}

guint
source_memo_size(const SourceMemo *memo)
{
	return memo->keys->len;
}

SourceMemoKey
source_memo_key(guint64 inode, guint64 size, gint64 changed_ns,
                const char *name)
{
	/* FNV-1a: the name beside the inode, which a name given to
	 * another file by a rename within the fetch would not change. */
	guint64 hash = 14695981039346656037ULL;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		hash = (hash ^ *p) * 1099511628211ULL;
	return (SourceMemoKey){inode, size, changed_ns, hash};
}

static int
compare_keys(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(SourceMemoKey));
}

void
source_memo_note(SourceMemo *memo, const SourceMemoKey *key,
                 const char *data, gsize len)
{
	if (memo->interest(data, len))
		return;
	g_array_append_val(memo->keys, *key);
	memo->sorted = FALSE;
}

gboolean
source_memo_knows(SourceMemo *memo, const SourceMemoKey *key)
{
	if (memo->keys->len == 0)
		return FALSE;
	/* Sorted once, at the first look of the fetch that reads by it. */
	if (!memo->sorted) {
		g_array_sort(memo->keys, compare_keys);
		memo->sorted = TRUE;
	}
	return bsearch(key, memo->keys->data, memo->keys->len,
	               sizeof(SourceMemoKey), compare_keys) != NULL;
}

void
source_use_memo(Source *source, SourceMemo *memo, gboolean notes)
{
	source->memo = memo;
	source->memo_notes = notes;
}

void
source_message_clear(SourceMessage *message)
{
	g_clear_pointer(&message->id, g_free);
	g_clear_pointer(&message->raw, g_bytes_unref);
	g_clear_pointer(&message->readings, g_ptr_array_unref);
	message->arrival = 0;
	message->unread = FALSE;
}

gboolean
source_message_next_reading(const SourceMessage *message,
                            SourceMessage *next)
{
	if (message->readings == NULL ||
	    message->reading >= message->readings->len)
		return FALSE;
	*next = *message;
	next->raw = message->readings->pdata[message->reading];
	next->reading = message->reading + 1;
	return TRUE;
}

char *
source_url_path(const char *url)
{
	const char *path = strchr(url, ':') + 1;
	if (g_str_has_prefix(path, "//"))
		path += 2;
	if (*path == '\0')
		return NULL;
	g_autofree char *cwd = g_get_current_dir();
	g_autofree char *abs = g_path_is_absolute(path)
	                           ? g_strdup(path)
	                           : g_build_filename(cwd, path, NULL);
	return g_canonicalize_filename(abs, NULL);
}

void
source_log_set_aside(const char *id, const char *reason)
{
	util_log("set-aside", "id", id, "reason", reason, NULL);
}

gboolean
source_set_aside_own(Retry *retry, const char *key, const char *id,
                     const char *reason, GError **error)
{
	source_log_set_aside(id, reason);
	return retry == NULL ||
	       retry_set_aside(retry, key, id, reason, date_now_unix(), error);
}

gboolean
source_error_is_message(const GError *error)
{
	return g_error_matches(error, TENURE_ERROR, TENURE_ERROR_MESSAGE);
}

char *
source_too_large(guint64 size)
{
	return g_strdup_printf("message too large (%" G_GUINT64_FORMAT
	                       " bytes, limit %d)", size, SOURCE_MAX_SIZE);
}

gboolean
source_error_is_temporary(const GError *error)
{
	return g_error_matches(error, TENURE_ERROR, TENURE_ERROR_TEMPORARY);
}

gboolean
source_error_is_held(const GError *error)
{
	return g_error_matches(error, TENURE_ERROR, TENURE_ERROR_HELD);
}

static char *
time_text(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	return dt ? g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ") : g_strdup("?");
}

gboolean
source_defer(Retry *retry, const Conf *conf, const char *key, const char *id,
             const char *reason, gboolean *set_aside, GError **error)
{
	gint64 next = 0;
	guint tries = 0;
	gint64 limit = (gint64)(conf && conf->retry_hours > 0 ? conf->retry_hours
	                                                      : 24) * 3600;
	/* A mail that waits for a serving key no keyring holds waits
	 * until the key is back: set aside and reported one by one, it
	 * would let anyone who posts mail naming the key send the
	 * administrator a report each time (issue 40, item 4); the missing
	 * key itself is reported, once a pass, by the intake, status and
	 * check. */
	g_autofree char *missing = verify_key_missing(reason);
	if (missing)
		limit = G_MAXINT64 / 2;
	if (!retry_defer(retry, key, id, reason, date_now_unix(), limit, &next,
	                 &tries, set_aside, error))
		return FALSE;
	char count[16];
	g_snprintf(count, sizeof count, "%u", tries);
	if (*set_aside) {
		util_log_error("set-aside", "id", id, "tries", count, "reason",
		               reason, "report", "yes", NULL);
		return TRUE;
	}
	g_autofree char *when = time_text(next);
	util_log_warning("deferred", "id", id, "reason", reason, "tries", count,
	                 "next", when, NULL);
	return TRUE;
}

void
source_undecided_error(guint count, GError **error)
{
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_TEMPORARY,
	            "%u message(s) could not be decided now (see the \"deferred\" "
	            "lines); nothing of theirs was applied or refused: run the "
	            "import again later (what it applied is not applied twice)",
	            count);
}
