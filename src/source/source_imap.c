/* source_imap.c: list mail from an IMAP mailbox (imap:// with STARTTLS,
 * imaps://), through libetpan.
 *
 * Security: every connection is TLS, verified here with GnuTLS before the
 * password leaves (see tls_verify.h: libetpan itself accepts any
 * certificate).  imap:// insists on STARTTLS and never falls back to
 * plain text.
 *
 * Where the source stands in the mailbox, and what it reads next (the
 * cursor, a first contact's or a renumbering's window, failed and
 * waiting messages), is imap_place.h's; this file holds the
 * conversation with the server.
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
#include "base/date.h"
#include "base/netstop.h"
#include "base/plaintext.h"
#include "base/resolve.h"
#include "source/imap_place.h"
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
	ImapPlace place;        /* where it stands (imap_place.h) */

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

/* After a failed imaps:// handshake: whether the server greets in plain
 * text at PORT (plaintext.h), which GnuTLS only calls an unexpected
 * packet.  Then ERROR names the URL to use instead. */
static gboolean
plain_port(const ImapSource *source, const char *port, GError **error)
{
	static const char *const greetings[] = {"* OK", "* PREAUTH", "* BYE",
	                                        NULL};
	if (!plaintext_greets(source->host, port, greetings))
		return FALSE;
	/* An address literal with colons is bracketed in a URL. */
	g_autofree char *host = strchr(source->host, ':')
	                            ? g_strdup_printf("[%s]", source->host)
	                            : g_strdup(source->host);
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
	            "%s: TLS: the server at %s:%s speaks plain text there: use "
	            "imap://%s:%s (STARTTLS) or imaps://%s:993",
	            source->server, host, port, host, port, host);
	return TRUE;
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
	g_autoptr(GError) lookup = NULL;
	struct addrinfo *addresses = resolve_bounded(
	    source->host, port, &hints, RESOLVE_TIMEOUT_MS, &lookup);
	if (addresses == NULL) {
		g_set_error(error, lookup->domain, lookup->code,
		            "%s: connect: %s", source->server, lookup->message);
		return -1;
	}
	/* The clock's witness check needs no lookup of its own. */
	clock_note_addresses(source->host, addresses);
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
		if (source->implicit_tls && plain_port(source, port, error))
			return -1;
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

/* Compares the mailbox just opened (EXISTS messages) with the cursor and
 * decides where to go on from (imap_place.h), asking the server what it
 * needs for that. */
static gboolean
reconcile_cursor(ImapSource *source, guint32 uidvalidity, guint32 uidnext,
                 guint32 exists, GError **error)
{
	ImapPlace *place = &source->place;
	gboolean first = !imap_place_matches(place);
	if (!first && place->cursor.uidvalidity == uidvalidity)
		return TRUE;
	gint64 newest = 0;
	if (!newest_arrival(source, exists, &newest, error))
		return FALSE;
	imap_place_set_window(place, first, newest);
	guint32 first_uid = 0;
	if (!first_uid_since(source, place->cursor.read_from, &first_uid, error))
		return FALSE;
	return imap_place_restart(place, first, uidvalidity, uidnext, first_uid,
	                          error);
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
	source->may_have_mail = uidnext > source->place.cursor.last_uid + 1;
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

/* Lists the UIDs (with sizes and INTERNALDATEs) beyond the cursor.
 * "UID FETCH N:*" also answers with the last message when no UID is N
 * or above, so the answer is filtered.  Mail from before a window
 * (imap_place_before_window) is left out; *SKIPPED_THROUGH gets the
 * highest such UID. */
static gboolean
list_new(ImapSource *source, GArray *pending, guint32 *skipped_through,
         GError **error)
{
	if (source->place.cursor.last_uid == G_MAXUINT32)
		return TRUE;
	struct mailimap_set *set =
		mailimap_set_new_interval(source->place.cursor.last_uid + 1, 0);
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
	/* Every UID there beyond the cursor, and the lowest of them. */
	g_autoptr(GHashTable) listed = g_hash_table_new(g_direct_hash,
	                                                g_direct_equal);
	guint32 lowest = 0;
	for (clistiter *it = clist_begin(answer); it != NULL; it = clist_next(it)) {
		struct mailimap_msg_att *message = clist_content(it);
		struct mailimap_msg_att_static *uid =
			find_static(message, MAILIMAP_MSG_ATT_UID);
		struct mailimap_msg_att_static *size =
			find_static(message, MAILIMAP_MSG_ATT_RFC822_SIZE);
		struct mailimap_msg_att_static *date =
			find_static(message, MAILIMAP_MSG_ATT_INTERNALDATE);
		if (uid == NULL || uid->att_data.att_uid <= source->place.cursor.last_uid)
			continue;
		g_hash_table_add(listed, GUINT_TO_POINTER(uid->att_data.att_uid));
		if (lowest == 0 || uid->att_data.att_uid < lowest)
			lowest = uid->att_data.att_uid;
		PendingMessage entry = {
			uid->att_data.att_uid,
			size != NULL ? size->att_data.att_rfc822_size : 0,
			date != NULL ? internal_date_to_unix(date->att_data.att_internal_date) : 0,
		};
		if (entry.arrival > 0)
			observe_arrival(source, entry.arrival);
		if (imap_place_before_window(&source->place, entry.uid,
		                             entry.arrival)) {
			char uid_text[16], arrival[24], from[24];
			g_snprintf(uid_text, sizeof uid_text, "%u", entry.uid);
			g_snprintf(arrival, sizeof arrival, "%" G_GINT64_FORMAT, entry.arrival);
			g_snprintf(from, sizeof from, "%" G_GINT64_FORMAT,
			           source->place.cursor.read_from);
			util_log("imap-message-skipped", "server", source->server,
			         "uid", uid_text, "reason",
			         "arrived before the window read at a first contact or renumbering",
			         "arrival", arrival, "read-from", from, NULL);
			*skipped_through = MAX(*skipped_through, entry.uid);
			continue;
		}
		if (!imap_place_wanted(&source->place, entry.uid, now))
			continue;
		g_array_append_val(pending, entry);
	}
	mailimap_fetch_list_free(answer);
	g_array_sort(pending, compare_pending);
	/* Mail tenure never dealt with that is not there any more (issue
	 * 33 item 7): below the lowest UID there, or, with none there,
	 * below the UIDNEXT the mailbox had when opened (every UID under it
	 * was given to a message by then). */
	const struct mailimap_selection_info *info =
	    source->imap->imap_selection_info;
	guint32 below = lowest ? lowest : info ? info->sel_uidnext : 0;
	return imap_place_listed(&source->place, listed, below, error);
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
	gint64 offset = sign * ((zone / 100) * 3600 + (zone % 100) * 60);
	/* Arithmetic, with no GTimeZone: GLib keeps its zones in a cache
	 * shared by the threads, under a lock of its own that
	 * ThreadSanitizer cannot see, and the reader thread runs this while
	 * the main thread dates the mail it composes (a report in t-daemon.sh
	 * under CI's ThreadSanitizer run). */
	if (date->dt_month < 1 || date->dt_month > 12 || date->dt_day < 1 ||
	    date->dt_day > 31 || date->dt_hour < 0 || date->dt_hour > 23 ||
	    date->dt_min < 0 || date->dt_min > 59 || date->dt_sec < 0 ||
	    date->dt_sec > 60)
		return 0;
	struct tm tm = {.tm_year = date->dt_year - 1900,
	                .tm_mon = date->dt_month - 1,
	                .tm_mday = date->dt_day,
	                .tm_hour = date->dt_hour,
	                .tm_min = date->dt_min,
	                .tm_sec = date->dt_sec};
	time_t utc = timegm(&tm);
	return utc == (time_t)-1 ? 0 : (gint64)utc - offset;
}

static int
compare_fetched(gconstpointer a, gconstpointer b)
{
	const FetchedMessage *x = a, *y = b;
	return x->uid < y->uid ? -1 : x->uid > y->uid;
}

/* Hands one fetched message over and, once the handler says it is dealt
 * with, moves the cursor past it. */
static gboolean
hand_over(ImapSource *source, const FetchedMessage *fetched,
          SourceHandler handler, gpointer user_data, GError **error)
{
	g_autofree char *id = g_strdup_printf("%s;UIDVALIDITY=%u/;UID=%u",
	                                      source->mailbox,
	                                      source->place.cursor.uidvalidity,
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
			imap_place_held(&source->place, fetched->uid);
			return TRUE;
		}
		if (source_error_is_temporary(local))
			return imap_place_deferred(&source->place, fetched->uid,
			                           id, local->message, error);
		if (!source_error_is_message(local)) {
			g_propagate_error(error, g_steal_pointer(&local));
			return FALSE;
		}
		return imap_place_failed(&source->place, fetched->uid, id,
		                         local->message, FALSE, error);
	}
	return imap_place_handled(&source->place, fetched->uid, error);
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
	for (guint i = 0; ok && !source->place.retry_later && i < fetched->len; i++)
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
	while (first < pending->len && !source->place.retry_later) {
		/* Never fetched: a message this large cannot be a command,
		 * and would cost its size in memory. */
		const PendingMessage *next = &g_array_index(pending, PendingMessage,
		                                            first);
		if (next->size > SOURCE_MAX_SIZE) {
			g_autofree char *id = g_strdup_printf("%s;UIDVALIDITY=%u/;UID=%u",
			                                      source->mailbox,
			                                      source->place.cursor.uidvalidity,
			                                      next->uid);
			g_autofree char *reason = source_too_large(next->size);
			if (!imap_place_failed(&source->place, next->uid, id,
			                       reason, TRUE, error))
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

static gboolean
imap_fetch(Source *base, SourceHandler handler, gpointer user_data,
           GError **error)
{
	ImapSource *source = (ImapSource *)base;
	if (!ensure_connected(source, error))
		return FALSE;
	gboolean due = FALSE;
	if (!imap_place_tidy(&source->place, &due, error))
		return FALSE;
	source->place.handled_through = MAX(source->place.handled_through,
	                                    source->place.cursor.last_uid);
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
		if (source->place.retry_later) {
			/* A message failed a try: the next fetch tries again
			 * without waiting for new mail. */
			source->place.retry_later = FALSE;
			source->may_have_mail = TRUE;
			return TRUE;
		}
		/* Past mail left out at the end of the list, so it is not
		 * listed again at every connection. */
		if (skipped_through > source->place.cursor.last_uid &&
		    !imap_place_dealt_with(&source->place, skipped_through, error))
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
	g_free(source->place.cursor_path);
	imap_cursor_clear(&source->place.cursor);
	imap_failed_free(source->place.failed);
	retry_free(source->place.retry);
	if (source->place.waiting)
		g_hash_table_unref(source->place.waiting);
	if (source->place.gone)
		g_hash_table_unref(source->place.gone);
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
	source->place.waiting = g_hash_table_new(g_direct_hash, g_direct_equal);
	gboolean found;
	source->base.driver = &source_imap_driver;
	source->base.wake_fd = -1;
	source->poll_interval = conf->poll_interval > 0 ? conf->poll_interval : 300;
	source->place.max_age = (gint64)conf->max_signature_age * 24 * 60 * 60;
	source->ca_file = g_strdup(conf->source_ca_file);
	source->place.cursor_path = imap_cursor_path(conf->state_dir);

	if (!parse_url(source, url, conf, error))
		goto fail;
	source->place.server = source->server;
	source->place.user = source->user;
	source->place.mailbox = source->mailbox;
	if (conf->source_password_file == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[source] password-file: required for %s", source->server);
		goto fail;
	}
	source->password = conf_read_password(conf->source_password_file, error);
	if (source->password == NULL)
		goto fail;
	if (!imap_cursor_load(source->place.cursor_path, &source->place.cursor,
	                      &found, error))
		goto fail;
	source->place.failed = imap_failed_load(conf->state_dir, error);
	if (source->place.failed == NULL)
		goto fail;
	source->place.conf = conf;
	source->place.retry = retry_open(conf->state_dir, error);
	if (source->place.retry == NULL)
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
