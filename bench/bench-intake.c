/* bench-intake.c: the two reference figures for bench/import.sh.
 *
 *   bench-intake parse DIR               a bare GMime parse of every
 *                                        message in the Maildir DIR
 *   bench-intake verify CONFIG FILE N    N verifications of the signed
 *                                        message FILE, as intake does them,
 *                                        after a first one (timed apart)
 *                                        that derives the committee keyring
 *
 * Each prints one line "seconds=S count=N" (verify adds "first=S") for
 * the script to read.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gmime/gmime.h>

#include "conf/conf.h"
#include "verify/verify.h"

static double
now_seconds(void)
{
	return g_get_monotonic_time() / 1e6;
}

static guint
parse_dir(const char *dir)
{
	guint count = 0;
	static const char *const subdirs[] = {"cur", "new"};
	for (gsize s = 0; s < G_N_ELEMENTS(subdirs); s++) {
		g_autofree char *path = g_build_filename(dir, subdirs[s], NULL);
		g_autoptr(GDir) d = g_dir_open(path, 0, NULL);
		const char *name;
		while (d && (name = g_dir_read_name(d)) != NULL) {
			g_autofree char *file = g_build_filename(path, name, NULL);
			char *data = NULL;
			gsize len = 0;
			if (!g_file_get_contents(file, &data, &len, NULL))
				continue;
			GMimeStream *stream = g_mime_stream_mem_new_with_buffer(data, len);
			GMimeParser *parser = g_mime_parser_new_with_stream(stream);
			GMimeMessage *message = g_mime_parser_construct_message(parser, NULL);
			if (message)
				count++;
			g_clear_object(&message);
			g_object_unref(parser);
			g_object_unref(stream);
			g_free(data);
		}
	}
	return count;
}

static int
verify_file(const char *config, const char *file, int n)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Conf) conf = conf_load(config, &error);
	if (conf == NULL) {
		fprintf(stderr, "bench-intake: %s\n", error->message);
		return 1;
	}
	g_autoptr(Verifier) verifier = verify_new(conf, &error);
	if (verifier == NULL) {
		fprintf(stderr, "bench-intake: %s\n", error->message);
		return 1;
	}
	g_autoptr(Ledger) ledger = ledger_load(conf->ledger, FALSE, &error);
	if (ledger == NULL) {
		fprintf(stderr, "bench-intake: %s\n", error->message);
		return 1;
	}
	verify_set_signers(verifier, ledger, NULL);
	char *data = NULL;
	gsize len = 0;
	if (!g_file_get_contents(file, &data, &len, &error)) {
		fprintf(stderr, "bench-intake: %s\n", error->message);
		return 1;
	}
	g_autoptr(GBytes) raw = g_bytes_new_take(data, len);
	/* Round 0 is the first verification after a start or a change of
	 * the keyrings or the ledger: it derives the committee's keyring
	 * (keyring_prepare) as the daemon does once.  Rounds 1..N are the
	 * verifications of every later mail. */
	double spent = 0, first = 0;
	for (int i = 0; i <= n; i++) {
		g_autofree char *reason = NULL;
		g_autoptr(GMimeMessage) message = signed_part_parse(raw, &reason);
		GMimeObject *part = NULL;
		g_autofree char *shape = NULL;
		SignedKind kind = message ? signed_part_find(message, &part, &shape,
		                                             &reason)
		                          : SIGNED_NONE;
		if (kind != SIGNED_PGP_MIME && kind != SIGNED_CLEARSIGNED) {
			fprintf(stderr, "bench-intake: %s: no signed command (%s)\n",
			        file, reason ? reason : "none");
			return 1;
		}
		g_autoptr(Signed) sig = NULL;
		double start = now_seconds();
		gboolean ok = verify_signed(verifier, part, kind,
		                            g_get_real_time() / G_USEC_PER_SEC,
		                            VERIFY_INTAKE, &sig, &reason, &error);
		if (i == 0)
			first = now_seconds() - start;
		else
			spent += now_seconds() - start;
		if (!ok) {
			fprintf(stderr, "bench-intake: %s: %s\n", file,
			        reason ? reason : error->message);
			return 1;
		}
	}
	printf("seconds=%.6f count=%d first=%.6f\n", spent, n, first);
	return 0;
}

int
main(int argc, char **argv)
{
	g_mime_init();
	int status = 2;
	if (argc == 3 && strcmp(argv[1], "parse") == 0) {
		double start = now_seconds();
		guint count = parse_dir(argv[2]);
		printf("seconds=%.6f count=%u\n", now_seconds() - start, count);
		status = 0;
	} else if (argc == 5 && strcmp(argv[1], "verify") == 0) {
		status = verify_file(argv[2], argv[3], atoi(argv[4]));
	} else {
		fprintf(stderr, "usage: bench-intake parse DIR | verify CONFIG FILE N\n");
	}
	g_mime_shutdown();
	return status;
}
