/* cmd_outbox.c: `tenure outbox`, the mail waiting to be sent, and
 * `tenure outbox drop ID --reason TEXT`, one of them removed for good
 * (issue 34).
 *
 * The list is every queued mail (outbox.h), failing or not, and every
 * mail that could not be composed or signed (mailout.h), one line each:
 * ID, kind, recipients, attempts, next attempt, last error, tab
 * separated after a header line.  A drop takes the queued mail out under
 * the outbox's lock, which a running daemon's flush holds while it tries
 * one (outbox_drop): a dropped mail is never sent, `tenure status` no
 * longer counts it, the log says who asked and why.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/date.h"
#include "base/util.h"
#include "cli/cmd.h"
#include "out/mailout.h"
#include "out/outbox.h"

#define NAME "outbox"

static char *opt_reason = NULL;

static const GOptionEntry entries[] = {
	{"reason", 0, 0, G_OPTION_ARG_STRING, &opt_reason,
	 "drop: why the mail is dropped (logged; required)", "TEXT"},
	{NULL},
};

/* The X-Tenure header of MESSAGE (the kind mailout.c gives its mail),
 * or "-".  Newly allocated. */
static char *
message_kind(GBytes *message)
{
	gsize len = 0;
	const char *data = message ? g_bytes_get_data(message, &len) : NULL;
	static const char field[] = "X-Tenure:";
	for (gsize at = 0; data && at < len;) {
		const char *end = memchr(data + at, '\n', len - at);
		gsize line = (end ? (gsize)(end - data) : len) - at;
		if (line == 0 || (line == 1 && data[at] == '\r'))
			break; /* the end of the header */
		if (line > sizeof field - 1 &&
		    g_ascii_strncasecmp(data + at, field, sizeof field - 1) == 0) {
			char *value = g_strndup(data + at + sizeof field - 1,
			                        line - (sizeof field - 1));
			return g_strstrip(value);
		}
		at += line + 1;
	}
	return g_strdup("-");
}

/* "now" when due at NOW (or set further ahead than the longest backoff,
 * by a clock that was ahead: due now, util_backoff_due), else the time
 * in UTC.  Newly allocated. */
static char *
next_text(gint64 next, gint64 now)
{
	if (util_backoff_due(next, now))
		return g_strdup("now");
	g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc(next);
	return at ? g_date_time_format(at, "%Y-%m-%d %H:%M:%S UTC")
	          : g_strdup("?");
}

static int
list(const Conf *conf)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) queued = outbox_queued(conf->state_dir, &error);
	if (queued == NULL) {
		cmd_error(NAME, "%s", error->message);
		return CMD_FAILED;
	}
	g_autoptr(GPtrArray) unsent = mailout_unsent(conf->state_dir);
	gint64 now = date_now_unix();
	printf("ID\tKIND\tRECIPIENTS\tATTEMPTS\tNEXT-ATTEMPT\tLAST-ERROR\n");
	for (guint i = 0; i < queued->len; i++) {
		const OutboxMessage *m = queued->pdata[i];
		g_autofree char *kind = message_kind(m->message);
		g_autofree char *to = g_strjoinv(", ", m->recipients);
		g_autofree char *next = next_text(m->next_attempt, now);
		g_autofree char *why = util_tsv_field(
		    m->last_error ? m->last_error : "-");
		printf("%s\t%s\t%s\t%u\t%s\t%s\n", m->message_id, kind, to,
		       m->attempts, next, why);
	}
	/* Not in the queue yet: composed again at each attempt. */
	for (guint i = 0; i < unsent->len; i++) {
		g_auto(GStrv) f = g_strsplit(unsent->pdata[i], "\t", 4);
		if (g_strv_length(f) < 4)
			continue;
		g_autofree char *next =
		    next_text(g_ascii_strtoll(f[2], NULL, 10), now);
		g_autofree char *why = util_tsv_field(f[3]);
		printf("%s\tnot-composed\t-\t%s\t%s\t%s\n", f[0], f[1], next,
		       why);
	}
	return CMD_OK;
}

static int
drop(const Conf *conf, const char *id)
{
	/* The ID as listed, with or without its angle brackets. */
	gsize len = strlen(id);
	g_autofree char *message_id =
	    id[0] == '<' && len > 1 && id[len - 1] == '>'
	        ? g_strdup(id)
	        : g_strdup_printf("<%s>", id);
	g_autoptr(GError) error = NULL;
	if (!outbox_drop(conf->state_dir, message_id, opt_reason, &error)) {
		cmd_error(NAME, "drop: %s", error->message);
		return CMD_FAILED;
	}
	printf("dropped %s: %s\n", message_id, opt_reason);
	return CMD_OK;
}

int
cmd_outbox(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
	    NAME, "[drop ID --reason TEXT]",
	    "Lists the mail waiting to be sent: queued, failing, or not\n"
	    "composed yet (ID, kind, recipients, attempts, next attempt, last\n"
	    "error).  drop ID removes a queued mail for good: it is never\n"
	    "sent, and the log keeps the reason.",
	    FALSE, entries);
	if (!cmd_parse(context, NAME, &argc, &argv))
		return CMD_USAGE;
	gboolean dropping = argc > 1 && strcmp(argv[1], "drop") == 0;
	if (argc > 1 && !dropping) {
		cmd_error(NAME, "unknown request \"%s\": drop is the one there "
		                "is",
		          argv[1]);
		return CMD_USAGE;
	}
	if (dropping && argc != 3) {
		cmd_error(NAME, argc < 3 ? "drop: missing the mail's ID (as "
		                           "tenure outbox lists it)"
		                         : "drop: one ID at a time");
		return CMD_USAGE;
	}
	if (dropping && (opt_reason == NULL || *g_strstrip(opt_reason) == '\0')) {
		cmd_error(NAME, "drop: --reason TEXT is required: the log keeps "
		                "why the mail was dropped");
		return CMD_USAGE;
	}
	if (!dropping && opt_reason) {
		cmd_error(NAME, "--reason goes with drop");
		return CMD_USAGE;
	}
	/* As the owner of the state, even to list it: reading the queue
	 * moves a torn entry to dead/ (outbox.h). */
	g_autoptr(Conf) conf = cmd_load_state_conf(NAME);
	if (conf == NULL)
		return CMD_FAILED;
	return dropping ? drop(conf, argv[2]) : list(conf);
}
