/* sink_smtp.c: delivers outgoing mail by SMTP with libcurl.
 *
 * smtps:// is TLS from the first byte.  smtp:// requires STARTTLS
 * (CURLUSESSL_ALL: a server that does not offer it, or refuses it, is an
 * error, never a reason to go on in clear text) unless [sink] starttls =
 * no, which is meant for a local MTA on localhost:25.  Certificates are
 * always verified, against the system CAs or [sink] ca-file.  AUTH is
 * used when [sink] user is set, with the password from [sink]
 * password-file, and never over an unencrypted connection to another
 * host.
 *
 * Each mail is logged on one line, as msmtp logs it:
 *   smtp host=... tls=... auth=... from=... recipients=... smtpstatus=...
 * with errormsg=... when it failed, and refused=... when some recipients
 * were refused and the others took the mail.
 *
 * Each reply to RCPT TO that refuses a recipient is handed to the
 * outbox with its address (SinkRefusal, sink.h), so that it keeps an
 * outcome per recipient.  Only a 5xx reply to every RCPT TO, or to DATA
 * and the message itself, is a refusal of this message
 * (TENURE_ERROR_INVALID: dead letter); recipients refused with a 4xx
 * among them make it temporary.  A refusal at connection level, which
 * would refuse any message (a 554 greeting, a 5xx to EHLO, STARTTLS,
 * AUTH or MAIL FROM, such as "530 authentication required"), and
 * everything else that fails, is temporary (TENURE_ERROR_NETWORK: the
 * outbox keeps the mail and retries it), with the server's words in the
 * error for `tenure status`.  A session that ends after the whole
 * message went out and before the server answered it (the connection
 * dropped, or the answer never came within the time) is neither: the
 * server may have taken the message (G_IO_ERROR_CONNECTION_CLOSED, see
 * sink.h).
 *
 * A session kept between mails that the server closed while it sat idle
 * (a 421 to the first command, or no answer to it at all) is opened
 * again at once, a single time, before the mail counts as failed: an
 * idle timeout is not an outage (closed_while_idle).
 *
 * Time: connecting may take 15 s, a stall in the session 30 s, a whole
 * mail 60 s: every wait ends well inside systemd's stop timeout.  A stop
 * (SIGTERM, SIGINT: util_stopping) ends the session within a second
 * (the progress callback, and netstop.h for the waits libcurl makes
 * without calling it), except once the whole message is out: then the
 * server's answer is waited for up to NETSTOP_GRACE_SECONDS more, so
 * that mail it took is recorded as sent rather than sent again after the
 * restart.  A session cut short fails with G_IO_ERROR_CANCELLED.
 */
#include "config.h"

#include "out/sink.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <gio/gio.h>
#include <gmime/gmime.h>

#include "base/clock.h"
#include "base/netstop.h"
#include "base/plaintext.h"
#include "base/tls_verify.h"
#include "base/util.h"

#define CONNECT_TIMEOUT 15L
#define STALL_TIMEOUT   30L
#define MAIL_TIMEOUT    60L
#define STOP_GRACE      (NETSTOP_GRACE_SECONDS * G_USEC_PER_SEC)

/* libcurl before 8.2 spells the option with three L's. */
#if LIBCURL_VERSION_NUM >= 0x080200
#define RCPT_ALLOWFAILS CURLOPT_MAIL_RCPT_ALLOWFAILS
#else
#define RCPT_ALLOWFAILS CURLOPT_MAIL_RCPT_ALLLOWFAILS
#endif

typedef struct {
	Sink base;
	CURL *curl;
	char *url;
	char *host;      /* host:port, for the log */
	const char *tls; /* "smtps", "starttls" or "no" */
	long use_ssl;    /* CURLUSESSL_ALL or CURLUSESSL_NONE */
	char *user;
	char *password;
	char *ca_file;
	char errbuf[CURL_ERROR_SIZE];
	GString *last_reply; /* the server's last reply line */
	GString *refusals;   /* every 4xx/5xx reply of this mail, "; "-joined */
	char last_command[8]; /* the verb of the last command sent ("" before
	                         any): which step a reply answers */
	char failed_command[8]; /* the step the last 4xx/5xx reply answered */
	GString *failed_reply;  /* that reply */
	char *rcpt;             /* the address of the last RCPT TO sent */
	GPtrArray *rcpt_refused; /* SinkRefusal *: this mail's recipients the
	                            server refused */
	gint64 stop_seen;       /* monotonic time a stop was first seen; 0 */
	gboolean data_out;      /* the whole message went to the server */
	gboolean cut;           /* this session was ended by a stop */
	gboolean authenticated; /* the server took AUTH (a 235) */
	int fd;                 /* the connection's socket, -1 while none */
} SmtpSink;

typedef struct {
	SmtpSink *sink;
	const char *data;
	gsize len;
	gsize offset;
} Reader;

static size_t
read_message(char *buffer, size_t size, size_t nitems, void *user_data)
{
	Reader *reader = user_data;
	gsize room = size * nitems;
	gsize n = MIN(room, reader->len - reader->offset);
	memcpy(buffer, reader->data + reader->offset, n);
	reader->offset += n;
	/* All of it is handed over (curl, knowing the size, may not ask
	 * again): a stop now waits for the server's answer. */
	if (reader->offset == reader->len) {
		reader->sink->data_out = TRUE;
		if (reader->sink->fd >= 0)
			netstop_grace(reader->sink->fd, TRUE);
	}
	return n;
}

static int
on_socket(void *user_data, curl_socket_t fd, curlsocktype purpose)
{
	SmtpSink *sink = user_data;
	sink->fd = fd;
	netstop_watch(fd);
	return CURL_SOCKOPT_OK;
}

static int
on_close_socket(void *user_data, curl_socket_t fd)
{
	SmtpSink *sink = user_data;
	netstop_unwatch(fd);
	if (sink->fd == fd)
		sink->fd = -1;
	return close(fd);
}

/* A date in a reply line ("220 mx ESMTP Exim 4.96 Thu, 03 Dec 2026
 * 12:00:00 +0000"), as Unix time; 0 when it has none.  Exim and Sendmail
 * put one in their greeting: the server's clock, for clock.h. */
static gint64
reply_date(const char *line)
{
	static GRegex *date_pattern;
	static gsize compiled = 0;
	if (g_once_init_enter(&compiled)) {
		date_pattern = g_regex_new(
		    "\\b\\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
		    "\\d{4} \\d{2}:\\d{2}(:\\d{2})? [+-]\\d{4}\\b",
		    G_REGEX_OPTIMIZE, 0, NULL);
		g_once_init_leave(&compiled, 1);
	}
	g_autoptr(GMatchInfo) match = NULL;
	if (!g_regex_match(date_pattern, line, 0, &match))
		return 0;
	g_autofree char *text = g_match_info_fetch(match, 0);
	g_autoptr(GDateTime) when = g_mime_utils_header_decode_date(text);
	return when ? g_date_time_to_unix(when) : 0;
}

/* 530 and 535 say "authenticate first" wherever they come: never a
 * refusal of the message or a recipient. */
static gboolean
reply_is_permanent(long status)
{
	return status >= 500 && status <= 599 && status != 530 && status != 535;
}

/* Keeps the last line the server sent, and the last refusal with the
 * step it answered, so errors quote its words ("530 5.7.0
 * Authentication required" at MAIL) rather than only curl's summary.
 * The answer to the QUIT curl sends after a failure says nothing. */
static int
debug_reply(CURL *handle, curl_infotype type, char *data, size_t size,
            void *user_data)
{
	SmtpSink *sink = user_data;
	if (type == CURLINFO_HEADER_OUT) {
		/* What answers a 334 is the AUTH exchange going on, not a
		 * command of its own. */
		if (g_ascii_strcasecmp(sink->last_command, "AUTH") == 0 &&
		    g_str_has_prefix(sink->last_reply->str, "334"))
			return 0;
		gsize n = 0;
		while (n < size && n < sizeof sink->last_command - 1 &&
		       g_ascii_isalpha(data[n]))
			n++;
		memcpy(sink->last_command, data, n);
		sink->last_command[n] = '\0';
		if (g_ascii_strcasecmp(sink->last_command, "RCPT") == 0) {
			const char *lt = memchr(data, '<', size);
			const char *gt =
			    lt ? memchr(lt, '>', size - (lt - data)) : NULL;
			g_free(sink->rcpt);
			sink->rcpt = gt ? g_strndup(lt + 1, gt - lt - 1) : NULL;
		}
		return 0;
	}
	if (type != CURLINFO_HEADER_IN ||
	    g_ascii_strcasecmp(sink->last_command, "QUIT") == 0)
		return 0;
	if (g_ascii_strcasecmp(sink->last_command, "AUTH") == 0 &&
	    size >= 3 && memcmp(data, "235", 3) == 0)
		sink->authenticated = TRUE;
	g_autofree char *text = g_strndup(data, size);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	for (char **line = lines; *line; line++) {
		g_strstrip(*line);
		if (**line == '\0')
			continue;
		g_string_assign(sink->last_reply, *line);
		gint64 server_time = reply_date(*line);
		if (server_time > 0) {
			g_autofree char *server =
			    g_strdup_printf("the SMTP server %s", sink->host);
			clock_observe(server, server_time, TRUE);
		}
		if (**line == '4' || **line == '5') {
			g_string_append_printf(sink->refusals, "%s%s",
			                       sink->refusals->len ? "; " : "",
			                       *line);
			g_string_assign(sink->failed_reply, *line);
			memcpy(sink->failed_command, sink->last_command,
			       sizeof sink->failed_command);
			/* The last line of a reply ("550 ...", not "550-")
			 * refusing a recipient: that recipient's outcome. */
			gboolean last = strlen(*line) < 4 || (*line)[3] == ' ';
			if (last && sink->rcpt &&
			    g_ascii_strcasecmp(sink->last_command, "RCPT") == 0)
				g_ptr_array_add(
				    sink->rcpt_refused,
				    sink_refusal_new(
				        sink->rcpt, *line,
				        reply_is_permanent(
				            g_ascii_strtoll(*line, NULL, 10))));
		}
	}
	return 0;
}

/* libcurl calls this at least once a second while a session lasts. */
static int
on_progress(void *user_data, curl_off_t dltotal, curl_off_t dlnow,
            curl_off_t ultotal, curl_off_t ulnow)
{
	SmtpSink *sink = user_data;
	if (!util_stopping())
		return 0;
	gint64 now = g_get_monotonic_time();
	if (sink->stop_seen == 0)
		sink->stop_seen = now;
	/* The message is out and the answer on its way: the server may
	 * have taken it, so hear what it says. */
	if (ultotal > 0 && ulnow >= ultotal && now - sink->stop_seen < STOP_GRACE)
		return 0;
	sink->cut = TRUE;
	return 1;
}

static gboolean
host_is_loopback(const char *host)
{
	return g_strcmp0(host, "localhost") == 0 ||
	       g_str_has_prefix(host, "127.") || g_strcmp0(host, "::1") == 0 ||
	       g_strcmp0(host, "[::1]") == 0;
}

static void smtp_close(Sink *base);

static Sink *
smtp_open(const Conf *conf, const char *url, GError **error)
{
	static gsize curl_initialised = 0;
	if (g_once_init_enter(&curl_initialised)) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		g_once_init_leave(&curl_initialised, 1);
	}
	SmtpSink *sink = g_new0(SmtpSink, 1);
	sink->base.driver = &sink_smtp_driver;
	sink->url = g_strdup(url);
	sink->last_reply = g_string_new(NULL);
	sink->refusals = g_string_new(NULL);
	sink->fd = -1;
	sink->failed_reply = g_string_new(NULL);
	sink->rcpt_refused =
	    g_ptr_array_new_with_free_func((GDestroyNotify)sink_refusal_free);

	CURLU *parsed = curl_url();
	char *host = NULL, *port = NULL;
	CURLUcode uc = curl_url_set(parsed, CURLUPART_URL, url, 0);
	if (uc == CURLUE_OK)
		uc = curl_url_get(parsed, CURLUPART_HOST, &host, 0);
	if (uc == CURLUE_OK)
		curl_url_get(parsed, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
	curl_url_cleanup(parsed);
	if (uc != CURLUE_OK) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[sink] url \"%s\": %s", url,
		            curl_url_strerror(uc));
		goto fail;
	}
	gboolean loopback = host_is_loopback(host);
	sink->host = g_strdup_printf("%s:%s", host, port ? port : "");
	curl_free(host);
	curl_free(port);

	if (g_str_has_prefix(url, "smtps://")) {
		sink->tls = "smtps";
		sink->use_ssl = CURLUSESSL_ALL;
	} else if (conf->sink_starttls) {
		sink->tls = "starttls";
		sink->use_ssl = CURLUSESSL_ALL;
	} else {
		sink->tls = "no";
		sink->use_ssl = CURLUSESSL_NONE;
	}
	/* Clear text leaves the host only by mistake: starttls = no is for
	 * a local MTA, whatever else is configured. */
	if (sink->use_ssl == CURLUSESSL_NONE && !loopback) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "[sink] starttls = no: only for a local MTA on a "
		            "loopback address (localhost, 127.0.0.1, ::1), not %s",
		            sink->host);
		goto fail;
	}

	if (conf->sink_user && *conf->sink_user) {
		if (conf->sink_password_file == NULL) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
			            "[sink] user is set but password-file is "
			            "not");
			goto fail;
		}
		sink->password =
		    conf_read_password(conf->sink_password_file, error);
		if (sink->password == NULL)
			goto fail;
		sink->user = g_strdup(conf->sink_user);
	}
	sink->ca_file = g_strdup(conf->sink_ca_file);
	sink->curl = curl_easy_init();
	if (sink->curl == NULL) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "libcurl could not make a handle");
		goto fail;
	}
	return &sink->base;
fail:
	smtp_close(&sink->base);
	return NULL;
}

/* Forgets what the last session or mail left: before each try. */
static void
smtp_reset(SmtpSink *sink)
{
	if (sink->fd >= 0)
		netstop_grace(sink->fd, FALSE);
	sink->errbuf[0] = '\0';
	g_string_truncate(sink->last_reply, 0);
	g_string_truncate(sink->refusals, 0);
	sink->last_command[0] = '\0';
	sink->failed_command[0] = '\0';
	g_string_truncate(sink->failed_reply, 0);
	g_clear_pointer(&sink->rcpt, g_free);
	g_ptr_array_set_size(sink->rcpt_refused, 0);
	sink->stop_seen = 0;
	sink->cut = FALSE;
	sink->data_out = FALSE;
	sink->authenticated = FALSE;
}

/* The session as every mail and the probe have it: TLS, its
 * verification, AUTH, the time limits, the stop, and the replies
 * watched. */
static void
smtp_setup_session(SmtpSink *sink)
{
	CURL *curl = sink->curl;
	/* A reset keeps the open connection, so a flush of many messages
	 * uses one SMTP session. */
	curl_easy_reset(curl);
	curl_easy_setopt(curl, CURLOPT_URL, sink->url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	curl_easy_setopt(curl, CURLOPT_USE_SSL, sink->use_ssl);
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
	if (sink->ca_file) {
		/* Trust only the configured CA file; without CAPATH unset,
		 * curl also reads every certificate in /etc/ssl/certs on each
		 * send (about 4 MB and 30 ms). */
		curl_easy_setopt(curl, CURLOPT_CAINFO, sink->ca_file);
		curl_easy_setopt(curl, CURLOPT_CAPATH, NULL);
	}
	if (sink->user) {
		curl_easy_setopt(curl, CURLOPT_USERNAME, sink->user);
		curl_easy_setopt(curl, CURLOPT_PASSWORD, sink->password);
	}
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, CONNECT_TIMEOUT);
	/* A stalled server holds the daemon's pass (mail is not read
	 * meanwhile); the outbox keeps the mail for the next try. */
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, STALL_TIMEOUT);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, MAIL_TIMEOUT);
	curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(curl, CURLOPT_XFERINFODATA, sink);
	curl_easy_setopt(curl, CURLOPT_SOCKOPTFUNCTION, on_socket);
	curl_easy_setopt(curl, CURLOPT_SOCKOPTDATA, sink);
	curl_easy_setopt(curl, CURLOPT_CLOSESOCKETFUNCTION, on_close_socket);
	curl_easy_setopt(curl, CURLOPT_CLOSESOCKETDATA, sink);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, sink->errbuf);
	curl_easy_setopt(curl, CURLOPT_VERBOSE, 1L);
	curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, debug_reply);
	curl_easy_setopt(curl, CURLOPT_DEBUGDATA, sink);
}

static void
smtp_setup(SmtpSink *sink, const char *from, struct curl_slist *rcpt,
           Reader *reader)
{
	CURL *curl = sink->curl;
	smtp_setup_session(sink);
	curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
	/* One refused recipient (a member's address that no longer
	 * exists) must not keep an announcement from the list; the mail
	 * fails only when every recipient is refused, and the refusals are
	 * logged. */
	curl_easy_setopt(curl, RCPT_ALLOWFAILS, 1L);
	curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_message);
	curl_easy_setopt(curl, CURLOPT_READDATA, reader);
	curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE,
	                 (curl_off_t)reader->len);
}

/* Only a 5xx answer to this message's recipients or data is
 * permanent.  The same answer to the greeting, EHLO, STARTTLS, AUTH or
 * MAIL FROM (the bot's own address) would refuse every message: a
 * server or configuration problem that must not turn the queue into
 * dead letters.  530 and 535 say "authenticate first" wherever they
 * come. */
static gboolean
refusal_is_permanent(const SmtpSink *sink, long status)
{
	if (!reply_is_permanent(status))
		return FALSE;
	if (g_ascii_strcasecmp(sink->failed_command, "RCPT") == 0) {
		/* Every recipient refused: for good only if each was. */
		for (guint i = 0; i < sink->rcpt_refused->len; i++) {
			const SinkRefusal *r = sink->rcpt_refused->pdata[i];
			if (!r->permanent)
				return FALSE;
		}
		return TRUE;
	}
	return g_ascii_strcasecmp(sink->failed_command, "DATA") == 0;
}

/* Hands this mail's refused recipients to REFUSED (may be NULL). */
static void
pass_refusals(SmtpSink *sink, GPtrArray *refused)
{
	for (guint i = 0; refused && i < sink->rcpt_refused->len; i++)
		g_ptr_array_add(refused,
		                g_steal_pointer(&sink->rcpt_refused->pdata[i]));
	g_ptr_array_set_size(sink->rcpt_refused, 0);
}

/* TRUE when this mail began on a session the server had closed while it
 * sat idle between mails (Exim and Postfix do so after about five
 * minutes): a kept connection whose first command got a 421, or no
 * answer at all (an EOF, a reset).  Nothing of the mail went out, and a
 * new session, opened at once, is all it takes. */
static gboolean
closed_while_idle(SmtpSink *sink, CURLcode rc, long status)
{
	long connects = 0;
	curl_easy_getinfo(sink->curl, CURLINFO_NUM_CONNECTS, &connects);
	/* A session that stalls is not one that ended: it has had its
	 * time already. */
	if (rc == CURLE_OK || rc == CURLE_OPERATION_TIMEDOUT || connects > 0 ||
	    sink->data_out || sink->cut || util_stopping())
		return FALSE;
	if (status == 421)
		return g_ascii_strcasecmp(sink->failed_command, "MAIL") == 0;
	return status == 0 && sink->last_reply->len == 0;
}

/* After a failed smtps:// handshake: the URL to use instead when the
 * server greets in plain text at that port (plaintext.h), which GnuTLS
 * only calls an unexpected packet; NULL otherwise. */
static char *
plain_port_text(const SmtpSink *sink)
{
	static const char *const greetings[] = {"220 ", "220-", "421 ", "554 ",
	                                        NULL};
	/* sink->host is "host:port", an address literal bracketed. */
	const char *colon = strrchr(sink->host, ':');
	if (colon == NULL)
		return NULL;
	g_autofree char *host = g_strndup(sink->host, colon - sink->host);
	g_autofree char *bare = host[0] == '['
	                            ? g_strndup(host + 1, strlen(host) - 2)
	                            : g_strdup(host);
	if (!plaintext_greets(bare, colon + 1, greetings))
		return NULL;
	return g_strdup_printf("the server at %s speaks plain text there: use "
	                       "smtp://%s (STARTTLS) or smtps://%s:465",
	                       sink->host, sink->host, host);
}

/* What went wrong with the session that ended with RC and STATUS: curl's
 * words, the server's, and what to look at. */
static char *
failure_text(const SmtpSink *sink, CURLcode rc, long status)
{
	if (rc == CURLE_SSL_CONNECT_ERROR && strcmp(sink->tls, "smtps") == 0) {
		char *plain = plain_port_text(sink);
		if (plain != NULL)
			return plain;
	}
	const char *why =
	    sink->errbuf[0] ? sink->errbuf : curl_easy_strerror(rc);
	const char *hint = "";
	if (rc == CURLE_USE_SSL_FAILED)
		hint = "; [sink] starttls = required, so nothing was sent "
		       "(starttls = no is only for a local MTA)";
	else if (rc == CURLE_PEER_FAILED_VERIFICATION ||
	         rc == CURLE_SSL_CACERT_BADFILE)
		hint = "; the server's certificate must verify against the "
		       "system CAs or [sink] ca-file";
	else if (rc == CURLE_LOGIN_DENIED)
		hint = "; check [sink] user and password-file";
	/* The data went out and the last word from the server is still its
	 * 354 go-ahead: whether it took the message is unknown. */
	gboolean unanswered = sink->data_out && (status == 354 || status == 0);
	if (unanswered)
		hint = "; the message had gone out: the server may have it, "
		       "and the retry may deliver it twice (same Message-ID)";
	const GString *said =
	    sink->failed_reply->len > 0 ? sink->failed_reply : sink->last_reply;
	return said->len > 0 && status >= 400
	        ? g_strdup_printf("%s (server said: %s)%s", why, said->str,
	                          hint)
	        : g_strdup_printf("%s%s", why, hint);
}

static gboolean
smtp_send(Sink *base, const char *envelope_from, const char *const *recipients,
          GBytes *message, GPtrArray *refused, GError **error)
{
	SmtpSink *sink = (SmtpSink *)base;
	struct curl_slist *rcpt = NULL;
	for (const char *const *r = recipients; *r; r++) {
		g_autofree char *address = g_strdup_printf("<%s>", *r);
		rcpt = curl_slist_append(rcpt, address);
	}
	g_autofree char *from = g_strdup_printf("<%s>", envelope_from);
	Reader reader = {.sink = sink};
	reader.data = g_bytes_get_data(message, &reader.len);
	CURLcode rc = CURLE_OK;
	long status = 0;
	for (int attempt = 0;; attempt++) {
		reader.offset = 0;
		smtp_reset(sink);
		smtp_setup(sink, from, rcpt, &reader);
		if (attempt > 0)
			curl_easy_setopt(sink->curl, CURLOPT_FRESH_CONNECT, 1L);
		rc = curl_easy_perform(sink->curl);
		status = 0;
		curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &status);
		if (attempt > 0 || !closed_while_idle(sink, rc, status))
			break;
		util_log("smtp-reopen", "host", sink->host, "reason",
		         status == 421 ? sink->last_reply->str
		                       : "no answer to the first command",
		         NULL);
	}
	curl_slist_free_all(rcpt);

	g_autofree char *status_text = g_strdup_printf("%ld", status);
	g_autofree char *to = g_strjoinv(",", (char **)recipients);
	const char *auth = sink->user ? "on" : "off";
	if (rc == CURLE_OK) {
		util_log("smtp", "host", sink->host, "tls", sink->tls, "auth",
		         auth, "from", envelope_from, "recipients", to,
		         "smtpstatus", status_text,
		         sink->refusals->len ? "refused" : NULL,
		         sink->refusals->str, NULL);
		pass_refusals(sink, refused);
		return TRUE;
	}
	/* The data went out and the last word from the server is still its
	 * 354 go-ahead: whether it took the message is unknown. */
	gboolean unanswered = sink->data_out && (status == 354 || status == 0);
	g_autofree char *message_text = failure_text(sink, rc, status);
	util_log_warning("smtp", "host", sink->host, "tls", sink->tls, "auth",
	                 auth, "from", envelope_from, "recipients", to,
	                 "smtpstatus", status_text, "errormsg", message_text,
	                 NULL);
	if (sink->cut || util_stopping()) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
		            "smtp %s (tls=%s): stopped by a signal", sink->host,
		            sink->tls);
		return FALSE;
	}
	if (unanswered) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
		            "smtp %s (tls=%s): no answer to the message: %s",
		            sink->host, sink->tls, message_text);
		return FALSE;
	}
	g_set_error(error, TENURE_ERROR,
	            refusal_is_permanent(sink, status)
	                ? TENURE_ERROR_INVALID
	                : TENURE_ERROR_NETWORK,
	            "smtp %s (tls=%s): %s", sink->host, sink->tls,
	            message_text);
	pass_refusals(sink, refused);
	return FALSE;
}

/* The step a session that failed with RC had come to, by curl's code
 * and the last command sent: "connect", "TLS", "AUTH", "EHLO", ... */
static const char *
failed_step(const SmtpSink *sink, CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
		return "connect";
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CONNECT_ERROR:
		return "TLS";
	case CURLE_USE_SSL_FAILED:
		return "STARTTLS";
	case CURLE_LOGIN_DENIED:
		return "AUTH";
	default:
		break;
	}
	if (sink->failed_command[0] != '\0')
		return sink->failed_command;
	if (sink->last_command[0] != '\0')
		return sink->last_command;
	return sink->last_reply->len > 0 ? "greeting" : "connect";
}

/* The server's certificate, described (tls_verify.h), from what curl
 * kept of the handshake. */
static char *
peer_certificate(SmtpSink *sink)
{
	struct curl_certinfo *certificates = NULL;
	if (curl_easy_getinfo(sink->curl, CURLINFO_CERTINFO, &certificates) !=
	        CURLE_OK ||
	    certificates == NULL || certificates->num_of_certs < 1)
		return NULL;
	for (struct curl_slist *field = certificates->certinfo[0]; field;
	     field = field->next)
		if (g_str_has_prefix(field->data, "Cert:")) {
			g_autoptr(GBytes) pem = g_bytes_new_static(
			    field->data + 5, strlen(field->data + 5));
			return tls_verify_describe(pem, TRUE);
		}
	return NULL;
}

static size_t
discard(char *data, size_t size, size_t nitems, void *user_data)
{
	return size * nitems;
}

/* Tells REPORT STEP, made from FORMAT. */
static void G_GNUC_PRINTF(3, 4)
report_step(SinkProbeReport report, gpointer user_data, const char *format,
            ...)
{
	va_list args;
	va_start(args, format);
	g_autofree char *step = g_strdup_vprintf(format, args);
	va_end(args);
	report(step, user_data);
}

/* One session as send() opens it (smtp_setup_session), with NOOP for
 * the mail: the command after the greeting, EHLO, STARTTLS and AUTH
 * that proves the session usable and hands the server nothing.  curl
 * ends the session with QUIT when its handle goes. */
static gboolean
smtp_probe(Sink *base, SinkProbeReport report, gpointer user_data,
           GError **error)
{
	SmtpSink *sink = (SmtpSink *)base;
	smtp_reset(sink);
	smtp_setup_session(sink);
	curl_easy_setopt(sink->curl, CURLOPT_CERTINFO, 1L);
	curl_easy_setopt(sink->curl, CURLOPT_CUSTOMREQUEST, "NOOP");
	curl_easy_setopt(sink->curl, CURLOPT_WRITEFUNCTION, discard);
	CURLcode rc = curl_easy_perform(sink->curl);
	long status = 0;
	curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK) {
		g_autofree char *text = failure_text(sink, rc, status);
		const char *step = failed_step(sink, rc);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "smtp %s (tls=%s): %s%s%s: %s", sink->host, sink->tls,
		            step, sink->user && strcmp(step, "AUTH") == 0
		                      ? " as " : "",
		            sink->user && strcmp(step, "AUTH") == 0 ? sink->user
		                                                     : "",
		            text);
		return FALSE;
	}
	if (sink->use_ssl == CURLUSESSL_NONE) {
		report_step(report, user_data,
		            "connected to %s without TLS ([sink] starttls = no: "
		            "a local MTA)", sink->host);
	} else {
		g_autofree char *peer = peer_certificate(sink);
		report_step(report, user_data,
		            "connected to %s, %sTLS verified (%s)", sink->host,
		            strcmp(sink->tls, "starttls") == 0 ? "STARTTLS, " : "",
		            peer ? peer : "certificate unreadable");
	}
	if (sink->user && !sink->authenticated) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_NETWORK,
		            "smtp %s (tls=%s): AUTH as %s: the server offers no "
		            "AUTH (its EHLO answer lists none), and [sink] user "
		            "is set", sink->host, sink->tls, sink->user);
		return FALSE;
	}
	if (sink->user)
		report_step(report, user_data, "logged in as %s (AUTH)",
		            sink->user);
	else
		report_step(report, user_data,
		            "no AUTH ([sink] user is not set)");
	report_step(report, user_data, "NOOP answered: %s",
	            sink->last_reply->str);
	/* The handle goes with its session, which it ends with QUIT; a
	 * fresh one keeps the sink usable. */
	curl_easy_cleanup(sink->curl);
	sink->curl = curl_easy_init();
	report_step(report, user_data, "QUIT, no mail sent");
	return TRUE;
}

static void
smtp_close(Sink *base)
{
	SmtpSink *sink = (SmtpSink *)base;
	if (sink->curl)
		curl_easy_cleanup(sink->curl);
	g_free(sink->url);
	g_free(sink->host);
	g_free(sink->user);
	if (sink->password) {
		memset(sink->password, 0, strlen(sink->password));
		g_free(sink->password);
	}
	g_free(sink->ca_file);
	g_string_free(sink->last_reply, TRUE);
	g_string_free(sink->refusals, TRUE);
	g_string_free(sink->failed_reply, TRUE);
	g_free(sink->rcpt);
	g_ptr_array_unref(sink->rcpt_refused);
	g_free(sink);
}

const SinkDriver sink_smtp_driver = {
    .scheme = "smtp",
    .open = smtp_open,
    .send = smtp_send,
    .close = smtp_close,
    .probe = smtp_probe,
};
