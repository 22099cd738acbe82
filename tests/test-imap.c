/* test-imap.c: drives the IMAP source against a real server, for
 * tests/t-imap.sh and the benchmarks.  Not a test by itself: it reports
 * what the source handed over, and the scripts judge it.
 *
 *   test-imap CONFIG fetch
 *       connect, hand over what is new, print one line per message
 *   test-imap CONFIG watch COUNT SECONDS
 *       fetch, then wait and fetch again until COUNT messages have come
 *       or SECONDS have passed; exit 0 only if COUNT came
 *   test-imap CONFIG cycle
 *       fetch, then one wait of [source] poll-interval seconds and one
 *       fetch; prints "cycle start TIME" before the wait and "cycle done
 *       TIME" after the fetch (Unix time, for bench/idle-bytes.sh)
 *
 * Options (before CONFIG): --refuse-after N makes the handler fail on
 * message N+1, as a handler does when the ledger cannot be written.
 *
 * Each message is printed as "UID<TAB>Message-ID<TAB>ARRIVAL" with the
 * UID taken from the source's message id.  Errors go to stderr as one
 * line; the exit status is 1.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "source.h"
#include "util.h"

typedef struct {
	guint handed;
	int refuse_after;   /* -1: never */
} Recorder;

/* The Message-ID header's value, or "-": a plain scan is enough for the
 * test mails, which have one-line headers. */
static char *
message_id_of(GBytes *raw)
{
	gsize size;
	const char *data = g_bytes_get_data(raw, &size);
	g_autofree char *text = g_strndup(data, size);
	for (char *line = text; line && *line && *line != '\n' && *line != '\r';) {
		char *end = strchr(line, '\n');
		if (end)
			*end = '\0';
		if (g_ascii_strncasecmp(line, "Message-ID:", 11) == 0)
			return g_strstrip(g_strdup(line + 11));
		line = end ? end + 1 : NULL;
	}
	return g_strdup("-");
}

static gboolean
record(const SourceMessage *message, gpointer user_data, GError **error)
{
	Recorder *recorder = user_data;
	if (recorder->refuse_after >= 0 &&
	    recorder->handed >= (guint)recorder->refuse_after) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "handler refuses message %s (--refuse-after %d)",
		            message->id, recorder->refuse_after);
		return FALSE;
	}
	const char *uid = strstr(message->id, ";UID=");
	g_autofree char *message_id = message_id_of(message->raw);
	printf("%s\t%s\t%" G_GINT64_FORMAT "\n", uid ? uid + 5 : message->id,
	       message_id, message->arrival);
	fflush(stdout);
	recorder->handed++;
	return TRUE;
}

static int
fail(GError *error)
{
	fprintf(stderr, "test-imap: %s\n", error->message);
	g_error_free(error);
	return 1;
}

int
main(int argc, char **argv)
{
	Recorder recorder = {0, -1};
	GError *error = NULL;
	int arg = 1;

	if (argc > 2 && strcmp(argv[1], "--refuse-after") == 0) {
		recorder.refuse_after = atoi(argv[2]);
		arg = 3;
	}
	if (argc - arg < 2) {
		fprintf(stderr, "usage: test-imap [--refuse-after N] CONFIG fetch|watch COUNT SECONDS|cycle\n");
		return 2;
	}
	g_autoptr(Conf) conf = conf_load(argv[arg], &error);
	if (conf == NULL)
		return fail(error);
	const char *command = argv[arg + 1];
	Source *source = source_imap_driver.open(conf, conf->source_url, &error);
	if (source == NULL)
		return fail(error);

	int status = 0;
	if (!source_imap_driver.fetch(source, record, &recorder, &error)) {
		status = fail(error);
	} else if (strcmp(command, "watch") == 0 && argc - arg >= 4) {
		guint want = (guint)atoi(argv[arg + 2]);
		gint64 deadline = g_get_monotonic_time() +
		                  (gint64)atoi(argv[arg + 3]) * G_USEC_PER_SEC;
		while (recorder.handed < want && status == 0) {
			gint64 left = (deadline - g_get_monotonic_time()) / G_USEC_PER_SEC;
			if (left <= 0) {
				fprintf(stderr, "test-imap: %u of %u messages before the deadline\n",
				        recorder.handed, want);
				status = 1;
				break;
			}
			if (!source_imap_driver.wait(source, (int)left, &error) ||
			    !source_imap_driver.fetch(source, record, &recorder, &error))
				status = fail(error);
		}
	} else if (strcmp(command, "cycle") == 0) {
		printf("cycle start %.6f\n", g_get_real_time() / 1e6);
		fflush(stdout);
		if (!source_imap_driver.wait(source, conf->poll_interval, &error) ||
		    !source_imap_driver.fetch(source, record, &recorder, &error))
			status = fail(error);
		else
			printf("cycle done %.6f\n", g_get_real_time() / 1e6);
		fflush(stdout);
	} else if (strcmp(command, "fetch") != 0) {
		fprintf(stderr, "test-imap: unknown command %s\n", command);
		status = 2;
	}
	source_imap_driver.close(source);
	return status;
}
