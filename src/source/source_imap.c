/* source_imap.c: list mail from an IMAP mailbox (imap:// with STARTTLS,
 * imaps://), through libetpan.
 *
 * Security: every connection is TLS, verified here with GnuTLS before the
 * password leaves (see tls_verify.h: libetpan itself accepts any
 * certificate).  imap:// insists on STARTTLS and never falls back to
 * plain text.
 *
 * The cursor (server, user, mailbox, UIDVALIDITY, last UID; see
 * imap_cursor.h) advances one message at a time, after the handler has
 * returned TRUE, i.e. after the ledger and outbox writes the message
 * caused are on disk.  A first contact (no cursor for this mailbox: a
 * new one, or a cursor lost) and a changed UIDVALIDITY (the server
 * renumbered the mailbox) read the mail that is there within a window:
 * what arrived (INTERNALDATE) at most [keys] max-signature-age days
 * before the newest message, so that a command waiting in the mailbox is
 * not lost, while older list mail comes in only by `tenure import`.  The
 * window is reckoned by the server's clock, the newest INTERNALDATE;
 * tenure's own clock may only narrow it (a quiet list's newest mail may
 * be old).  What the first contact left out, before its window's start
 * (the cursor's horizon, a server time), is never read, not even after a
 * renumbering, whatever tenure's clock says.  The intake's Message-ID
 * and signature records, and the ledger, keep what is read again from
 * acting twice.
 *
 * A message that cannot be handled for a reason of its own is tried
 * again by the next fetches and, after IMAP_FAILED_TRIES tries (at once
 * when its RFC822.SIZE is over SOURCE_MAX_SIZE: it is never fetched),
 * recorded as failed in the state (imap_failed.h) while the cursor moves
 * on; a fetch that stops before such a message to try it again later
 * succeeds.  A message that cannot be decided now (source.h) is recorded
 * in STATE_DIR/retry ("imap UIDVALIDITY/UID") and holds the cursor: the
 * cursor never passes a message without a final outcome (handled, or
 * set aside).  Which messages wait is known to this process (waiting),
 * not only to the retry record, which merely schedules them: a record
 * lost, or torn and removed, while the daemon runs makes its message due
 * at once, and never lets the cursor pass it (issue 25, item 4); after a
 * restart everything beyond the cursor is read again.  The mail behind it is handled all the
 * same: this process remembers how far it has dealt with the mailbox
 * (handled_through), and fetches again only the waiting messages whose
 * next try is due; after a restart the mail behind a held cursor is read
 * once more, which the intake's records make harmless.  A message that
 * runs out of time is recorded as failed, and the cursor moves on.
 *
 * Costs: the source talks to the server only when it has reason to
 * believe there is new mail (UIDNEXT beyond the cursor when the mailbox
 * is opened, or an EXISTS response since).  An idle cycle is therefore
 * IDLE ... DONE (or one NOOP when polling) whatever the size of the
 * mailbox; new mail is listed with UID FETCH LAST+1:* and fetched in
 * batches.
 *
 * Deadlines: libetpan's timeout is per read, and a server that sends a
 * byte a second never trips it.  So every stretch of talk with the
 * server has a total deadline as well, enforced by netstop.h, which
 * shuts the socket down when it passes: connecting (TCP, TLS, greeting,
 * login, EXAMINE) CONNECT_DEADLINE s; listing new mail, IDLE and DONE,
 * NOOP COMMAND_DEADLINE s each; a batch of bodies COMMAND_DEADLINE s
 * plus a second for every SLOWEST_RATE bytes in it; the goodbye
 * LOGOUT_DEADLINE s.  The clock stops while a message is handled and
 * while idling.  A connection that misses its deadline fails like a
 * broken one ("no complete answer within N s"), and the next fetch
 * connects again and goes on from the cursor.
 *
 * Signals: wait() sleeps in ppoll() with SIGTERM, SIGINT and SIGHUP
 * admitted, so a daemon that keeps them blocked everywhere else (see
 * cmd_run.c) learns of them at once and without a race: wait() then
 * returns TRUE early, as it does when the source's wake descriptor
 * (source_wake_on) becomes readable.  Where libetpan waits on the network (the TLS
 * handshake, a response), it looks at no flag: tenure makes the TCP
 * connection itself, looking every 0.2 s whether to stop, and hands the
 * socket to netstop.h, whose watcher shuts it down on a stop, so the
 * wait ends at once instead of sitting out NETWORK_TIMEOUT; fetch() then
 * fails with G_IO_ERROR_CANCELLED.
 *
 * Errors on the connection close it and come back as TENURE_ERROR_NETWORK
 * (TENURE_ERROR_VERIFY for a certificate refused); the next fetch() or
 * wait() connects again.  The caller decides how long to back off.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include <gio/gio.h>
#include <libetpan/libetpan.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "source/imap_cursor.h"
#include "base/date.h"
#include "source/imap_failed.h"
#include "base/netstop.h"
#include "source/source.h"
#include "base/tls_verify.h"
#include "base/util.h"

/* RFC 2177: a client re-issues IDLE at least every 29 minutes, or the
 * server may log it out as inactive. */
#define IDLE_MAX_SECONDS (28 * 60)

/* Bodies are fetched at most this many, or this many bytes, at a time;
 * a larger message comes alone.  This bounds the memory a burst of mail
 * (or re-reading a renumbered mailbox) can take. */
#define BATCH_MESSAGES 25
#define BATCH_BYTES (2 * 1024 * 1024)

/* Seconds a connect or a single network read or write may take before
 * the connection counts as broken: well inside systemd's stop timeout
 * (see systemd/tenure.service). */
#define NETWORK_TIMEOUT 30

/* Total deadlines, in seconds (see the top of the file). */
#define CONNECT_DEADLINE 60
#define COMMAND_DEADLINE 60
#define LOGOUT_DEADLINE 10
#define SLOWEST_RATE (16 * 1024)

typedef struct {
	Source base;
	char *server;         /* "imaps://host:port": messages and cursor */
	char *host;
	guint16 port;
	gboolean implicit_tls;
	char *user;
	char *password;
	char *ca_file;
	char *peer;           /* the verified certificate, described */
	char *mailbox;
	int poll_interval;
	gint64 max_age;         /* [keys] max-signature-age, in seconds */
	char *cursor_path;
	ImapCursor cursor;
	ImapFailed *failed;     /* messages set aside (imap_failed.h) */
	const Conf *conf;
	Retry *retry;           /* messages waiting for a verdict (retry.h) */
	guint32 handled_through; /* every UID up to it dealt with (handled,
	                            set aside, or waiting) */
	GHashTable *waiting;    /* UIDs without a final outcome that the
	                           cursor must not pass, whatever RETRY,
	                           which only schedules them, still holds */
	gboolean retry_later;   /* a message failed a try: stop this fetch */

	mailimap *imap;         /* NULL while disconnected */
	int fd;                 /* its socket, watched by netstop; -1 */
	int deadline_seconds;   /* of the stretch of talk under way; 0 */
	gboolean has_idle;
	gboolean may_have_mail; /* UIDNEXT or an EXISTS says so */
} ImapSource;

typedef struct {
	guint32 uid;
	guint32 size;
	gint64 arrival; /* INTERNALDATE, Unix time; 0 if the server sent none */
} PendingMessage;

/* What one fetched message came with. */
typedef struct {
	guint32 uid;
	const char *body;
	gsize length;
	struct mailimap_date_time *internal_date;
} FetchedMessage;

static const char *
etpan_strerror(int rc)
{
	switch (rc) {
	case MAILIMAP_ERROR_STREAM:
		return "the connection was lost or timed out";
	case MAILIMAP_ERROR_PARSE:
		return "the server's response could not be parsed";
	case MAILIMAP_ERROR_CONNECTION_REFUSED:
		return "cannot connect";
	case MAILIMAP_ERROR_DONT_ACCEPT_CONNECTION:
		return "the server does not accept connections";
	case MAILIMAP_ERROR_PROTOCOL:
		return "protocol error";
	case MAILIMAP_ERROR_LOGIN:
		return "login refused";
	case MAILIMAP_ERROR_SASL:
		return "authentication refused";
	case MAILIMAP_ERROR_SSL:
		return "the TLS handshake failed";
	case MAILIMAP_ERROR_STARTTLS:
		return "STARTTLS failed";
	case MAILIMAP_ERROR_EXAMINE:
	case MAILIMAP_ERROR_SELECT:
		return "the mailbox cannot be opened";
	case MAILIMAP_ERROR_UID_FETCH:
	case MAILIMAP_ERROR_FETCH:
		return "fetching failed";
	case MAILIMAP_ERROR_MEMORY:
		return "out of memory";
	default:
		return "IMAP error";
	}
}

/* Starts the total deadline of the talk from now until deadline_rest:
 * SECONDS. */
static void
deadline_arm(ImapSource *source, int seconds)
{
	source->deadline_seconds = seconds;
	if (source->fd >= 0)
		netstop_deadline(source->fd,
		                 g_get_monotonic_time() + seconds * G_USEC_PER_SEC);
}

/* Stops the clock: a message is being handled, or the source idles. */
static void
deadline_rest(ImapSource *source)
{
	source->deadline_seconds = 0;
	if (source->fd >= 0)
		netstop_deadline(source->fd, 0);
}

static void
disconnect(ImapSource *source, gboolean politely)
{
	if (source->imap == NULL)
		return;
	/* A stopping daemon does not wait for the server's goodbye. */
	if (politely && !util_stopping()) {
		deadline_arm(source, LOGOUT_DEADLINE);
		mailimap_logout(source->imap);
	}
	if (source->fd >= 0)
		netstop_unwatch(source->fd);
	source->fd = -1;
	mailimap_free(source->imap);
	source->imap = NULL;
	source->has_idle = FALSE;
}

/* Sets ERROR for the failed step WHAT, with the server's own words when
 * it gave any, and drops the connection: after a failure its state is
 * unknown, and the next call starts afresh. */
/* TRUE when RC means the server answered (NO or BAD), so that its last
 * response text is about this command; after a broken stream it is
 * stale. */
static gboolean
server_refused(int rc)
{
	switch (rc) {
	case MAILIMAP_ERROR_STREAM:
	case MAILIMAP_ERROR_PARSE:
	case MAILIMAP_ERROR_CONNECTION_REFUSED:
	case MAILIMAP_ERROR_SSL:
	case MAILIMAP_ERROR_MEMORY:
		return FALSE;
	default:
		return TRUE;
	}
}

static gboolean
fail(ImapSource *source, int rc, const char *what, GError **error)
{
	if (util_stopping()) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
		            "%s: %s: stopped by a signal", source->server, what);
		disconnect(source, FALSE);
		return FALSE;
	}
	if (source->fd >= 0 && netstop_expired(source->fd)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "%s: %s: no complete answer within %d s (the server "
		            "is too slow or stalls)",
		            source->server, what, source->deadline_seconds);
		disconnect(source, FALSE);
		return FALSE;
	}
	const char *said = source->imap != NULL && server_refused(rc)
	                       ? source->imap->imap_response : NULL;
	gboolean quote = said != NULL && *said != '\0';
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
	            "%s: %s: %s%s%s%s", source->server, what, etpan_strerror(rc),
	            quote ? " (server said: \"" : "", quote ? said : "",
	            quote ? "\")" : "");
	disconnect(source, FALSE);
	return FALSE;
}

static void
set_server_name(struct mailstream_ssl_context *context, void *data)
{
	ImapSource *source = data;
	/* SNI carries DNS names only (RFC 6066, section 3). */
	if (!g_hostname_is_ip_address(source->host))
		mailstream_ssl_set_server_name(context, source->host);
}

/* Checks the certificate chain the server presented, before anything
 * secret is sent. */
static gboolean
verify_server(ImapSource *source, GError **error)
{
	g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_bytes_unref);
	g_autoptr(GError) local = NULL;
	carray *der = mailstream_get_certificate_chain(source->imap->imap_stream);
	if (der != NULL) {
		for (unsigned i = 0; i < carray_count(der); i++) {
			MMAPString *certificate = carray_get(der, i);
			g_ptr_array_add(chain, g_bytes_new(certificate->str,
			                                   certificate->len));
			mmap_string_free(certificate);
		}
		carray_free(der);
	}
	if (!tls_verify_chain(chain, source->host, source->ca_file, &local)) {
		g_autofree char *trusting = source->ca_file != NULL
			? g_strdup_printf("trusting only %s", source->ca_file)
			: g_strdup("trusting the system's CAs");
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_VERIFY,
		            "%s: TLS certificate refused, not logging in (%s): %s",
		            source->server, trusting, local->message);
		disconnect(source, FALSE);
		return FALSE;
	}
	g_free(source->peer);
	source->peer = tls_verify_describe(chain->pdata[0], FALSE);
	return TRUE;
}

static gboolean
refresh_capabilities(ImapSource *source, GError **error)
{
	struct mailimap_capability_data *capabilities = NULL;
	int rc = mailimap_capability(source->imap, &capabilities);
	if (rc != MAILIMAP_NO_ERROR)
		return fail(source, rc, "CAPABILITY", error);
	mailimap_capability_data_free(capabilities);
	return TRUE;
}

/* Connects one socket to ADDRESS within NETWORK_TIMEOUT, looking every
 * 0.2 s whether to stop.  Returns the (blocking) socket or -1. */
static int
connect_address(const struct addrinfo *address, int *saved_errno)
{
	int fd = socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC,
	                address->ai_protocol);
	if (fd < 0) {
		*saved_errno = errno;
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	int rc = connect(fd, address->ai_addr, address->ai_addrlen);
	gint64 deadline = g_get_monotonic_time() + NETWORK_TIMEOUT * G_USEC_PER_SEC;
	while (rc < 0 && errno == EINPROGRESS) {
		if (util_stopping() || g_get_monotonic_time() >= deadline) {
			errno = util_stopping() ? ECANCELED : ETIMEDOUT;
			break;
		}
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		int problem = 0;
		socklen_t len = sizeof problem;
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &len);
		rc = problem ? -1 : 0;
		errno = problem;
	}
	if (rc < 0) {
		*saved_errno = errno;
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, flags);
	return fd;
}

/* Opens the TCP connection and the libetpan stream on it (TLS from the
 * first byte for imaps://), with the socket watched by netstop, and
 * reads the greeting: a MAILIMAP_NO_ERROR_* or an error code. */
static int
open_stream(ImapSource *source, GError **error)
{
	char port[8];
	g_snprintf(port, sizeof port, "%u", source->port);
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *addresses = NULL;
	int gai = getaddrinfo(source->host, port, &hints, &addresses);
	if (gai != 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "%s: connect: %s", source->server, gai_strerror(gai));
		return -1;
	}
	int fd = -1, saved_errno = 0;
	for (struct addrinfo *a = addresses; a && fd < 0 && !util_stopping();
	     a = a->ai_next)
		fd = connect_address(a, &saved_errno);
	freeaddrinfo(addresses);
	if (fd < 0) {
		if (util_stopping())
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
			            "%s: connect: stopped by a signal",
			            source->server);
		else
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
			            "%s: connect: cannot connect: %s",
			            source->server, g_strerror(saved_errno));
		return -1;
	}
	netstop_watch(fd);
	source->fd = fd;
	deadline_arm(source, CONNECT_DEADLINE);
	mailstream *stream =
	    source->implicit_tls
	        ? mailstream_ssl_open_with_callback_timeout(
	              fd, NETWORK_TIMEOUT, set_server_name, source)
	        : mailstream_socket_open_timeout(fd, NETWORK_TIMEOUT);
	if (stream == NULL) {
		gboolean expired = netstop_expired(fd);
		source->fd = -1;
		netstop_unwatch(fd);
		close(fd);
		if (expired) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
			            "%s: connect: no complete answer within %d s "
			            "(the server is too slow or stalls)",
			            source->server, CONNECT_DEADLINE);
			return -1;
		}
		return source->implicit_tls ? MAILIMAP_ERROR_SSL
		                            : MAILIMAP_ERROR_CONNECTION_REFUSED;
	}
	return mailimap_connect(source->imap, stream);
}

/* Opens a TCP connection and brings it to verified TLS: TLS from the
 * first byte for imaps://, STARTTLS (required) for imap://. */
static gboolean
connect_tls(ImapSource *source, gboolean *authenticated, GError **error)
{
	int rc;
	if (source->implicit_tls) {
		rc = open_stream(source, error);
		if (rc < 0) {
			disconnect(source, FALSE);
			return FALSE;
		}
		if (rc != MAILIMAP_NO_ERROR_AUTHENTICATED &&
		    rc != MAILIMAP_NO_ERROR_NON_AUTHENTICATED)
			return fail(source, rc, "connect", error);
		*authenticated = rc == MAILIMAP_NO_ERROR_AUTHENTICATED;
		return verify_server(source, error);
	}

	rc = open_stream(source, error);
	if (rc < 0) {
		disconnect(source, FALSE);
		return FALSE;
	}
	if (rc == MAILIMAP_NO_ERROR_AUTHENTICATED) {
		/* A pre-authenticated plain connection can no longer be
		 * secured (STARTTLS is only valid before login). */
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "%s: the server pre-authenticated a plain-text connection; "
		            "refusing to use it (use imaps://)", source->server);
		disconnect(source, FALSE);
		return FALSE;
	}
	if (rc != MAILIMAP_NO_ERROR_NON_AUTHENTICATED)
		return fail(source, rc, "connect", error);
	if (!refresh_capabilities(source, error))
		return FALSE;
	if (!mailimap_has_extension(source->imap, "STARTTLS")) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "%s: the server does not offer STARTTLS; tenure does not "
		            "log in over plain text (use imaps:// or enable TLS on the server)",
		            source->server);
		disconnect(source, FALSE);
		return FALSE;
	}
	rc = mailimap_socket_starttls_with_callback(source->imap,
	                                            set_server_name, source);
	if (rc != MAILIMAP_NO_ERROR)
		return fail(source, rc, "STARTTLS", error);
	*authenticated = FALSE;
	return verify_server(source, error);
}

static gboolean
log_in(ImapSource *source, GError **error)
{
	int rc;
	/* What the server said before TLS could have been forged; ask again. */
	if (!refresh_capabilities(source, error))
		return FALSE;
	if (mailimap_has_extension(source->imap, "LOGINDISABLED")) {
		if (!mailimap_has_authentication(source->imap, "PLAIN")) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
			            "%s: the server allows neither LOGIN nor AUTHENTICATE PLAIN",
			            source->server);
			disconnect(source, FALSE);
			return FALSE;
		}
		rc = mailimap_authenticate(source->imap, "PLAIN", source->host,
		                           NULL, NULL, source->user, source->user,
		                           source->password, NULL);
		if (rc != MAILIMAP_NO_ERROR)
			return fail(source, rc, "AUTHENTICATE PLAIN", error);
	} else {
		rc = mailimap_login(source->imap, source->user, source->password);
		if (rc != MAILIMAP_NO_ERROR)
			return fail(source, rc, "LOGIN", error);
	}
	return TRUE;
}

static struct mailimap_msg_att_static *
find_static(struct mailimap_msg_att *message, int type);
static gint64 internal_date_to_unix(const struct mailimap_date_time *date);

/* *NEWEST: the INTERNALDATE of the mailbox's last message (sequence
 * number EXISTS), the latest time by the server's clock that tenure can
 * learn without writing; 0 for an empty mailbox. */
static gboolean
newest_arrival(ImapSource *source, guint32 exists, gint64 *newest,
               GError **error)
{
	*newest = 0;
	if (exists == 0)
		return TRUE;
	struct mailimap_set *set = mailimap_set_new_single(exists);
	struct mailimap_fetch_type *type = mailimap_fetch_type_new_fetch_att(
		mailimap_fetch_att_new_internaldate());
	clist *answer = NULL;
	int rc = mailimap_fetch(source->imap, set, type, &answer);
	mailimap_fetch_type_free(type);
	mailimap_set_free(set);
	if (rc != MAILIMAP_NO_ERROR)
		return fail(source, rc, "FETCH (the newest INTERNALDATE)", error);
	for (clistiter *it = clist_begin(answer); it != NULL; it = clist_next(it)) {
		struct mailimap_msg_att_static *date =
			find_static(clist_content(it), MAILIMAP_MSG_ATT_INTERNALDATE);
		if (date != NULL)
			*newest = MAX(*newest, internal_date_to_unix(
				date->att_data.att_internal_date));
	}
	mailimap_fetch_list_free(answer);
	return TRUE;
}

/* *FIRST: the lowest UID of the mail that arrived on or after the day
 * before WHEN, by the server's dates: none older can be in a window that
 * starts at WHEN, so a large mailbox is not listed whole.  SEARCH SINCE
 * compares dates in the server's time zone; the day before, in UTC,
 * covers every zone.  0 when there is no such mail. */
static gboolean
first_uid_since(ImapSource *source, gint64 when, guint32 *first,
                GError **error)
{
	*first = 0;
	g_autoptr(GDateTime) day =
		g_date_time_new_from_unix_utc(MAX(when, 0) - 24 * 60 * 60);
	struct mailimap_search_key *key = mailimap_search_key_new_since(
		mailimap_date_new(g_date_time_get_day_of_month(day),
		                  g_date_time_get_month(day),
		                  g_date_time_get_year(day)));
	clist *answer = NULL;
	int rc = mailimap_uid_search(source->imap, NULL, key, &answer);
	mailimap_search_key_free(key);
	if (rc != MAILIMAP_NO_ERROR)
		return fail(source, rc, "UID SEARCH SINCE (where the window starts)",
		            error);
	for (clistiter *it = clist_begin(answer); it != NULL; it = clist_next(it)) {
		guint32 uid = *(uint32_t *)clist_content(it);
		if (*first == 0 || uid < *first)
			*first = uid;
	}
	mailimap_search_result_free(answer);
	return TRUE;
}

/* Where a reading window starts, by the server's clock: max-signature-age
 * before the newest mail (NEWEST), for an older command is refused
 * anyway (verify.h).  Tenure's own clock may narrow it, when it is later
 * (the newest mail of a quiet list may be weeks old), never widen it. */
static gint64
window_start(const ImapSource *source, gint64 newest)
{
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	return MAX(newest, now) - source->max_age;
}

/* Compares the mailbox just opened (EXISTS messages) with the cursor and
 * decides where to go on from, saving the cursor when that changed. */
static gboolean
reconcile_cursor(ImapSource *source, guint32 uidvalidity, guint32 uidnext,
                 guint32 exists, GError **error)
{
	ImapCursor *cursor = &source->cursor;
	char validity_text[16], next_text[16], old_text[16], from_text[24],
		first_text[16];
	g_snprintf(validity_text, sizeof validity_text, "%u", uidvalidity);
	g_snprintf(next_text, sizeof next_text, "%u", uidnext);
	gboolean first = !imap_cursor_matches(cursor, source->server,
	                                      source->user, source->mailbox);
	if (!first && cursor->uidvalidity == uidvalidity)
		return TRUE;
	gint64 newest = 0;
	if (!newest_arrival(source, exists, &newest, error))
		return FALSE;
	if (first) {
		/* What was there is read within the window; the window's
		 * server-clock start is the horizon for good. */
		imap_cursor_clear(cursor);
		cursor->server = g_strdup(source->server);
		cursor->user = g_strdup(source->user);
		cursor->mailbox = g_strdup(source->mailbox);
		cursor->horizon = newest > 0 ? newest - source->max_age : 0;
		cursor->read_from = window_start(source, newest);
	} else {
		cursor->read_from =
			MAX(cursor->horizon, window_start(source, newest));
	}
	guint32 first_uid = 0;
	if (!first_uid_since(source, cursor->read_from, &first_uid, error))
		return FALSE;
	g_snprintf(old_text, sizeof old_text, "%u", cursor->uidvalidity);
	cursor->uidvalidity = uidvalidity;
	cursor->last_uid = first_uid > 0 ? first_uid - 1 : uidnext - 1;
	cursor->reread_until = uidnext - 1;
	g_snprintf(from_text, sizeof from_text, "%" G_GINT64_FORMAT,
	           cursor->read_from);
	g_snprintf(first_text, sizeof first_text, "%u", cursor->last_uid + 1);
	if (first)
		util_log("imap-first-contact", "server", source->server, "mailbox",
		         source->mailbox, "uidvalidity", validity_text, "uidnext",
		         next_text, "read-from", from_text, "first-uid", first_text,
		         NULL);
	else
		util_log_warning("imap-uidvalidity-changed", "server",
		                 source->server, "mailbox", source->mailbox, "old",
		                 old_text, "new", validity_text, "read-from",
		                 from_text, "first-uid", first_text, NULL);
	/* Nothing of the new numbering is dealt with yet. */
	source->handled_through = cursor->last_uid;
	g_hash_table_remove_all(source->waiting);
	return imap_cursor_save(source->cursor_path, cursor, error);
}

static gboolean
open_mailbox(ImapSource *source, GError **error)
{
	int rc = mailimap_examine(source->imap, source->mailbox);
	if (rc != MAILIMAP_NO_ERROR) {
		g_autofree char *what = g_strdup_printf("EXAMINE %s", source->mailbox);
		return fail(source, rc, what, error);
	}
	struct mailimap_selection_info *info = source->imap->imap_selection_info;
	if (info->sel_uidvalidity == 0 || info->sel_uidnext == 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "%s: EXAMINE %s: the server sent no %s (RFC 3501 requires it)",
		            source->server, source->mailbox,
		            info->sel_uidvalidity == 0 ? "UIDVALIDITY" : "UIDNEXT");
		disconnect(source, FALSE);
		return FALSE;
	}
	guint32 uidnext = info->sel_uidnext;
	if (!reconcile_cursor(source, info->sel_uidvalidity, uidnext,
	                      info->sel_exists, error)) {
		disconnect(source, FALSE);
		return FALSE;
	}
	source->may_have_mail = uidnext > source->cursor.last_uid + 1;
	return TRUE;
}

/* An INTERNALDATE is a time the server's clock has passed (clock.h). */
static void
observe_arrival(const ImapSource *source, gint64 arrival)
{
	g_autofree char *server =
	    g_strdup_printf("the IMAP server %s", source->server);
	clock_observe(server, arrival, FALSE);
}

/* Reads the INTERNALDATE of the newest message in the mailbox just
 * opened, for clock.h: one FETCH per connection. */
static gboolean
observe_newest(ImapSource *source, GError **error)
{
	gint64 newest = 0;
	if (!newest_arrival(source, source->imap->imap_selection_info->sel_exists,
	                    &newest, error))
		return FALSE;
	if (newest > 0)
		observe_arrival(source, newest);
	return TRUE;
}

/* Tells REPORT (may be NULL) STEP, made from FORMAT. */
static void G_GNUC_PRINTF(3, 4)
report_step(SourceProbeReport report, gpointer user_data,
            const char *format, ...)
{
	if (report == NULL)
		return;
	va_list args;
	va_start(args, format);
	g_autofree char *step = g_strdup_vprintf(format, args);
	va_end(args);
	report(step, user_data);
}

/* Connects, brings the connection to verified TLS and logs in, telling
 * REPORT (may be NULL: the daemon's connections) each step. */
static gboolean
start_session(ImapSource *source, SourceProbeReport report,
              gpointer user_data, GError **error)
{
	gboolean authenticated = FALSE;
	source->imap = mailimap_new(0, NULL);
	if (source->imap == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "%s: out of memory", source->server);
		return FALSE;
	}
	mailimap_set_timeout(source->imap, NETWORK_TIMEOUT);
	if (!connect_tls(source, &authenticated, error))
		return FALSE;
	report_step(report, user_data, "connected to %s, %sTLS verified (%s)",
	            source->server, source->implicit_tls ? "" : "STARTTLS, ",
	            source->peer ? source->peer : "certificate unreadable");
	if (!authenticated && !log_in(source, error))
		return FALSE;
	report_step(report, user_data, "%s as %s",
	            authenticated ? "pre-authenticated by the server"
	                          : "logged in",
	            source->user);
	return TRUE;
}

static gboolean
imap_connect(ImapSource *source, GError **error)
{
	if (!start_session(source, NULL, NULL, error))
		return FALSE;
	/* Capabilities may grow after login (Dovecot adds IDLE's friends). */
	if (!refresh_capabilities(source, error))
		return FALSE;
	source->has_idle = mailimap_has_idle(source->imap);
	if (!open_mailbox(source, error) || !observe_newest(source, error))
		return FALSE;
	util_log("imap-connected", "server", source->server, "user",
	         source->user, "mailbox", source->mailbox, "tls",
	         source->implicit_tls ? "implicit" : "starttls", "idle",
	         source->has_idle ? "yes" : "no", NULL);
	return TRUE;
}

static gboolean
ensure_connected(ImapSource *source, GError **error)
{
	if (source->imap != NULL)
		return TRUE;
	gboolean ok = imap_connect(source, error);
	deadline_rest(source);
	return ok;
}

/* Resets the flag libetpan raises when an EXISTS response arrives, so
 * that a later look tells whether one came in between. */
static void
watch_exists(ImapSource *source)
{
	source->imap->imap_selection_info->sel_has_exists = 0;
}

static gboolean
saw_exists(ImapSource *source)
{
	return source->imap->imap_selection_info->sel_has_exists != 0;
}

static struct mailimap_msg_att_static *
find_static(struct mailimap_msg_att *message, int type)
{
	for (clistiter *it = clist_begin(message->att_list); it != NULL;
	     it = clist_next(it)) {
		struct mailimap_msg_att_item *item = clist_content(it);
		if (item->att_type == MAILIMAP_MSG_ATT_ITEM_STATIC &&
		    item->att_data.att_static->att_type == type)
			return item->att_data.att_static;
	}
	return NULL;
}

static int
compare_pending(gconstpointer a, gconstpointer b)
{
	const PendingMessage *x = a, *y = b;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* TRUE for mail that was there when a window was set (a first contact,
 * a renumbering) and arrived before it: older than any command that
 * could still act, or than what the first contact read. */
static gboolean
before_window(const ImapSource *source, const PendingMessage *message)
{
	const ImapCursor *cursor = &source->cursor;
	return message->uid <= cursor->reread_until && message->arrival > 0 &&
	       message->arrival < cursor->read_from;
}

static char *
retry_key(guint32 uidvalidity, guint32 uid)
{
	return g_strdup_printf("imap %u/%u", uidvalidity, uid);
}

/* The messages of this mailbox the retry record has waiting join
 * those this process knows to wait (issue 25, item 4: the record may be
 * lost or torn, and removed, while they still wait). */
static void
note_waiting(ImapSource *source)
{
	g_autofree char *prefix = g_strdup_printf("imap %u/",
	                                          source->cursor.uidvalidity);
	g_autoptr(GPtrArray) waiting = retry_waiting(source->retry, prefix, 0);
	for (guint i = 0; i < waiting->len; i++) {
		guint32 uid = (guint32)g_ascii_strtoull(
		    (char *)waiting->pdata[i] + strlen(prefix), NULL, 10);
		if (uid > source->cursor.last_uid)
			g_hash_table_add(source->waiting, GUINT_TO_POINTER(uid));
	}
}

/* The lowest UID of this mailbox waiting for a verdict, or 0. */
static guint32
lowest_waiting(ImapSource *source)
{
	note_waiting(source);
	guint32 lowest = 0;
	GHashTableIter iter;
	gpointer key;
	g_hash_table_iter_init(&iter, source->waiting);
	while (g_hash_table_iter_next(&iter, &key, NULL)) {
		guint32 uid = GPOINTER_TO_UINT(key);
		if (lowest == 0 || uid < lowest)
			lowest = uid;
	}
	return lowest;
}

/* UID has a final outcome (handled, or set aside): nothing holds the
 * cursor before it any more. */
static void
outcome_final(ImapSource *source, guint32 uid)
{
	g_hash_table_remove(source->waiting, GUINT_TO_POINTER(uid));
}

/* Every UID up to UID is dealt with: the cursor moves there, but never
 * past a message waiting for a verdict. */
static gboolean
dealt_with(ImapSource *source, guint32 uid, GError **error)
{
	source->handled_through = MAX(source->handled_through, uid);
	guint32 target = source->handled_through;
	guint32 waiting = lowest_waiting(source);
	if (waiting > 0)
		target = MIN(target, waiting - 1);
	if (target <= source->cursor.last_uid)
		return TRUE;
	source->cursor.last_uid = target;
	return imap_cursor_save(source->cursor_path, &source->cursor, error);
}

/* Whether UID, beyond the cursor, is to be handed over now: a message
 * waiting for a verdict when its next try is due, any other once only
 * (the cursor may stand behind mail dealt with, see dealt_with). */
static gboolean
wanted(ImapSource *source, guint32 uid, gint64 now)
{
	g_autofree char *key = retry_key(source->cursor.uidvalidity, uid);
	if (retry_is_waiting(source->retry, key))
		return retry_due(source->retry, key, now);
	/* Waiting, and its record gone: its schedule is lost, the message
	 * is not, and it is tried now. */
	if (g_hash_table_contains(source->waiting, GUINT_TO_POINTER(uid)))
		return TRUE;
	return uid > source->handled_through;
}

/* Lists the UIDs (with sizes and INTERNALDATEs) beyond the cursor.
 * "UID FETCH N:*" also answers with the last message when no UID is N
 * or above, so the answer is filtered.  Mail from before a window
 * (before_window) is left out; *SKIPPED_THROUGH gets the highest such
 * UID. */
static gboolean
list_new(ImapSource *source, GArray *pending, guint32 *skipped_through,
         GError **error)
{
	if (source->cursor.last_uid == G_MAXUINT32)
		return TRUE;
	struct mailimap_set *set =
		mailimap_set_new_interval(source->cursor.last_uid + 1, 0);
	struct mailimap_fetch_type *type =
		mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(type, mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(type,
	                                           mailimap_fetch_att_new_rfc822_size());
	mailimap_fetch_type_new_fetch_att_list_add(type,
	                                           mailimap_fetch_att_new_internaldate());
	clist *answer = NULL;
	int rc = mailimap_uid_fetch(source->imap, set, type, &answer);
	mailimap_fetch_type_free(type);
	mailimap_set_free(set);
	if (rc != MAILIMAP_NO_ERROR)
		return fail(source, rc, "UID FETCH (listing new mail)", error);
	*skipped_through = 0;
	gint64 now = date_now_unix();
	for (clistiter *it = clist_begin(answer); it != NULL; it = clist_next(it)) {
		struct mailimap_msg_att *message = clist_content(it);
		struct mailimap_msg_att_static *uid =
			find_static(message, MAILIMAP_MSG_ATT_UID);
		struct mailimap_msg_att_static *size =
			find_static(message, MAILIMAP_MSG_ATT_RFC822_SIZE);
		struct mailimap_msg_att_static *date =
			find_static(message, MAILIMAP_MSG_ATT_INTERNALDATE);
		if (uid == NULL || uid->att_data.att_uid <= source->cursor.last_uid)
			continue;
		PendingMessage entry = {
			uid->att_data.att_uid,
			size != NULL ? size->att_data.att_rfc822_size : 0,
			date != NULL ? internal_date_to_unix(date->att_data.att_internal_date) : 0,
		};
		if (entry.arrival > 0)
			observe_arrival(source, entry.arrival);
		if (before_window(source, &entry)) {
			char uid_text[16], arrival[24], from[24];
			g_snprintf(uid_text, sizeof uid_text, "%u", entry.uid);
			g_snprintf(arrival, sizeof arrival, "%" G_GINT64_FORMAT, entry.arrival);
			g_snprintf(from, sizeof from, "%" G_GINT64_FORMAT,
			           source->cursor.read_from);
			util_log("imap-message-skipped", "server", source->server,
			         "uid", uid_text, "reason",
			         "arrived before the window read at a first contact or renumbering",
			         "arrival", arrival, "read-from", from, NULL);
			*skipped_through = MAX(*skipped_through, entry.uid);
			continue;
		}
		if (!wanted(source, entry.uid, now))
			continue;
		g_array_append_val(pending, entry);
	}
	mailimap_fetch_list_free(answer);
	g_array_sort(pending, compare_pending);
	return TRUE;
}

/* INTERNALDATE as Unix time; 0 when the server sent none. */
static gint64
internal_date_to_unix(const struct mailimap_date_time *date)
{
	if (date == NULL)
		return 0;
	/* dt_zone is +HHMM as a number: -0130 is -130. */
	int zone = date->dt_zone;
	int sign = zone < 0 ? -1 : 1;
	zone = ABS(zone);
	GTimeSpan offset = sign * ((zone / 100) * G_TIME_SPAN_HOUR +
	                           (zone % 100) * G_TIME_SPAN_MINUTE);
	g_autoptr(GTimeZone) tz = g_time_zone_new_offset((gint32)(offset / G_TIME_SPAN_SECOND));
	g_autoptr(GDateTime) when = g_date_time_new(tz, date->dt_year,
	                                            date->dt_month, date->dt_day,
	                                            date->dt_hour, date->dt_min,
	                                            date->dt_sec);
	return when != NULL ? g_date_time_to_unix(when) : 0;
}

static int
compare_fetched(gconstpointer a, gconstpointer b)
{
	const FetchedMessage *x = a, *y = b;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* A message UID could not be handled for REASON, a reason of its own:
 * one more try is counted in the state.  Until the tries are used up
 * (or at once when FINAL: a message too large to fetch), the fetch
 * stops before it without an error, to try again next time; then it is
 * recorded as failed, logged once, and the cursor moves past it.  FALSE
 * only when the state cannot be written. */
static gboolean
message_failed(ImapSource *source, guint32 uid, const char *id,
               const char *reason, gboolean final, GError **error)
{
	guint tries = 0;
	gboolean give_up = FALSE;
	if (!imap_failed_note(source->failed, source->cursor.uidvalidity, uid,
	                      reason, final, &tries, &give_up, error))
		return FALSE;
	char tries_text[16];
	g_snprintf(tries_text, sizeof tries_text, "%u", tries);
	if (!give_up) {
		util_log("imap-message-retry", "id", id, "tries", tries_text,
		         "reason", reason, NULL);
		source->retry_later = TRUE;
		return TRUE;
	}
	util_log("set-aside", "id", id, "tries", tries_text, "reason", reason,
	         NULL);
	g_autofree char *key = retry_key(source->cursor.uidvalidity, uid);
	if (!retry_forget(source->retry, key, error))
		return FALSE;
	outcome_final(source, uid);
	return dealt_with(source, uid, error);
}

/* Message UID could not be decided now for REASON: recorded to be
 * fetched again when due; the cursor stays before it, but the mail
 * behind it is not held up; once its time is up, it is recorded as
 * failed like a message that cannot be handled. */
static gboolean
message_deferred(ImapSource *source, guint32 uid, const char *id,
                 const char *reason, GError **error)
{
	g_autofree char *key = retry_key(source->cursor.uidvalidity, uid);
	gboolean give_up = FALSE;
	/* Waiting before its record is written: the record may be lost,
	 * the cursor must still stop before the message. */
	g_hash_table_add(source->waiting, GUINT_TO_POINTER(uid));
	if (!source_defer(source->retry, source->conf, key, id, reason, &give_up,
	                  error))
		return FALSE;
	if (!give_up)
		return dealt_with(source, uid, error);
	/* Set aside (source_defer said so in the log): recorded as failed
	 * like a message that cannot be handled, and passed. */
	guint tries = 0;
	if (!imap_failed_note(source->failed, source->cursor.uidvalidity, uid,
	                      reason, TRUE, &tries, &give_up, error))
		return FALSE;
	outcome_final(source, uid);
	return dealt_with(source, uid, error);
}

/* Hands one fetched message over and, once the handler says it is dealt
 * with, moves the cursor past it. */
static gboolean
hand_over(ImapSource *source, const FetchedMessage *fetched,
          SourceHandler handler, gpointer user_data, GError **error)
{
	g_autofree char *id = g_strdup_printf("%s;UIDVALIDITY=%u/;UID=%u",
	                                      source->mailbox,
	                                      source->cursor.uidvalidity,
	                                      fetched->uid);
	g_autoptr(GBytes) raw = g_bytes_new(fetched->body, fetched->length);
	SourceMessage message = {
		.id = id,
		.raw = raw,
		.arrival = internal_date_to_unix(fetched->internal_date),
	};
	/* A server that sends no INTERNALDATE: the mail arrived by the time
	 * it is read, the latest it can have (authority must then hold
	 * now, never less than at its real arrival). */
	if (message.arrival <= 0)
		message.arrival = date_now_unix();
	g_autoptr(GError) local = NULL;
	if (!handler(&message, user_data, &local)) {
		/* Without a final outcome: the cursor stops before it, and
		 * it is handed over again at the next fetch. */
		if (source_error_is_held(local)) {
			g_hash_table_add(source->waiting,
			                 GUINT_TO_POINTER(fetched->uid));
			return TRUE;
		}
		if (source_error_is_temporary(local))
			return message_deferred(source, fetched->uid, id,
			                        local->message, error);
		if (!source_error_is_message(local)) {
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		return message_failed(source, fetched->uid, id, local->message,
		                      FALSE, error);
	}
	g_autofree char *key = retry_key(source->cursor.uidvalidity, fetched->uid);
	if (!imap_failed_forget(source->failed, source->cursor.uidvalidity,
	                        fetched->uid, error) ||
	    !retry_forget(source->retry, key, error))
		return FALSE;
	outcome_final(source, fetched->uid);
	return dealt_with(source, fetched->uid, error);
}

/* TRUE when UID is one of PENDING[0, COUNT). */
static gboolean
requested(const PendingMessage *pending, guint count, guint32 uid)
{
	for (guint i = 0; i < count; i++)
		if (pending[i].uid == uid)
			return TRUE;
	return FALSE;
}

/* Fetches the bodies of PENDING[FIRST, FIRST+COUNT) and hands them over
 * in UID order. */
static gboolean
fetch_batch(ImapSource *source, const PendingMessage *pending, guint count,
            SourceHandler handler, gpointer user_data, GError **error)
{
	struct mailimap_set *set = mailimap_set_new_empty();
	guint64 bytes = 0;
	for (guint i = 0; i < count; i++) {
		mailimap_set_add_single(set, pending[i].uid);
		bytes += pending[i].size;
	}
	deadline_arm(source, COMMAND_DEADLINE + (int)(bytes / SLOWEST_RATE));
	struct mailimap_fetch_type *type =
		mailimap_fetch_type_new_fetch_att_list_empty();
	mailimap_fetch_type_new_fetch_att_list_add(type, mailimap_fetch_att_new_uid());
	mailimap_fetch_type_new_fetch_att_list_add(type,
	                                           mailimap_fetch_att_new_internaldate());
	mailimap_fetch_type_new_fetch_att_list_add(
		type, mailimap_fetch_att_new_body_peek_section(mailimap_section_new(NULL)));
	clist *answer = NULL;
	int rc = mailimap_uid_fetch(source->imap, set, type, &answer);
	mailimap_fetch_type_free(type);
	mailimap_set_free(set);
	if (rc != MAILIMAP_NO_ERROR)
		return fail(source, rc, "UID FETCH (message bodies)", error);
	/* The bodies are in: handling them is no talk with the server. */
	deadline_rest(source);

	g_autoptr(GArray) fetched = g_array_new(FALSE, TRUE, sizeof(FetchedMessage));
	for (clistiter *it = clist_begin(answer); it != NULL; it = clist_next(it)) {
		struct mailimap_msg_att *message = clist_content(it);
		struct mailimap_msg_att_static *uid =
			find_static(message, MAILIMAP_MSG_ATT_UID);
		struct mailimap_msg_att_static *body =
			find_static(message, MAILIMAP_MSG_ATT_BODY_SECTION);
		struct mailimap_msg_att_static *date =
			find_static(message, MAILIMAP_MSG_ATT_INTERNALDATE);
		/* Unsolicited FETCH responses (flag changes) carry no body,
		 * and may name other messages. */
		if (uid == NULL || body == NULL ||
		    !requested(pending, count, uid->att_data.att_uid))
			continue;
		FetchedMessage entry = {
			.uid = uid->att_data.att_uid,
			.body = body->att_data.att_body_section->sec_body_part,
			.length = body->att_data.att_body_section->sec_length,
			.internal_date = date != NULL ? date->att_data.att_internal_date : NULL,
		};
		if (entry.body == NULL) {
			char uid_text[16];
			g_snprintf(uid_text, sizeof uid_text, "%u", entry.uid);
			util_log_warning("imap-message-skipped", "server", source->server,
			         "uid", uid_text, "reason", "the server sent no body", NULL);
			continue;
		}
		g_array_append_val(fetched, entry);
	}
	g_array_sort(fetched, compare_fetched);

	gboolean ok = TRUE;
	for (guint i = 0; ok && !source->retry_later && i < fetched->len; i++)
		ok = hand_over(source, &g_array_index(fetched, FetchedMessage, i),
		               handler, user_data, error);
	mailimap_fetch_list_free(answer);
	return ok;
}

static gboolean
fetch_pending(ImapSource *source, GArray *pending, SourceHandler handler,
              gpointer user_data, GError **error)
{
	guint first = 0;
	while (first < pending->len && !source->retry_later) {
		/* Never fetched: a message this large cannot be a command,
		 * and would cost its size in memory. */
		const PendingMessage *next = &g_array_index(pending, PendingMessage,
		                                            first);
		if (next->size > SOURCE_MAX_SIZE) {
			g_autofree char *id = g_strdup_printf("%s;UIDVALIDITY=%u/;UID=%u",
			                                      source->mailbox,
			                                      source->cursor.uidvalidity,
			                                      next->uid);
			g_autofree char *reason = source_too_large(next->size);
			if (!message_failed(source, next->uid, id, reason, TRUE, error))
				return FALSE;
			first++;
			continue;
		}
		guint count = 0;
		guint64 bytes = 0;
		while (first + count < pending->len && count < BATCH_MESSAGES) {
			guint32 size = g_array_index(pending, PendingMessage,
			                             first + count).size;
			if (count > 0 && bytes + size > BATCH_BYTES)
				break;
			bytes += size;
			count++;
		}
		if (!fetch_batch(source, &g_array_index(pending, PendingMessage, first),
		                 count, handler, user_data, error))
			return FALSE;
		first += count;
	}
	return TRUE;
}

/* Records of an earlier UIDVALIDITY go (the renumbered mailbox is read
 * again anyway); TRUE in *DUE when a waiting message's next try has
 * come, so that the mailbox is listed again. */
static gboolean
tidy_waiting(ImapSource *source, gboolean *due, GError **error)
{
	g_autofree char *prefix = g_strdup_printf("imap %u/",
	                                          source->cursor.uidvalidity);
	g_autoptr(GPtrArray) all = retry_waiting(source->retry, "imap ", 0);
	for (guint i = 0; i < all->len; i++)
		if (!g_str_has_prefix(all->pdata[i], prefix) &&
		    !retry_forget(source->retry, all->pdata[i], error))
			return FALSE;
	g_autoptr(GPtrArray) ready = retry_waiting(source->retry, prefix,
	                                           date_now_unix());
	*due = ready->len > 0;
	/* A waiting message whose record is gone is due now. */
	note_waiting(source);
	GHashTableIter iter;
	gpointer uid;
	g_hash_table_iter_init(&iter, source->waiting);
	while (!*due && g_hash_table_iter_next(&iter, &uid, NULL)) {
		g_autofree char *key = retry_key(source->cursor.uidvalidity,
		                                 GPOINTER_TO_UINT(uid));
		*due = !retry_is_waiting(source->retry, key);
	}
	return TRUE;
}

static gboolean
imap_fetch(Source *base, SourceHandler handler, gpointer user_data,
           GError **error)
{
	ImapSource *source = (ImapSource *)base;
	if (!ensure_connected(source, error))
		return FALSE;
	gboolean due = FALSE;
	if (!tidy_waiting(source, &due, error))
		return FALSE;
	source->handled_through = MAX(source->handled_through,
	                              source->cursor.last_uid);
	if (due)
		source->may_have_mail = TRUE;
	/* Mail that arrives while we fetch shows up as an EXISTS in the
	 * middle of our commands' responses; go round again then. */
	while (source->may_have_mail) {
		g_autoptr(GArray) pending = g_array_new(FALSE, FALSE,
		                                        sizeof(PendingMessage));
		guint32 skipped_through = 0;
		watch_exists(source);
		deadline_arm(source, COMMAND_DEADLINE);
		gboolean listed = list_new(source, pending, &skipped_through, error);
		deadline_rest(source);
		if (!listed)
			return FALSE;
		if (pending->len > 0) {
			char count[16];
			g_snprintf(count, sizeof count, "%u", pending->len);
			util_log("imap-new-mail", "server", source->server, "mailbox",
			         source->mailbox, "messages", count, NULL);
		}
		if (!fetch_pending(source, pending, handler, user_data, error))
			return FALSE;
		if (source->retry_later) {
			/* A message failed a try: the next fetch tries again
			 * without waiting for new mail. */
			source->retry_later = FALSE;
			source->may_have_mail = TRUE;
			return TRUE;
		}
		/* Past mail left out at the end of the list, so it is not
		 * listed again at every connection. */
		if (skipped_through > source->cursor.last_uid &&
		    !dealt_with(source, skipped_through, error))
			return FALSE;
		source->may_have_mail = source->imap != NULL && saw_exists(source);
	}
	return TRUE;
}

static gint64
ms_left(gint64 deadline)
{
	gint64 left = (deadline - g_get_monotonic_time()) / 1000;
	return MAX(left, 0);
}

static gboolean
wait_idle(ImapSource *source, gint64 deadline, GError **error)
{
	for (;;) {
		gint64 left = ms_left(deadline);
		if (left == 0)
			return TRUE;
		deadline_arm(source, COMMAND_DEADLINE);
		int rc = mailimap_idle(source->imap);
		if (rc != MAILIMAP_NO_ERROR)
			return fail(source, rc, "IDLE", error);
		deadline_rest(source);
		int woke = 1;
		/* Responses that came with the continuation are in libetpan's
		 * buffer already; the socket would not show them. */
		if (source->imap->imap_stream->read_buffer_len == 0)
			woke = source_sleep(&source->base,
			                    mailimap_idle_get_fd(source->imap),
			                    MIN(left, IDLE_MAX_SECONDS * 1000));
		deadline_arm(source, COMMAND_DEADLINE);
		rc = mailimap_idle_done(source->imap);
		if (rc != MAILIMAP_NO_ERROR)
			return fail(source, rc, "IDLE (DONE)", error);
		deadline_rest(source);
		if (saw_exists(source)) {
			source->may_have_mail = TRUE;
			return TRUE;
		}
		/* A signal is the caller's business; a keep-alive ("OK Still
		 * here") or a flag change is not new mail: idle on. */
		if (woke < 0)
			return TRUE;
	}
}

static gboolean
wait_poll(ImapSource *source, gint64 deadline, GError **error)
{
	gint64 pause = MIN(ms_left(deadline), (gint64)source->poll_interval * 1000);
	if (source_sleep(&source->base, -1, pause) < 0)
		return TRUE;
	watch_exists(source);
	deadline_arm(source, COMMAND_DEADLINE);
	int rc = mailimap_noop(source->imap);
	if (rc != MAILIMAP_NO_ERROR)
		return fail(source, rc, "NOOP", error);
	deadline_rest(source);
	if (saw_exists(source))
		source->may_have_mail = TRUE;
	return TRUE;
}

static gboolean
imap_wait(Source *base, int timeout, GError **error)
{
	ImapSource *source = (ImapSource *)base;
	if (!ensure_connected(source, error))
		return FALSE;
	if (source->may_have_mail)
		return TRUE;
	gint64 deadline = g_get_monotonic_time() + (gint64)MAX(timeout, 0) * G_USEC_PER_SEC;
	return source->has_idle ? wait_idle(source, deadline, error)
	                        : wait_poll(source, deadline, error);
}

/* A wait cut short by a stop is no connection error: the caller looks
 * at its flags. */
static gboolean
imap_wait_or_stop(Source *base, int timeout, GError **error)
{
	g_autoptr(GError) local = NULL;
	if (imap_wait(base, timeout, &local))
		return TRUE;
	if (g_error_matches(local, G_IO_ERROR, G_IO_ERROR_CANCELLED))
		return TRUE;
	g_propagate_error(error, g_steal_pointer(&local));
	return FALSE;
}

/* The mailbox is opened with EXAMINE, as fetch() opens it: read-only,
 * so that not even a \Recent flag changes. */
static gboolean
imap_probe(Source *base, SourceProbeReport report, gpointer user_data,
           GError **error)
{
	ImapSource *source = (ImapSource *)base;
	gboolean ok = FALSE;
	int rc;
	if (!start_session(source, report, user_data, error))
		goto out;
	deadline_arm(source, COMMAND_DEADLINE);
	rc = mailimap_examine(source->imap, source->mailbox);
	if (rc != MAILIMAP_NO_ERROR) {
		g_autofree char *what = g_strdup_printf("EXAMINE %s", source->mailbox);
		fail(source, rc, what, error);
		goto out;
	}
	report_step(report, user_data,
	            "mailbox %s selected read-only (EXAMINE): %u message(s)",
	            source->mailbox,
	            source->imap->imap_selection_info->sel_exists);
	ok = TRUE;
out:
	deadline_rest(source);
	disconnect(source, TRUE);
	if (ok)
		report_step(report, user_data, "logged out");
	return ok;
}

static void
imap_close(Source *base)
{
	ImapSource *source = (ImapSource *)base;
	if (source == NULL)
		return;
	disconnect(source, TRUE);
	g_free(source->server);
	g_free(source->host);
	g_free(source->user);
	if (source->password != NULL) {
		memset(source->password, 0, strlen(source->password));
		g_free(source->password);
	}
	g_free(source->ca_file);
	g_free(source->peer);
	g_free(source->mailbox);
	g_free(source->cursor_path);
	imap_cursor_clear(&source->cursor);
	imap_failed_free(source->failed);
	retry_free(source->retry);
	if (source->waiting)
		g_hash_table_unref(source->waiting);
	g_free(source);
}

/* The mailbox an IMAP URL's path names, as mail clients read it
 * (imaps://host/INBOX, imaps://host/lists/ctte; percent escapes
 * decoded), or NULL for no path; FALSE with *PROBLEM for a path
 * tenure cannot take as a mailbox. */
static gboolean
url_mailbox(const char *path, char **mailbox, const char **problem)
{
	*mailbox = NULL;
	while (*path == '/')
		path++;
	if (*path == '\0')
		return TRUE;
	/* RFC 5092 parameters (;UIDVALIDITY=, ;UID=) select messages, not a
	 * mailbox to follow. */
	if (strchr(path, ';') != NULL) {
		*problem = "the path holds \";\" parameters; name only the mailbox";
		return FALSE;
	}
	g_autofree char *name = g_strdup(path);
	gsize len = strlen(name);
	while (len > 0 && name[len - 1] == '/')
		name[--len] = '\0';
	if (strstr(name, "//") != NULL || !g_utf8_validate(name, -1, NULL) ||
	    strpbrk(name, "\r\n\"") != NULL) {
		*problem = "the path is not a mailbox name";
		return FALSE;
	}
	*mailbox = g_steal_pointer(&name);
	return TRUE;
}

/* Takes the URL apart: imap[s]://[USER@]HOST[:PORT][/MAILBOX].  The
 * mailbox is the URL's, else [source] mailbox, else INBOX; the user
 * [source] user (or the URL's). */
static gboolean
parse_url(ImapSource *source, const char *url, const Conf *conf,
          GError **error)
{
	const char *conf_user = conf->source_user;
	g_autoptr(GError) local = NULL;
	g_autoptr(GUri) uri = g_uri_parse(url, G_URI_FLAGS_NONE, &local);
	if (uri == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "[source] url: \"%s\": %s", url, local->message);
		return FALSE;
	}
	const char *scheme = g_uri_get_scheme(uri);
	if (g_ascii_strcasecmp(scheme, "imaps") == 0)
		source->implicit_tls = TRUE;
	else if (g_ascii_strcasecmp(scheme, "imap") != 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "[source] url: \"%s\": not an imap:// or imaps:// URL", url);
		return FALSE;
	}
	const char *host = g_uri_get_host(uri);
	const char *path = g_uri_get_path(uri);
	if (host == NULL || *host == '\0') {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "[source] url: \"%s\": no host name", url);
		return FALSE;
	}
	const char *problem = NULL;
	g_autofree char *mailbox = NULL;
	if (g_uri_get_query(uri) != NULL || g_uri_get_fragment(uri) != NULL)
		problem = "a query or fragment means nothing to tenure";
	else if (g_uri_get_port(uri) == 0)
		problem = "port 0";
	else
		url_mailbox(path ? path : "", &mailbox, &problem);
	if (problem != NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
		            "[source] url: \"%s\": %s", url, problem);
		return FALSE;
	}
	if (mailbox && conf->source_mailbox &&
	    strcmp(mailbox, conf->source_mailbox) != 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[source] url: \"%s\" names mailbox \"%s\" but [source] "
		            "mailbox is \"%s\"; keep one",
		            url, mailbox, conf->source_mailbox);
		return FALSE;
	}
	g_free(source->mailbox);
	source->mailbox = g_strdup(mailbox ? mailbox
	                                   : conf->source_mailbox ? conf->source_mailbox
	                                                          : "INBOX");
	int port = g_uri_get_port(uri);
	source->host = g_strdup(host);
	source->port = port > 0 ? (guint16)port : source->implicit_tls ? 993 : 143;
	source->server = g_strdup_printf("%s://%s%s%s:%u",
	                                 source->implicit_tls ? "imaps" : "imap",
	                                 strchr(host, ':') ? "[" : "", host,
	                                 strchr(host, ':') ? "]" : "",
	                                 source->port);
	const char *user = conf_user != NULL ? conf_user : g_uri_get_user(uri);
	if (user == NULL || *user == '\0') {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[source] user: required for %s", source->server);
		return FALSE;
	}
	source->user = g_strdup(user);
	return TRUE;
}

static Source *
imap_open(const Conf *conf, const char *url, GError **error)
{
	ImapSource *source = g_new0(ImapSource, 1);
	source->fd = -1;
	source->waiting = g_hash_table_new(g_direct_hash, g_direct_equal);
	gboolean found;
	source->base.driver = &source_imap_driver;
	source->base.wake_fd = -1;
	source->poll_interval = conf->poll_interval > 0 ? conf->poll_interval : 300;
	source->max_age = (gint64)conf->max_signature_age * 24 * 60 * 60;
	source->ca_file = g_strdup(conf->source_ca_file);
	source->cursor_path = imap_cursor_path(conf->state_dir);

	if (!parse_url(source, url, conf, error))
		goto fail;
	if (conf->source_password_file == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[source] password-file: required for %s", source->server);
		goto fail;
	}
	source->password = conf_read_password(conf->source_password_file, error);
	if (source->password == NULL)
		goto fail;
	if (!imap_cursor_load(source->cursor_path, &source->cursor, &found, error))
		goto fail;
	source->failed = imap_failed_load(conf->state_dir, error);
	if (source->failed == NULL)
		goto fail;
	source->conf = conf;
	source->retry = retry_open(conf->state_dir, error);
	if (source->retry == NULL)
		goto fail;
	return &source->base;
fail:
	imap_close(&source->base);
	return NULL;
}

const SourceDriver source_imap_driver = {
	.scheme = "imap",
	.open = imap_open,
	.fetch = imap_fetch,
	.wait = imap_wait_or_stop,
	.close = imap_close,
	.probe = imap_probe,
};
