/* source-mbox-from.c: when a mail arrived, as the mbox "From " line tells
 * it (src/source/source_mbox.c), in the forms the mail servers and clients that
 * write mboxes really write.  What follows "From " is the envelope
 * sender, the sender's own choice: Exim and Postfix write a quoted local
 * part with blanks in it as it came, so dates in it must never count. */
#include "config.h"

#include <string.h>

#include "source/source.h"

typedef struct {
	const char *name;
	const char *line;
	const char *arrival; /* ISO 8601 UTC, or NULL: arrival unknown */
} FromCase;

static const FromCase cases[] = {
    /* Exim's appendfile: "From ${return_path} ${tod_bsdinbox}". */
    {"Exim", "From alice@example.org Fri Dec  4 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    {"Exim: a quoted sender with a date in it",
     "From \"a Nov 22 17:01:40 2026 b\"@evil.example Fri Dec 04 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    {"Exim: a quoted sender that is a whole date",
     "From \"Sun Nov 22 17:01:40 2026\"@evil.example Fri Dec  4 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    /* Postfix's local(8): "From %s  %.24s", the sender quoted as an
     * RFC 5322 local part, two blanks before the date. */
    {"Postfix", "From alice@example.org  Fri Dec  4 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    {"Postfix: a bounce", "From MAILER-DAEMON  Fri Dec  4 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    {"Postfix: a quoted sender with blanks and a zoned date",
     "From \"x Sun Nov 22 17:01:40 +0000 2026 y\"@evil.example  "
     "Fri Dec  4 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    /* Dovecot's LDA into mbox: two blanks, the day of month in two
     * digits. */
    {"Dovecot LDA", "From alice@example.org  Fri Dec 04 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    {"Dovecot LDA: a quoted sender with a date in it",
     "From \"a Nov 22 17:01:40 2026 b\"@evil.example  Fri Dec 04 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    /* mutt's mbox and formail -ds: ctime's form, formail with two
     * blanks. */
    {"mutt", "From alice@example.org Fri Dec  4 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    {"formail", "From alice@example.org  Fri Dec  4 17:01:40 2026",
     "2026-12-04T17:01:40Z"},
    {"a zone before the year", "From a@example.org Fri Dec  4 12:01:40 -0500 2026",
     "2026-12-04T17:01:40Z"},
    {"a zone after the year", "From a@example.org Fri Dec  4 18:01:40 2026 +0100",
     "2026-12-04T17:01:40Z"},
    {"a zone by name", "From a@example.org Fri Dec  4 17:01:40 UTC 2026",
     "2026-12-04T17:01:40Z"},
    {"RFC 5322's form", "From a@example.org Fri, 04 Dec 2026 17:01:40 +0000",
     "2026-12-04T17:01:40Z"},
    {"RFC 5322's form without a weekday",
     "From a@example.org 04 Dec 2026 18:01:40 +0100", "2026-12-04T17:01:40Z"},
    {"a date without seconds", "From a@example.org Fri Dec  4 17:01 2026",
     "2026-12-04T17:01:00Z"},
    {"a carriage return at the end",
     "From a@example.org Fri Dec  4 17:01:40 2026\r", "2026-12-04T17:01:40Z"},
    /* Lines whose date cannot be read unambiguously: arrival unknown. */
    {"no date", "From a@example.org sometime last week", NULL},
    {"a date only in the sender",
     "From \"Fri Dec  4 17:01:40 2026\"@evil.example", NULL},
    {"a date in the sender, something else at the end",
     "From \"a Fri Dec  4 17:01:40 2026 b\"@evil.example today", NULL},
    {"words after the date", "From a@example.org Fri Dec  4 17:01:40 2026 x",
     NULL},
    {"no sender before the date", "From Fri Dec  4 17:01:40 2026", NULL},
    {"a weekday that does not match the date",
     "From a@example.org Sun Dec  4 17:01:40 2026", NULL},
    {"a day that does not exist", "From a@example.org Mon Feb 30 17:01:40 2026",
     NULL},
    {"a zone name that could mean anything",
     "From a@example.org Fri Dec  4 17:01:40 CET 2026", NULL},
    {"a two-digit year", "From a@example.org Fri Dec  4 17:01:40 26", NULL},
};

static void
test_case(gconstpointer data)
{
	const FromCase *row = data;
	gint64 arrival = source_mbox_from_line_time(row->line, strlen(row->line), NULL);
	g_autofree char *got = NULL;
	if (arrival != 0) {
		g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc(arrival);
		got = g_date_time_format(when, "%Y-%m-%dT%H:%M:%SZ");
	}
	g_assert_cmpstr(got, ==, row->arrival);
}

/* Exim and Dovecot write the host's local time, with no zone: it is
 * read in the host's zone (TZ), or in the one configured ([source]
 * mbox-timezone); a line with a zone keeps its own (issue 40, item 2). */
static void
test_local_time(void)
{
	static const char line[] = "From a@example.org Mon Dec  7 02:00:00 2026";
	static const char zoned[] =
	    "From a@example.org Mon Dec  7 02:00:00 +0000 2026";
	gint64 utc = 1796608800; /* 2026-12-07T02:00:00Z */
	g_setenv("TZ", "Europe/Berlin", TRUE);
	g_assert_cmpint(source_mbox_from_line_time(line, strlen(line), NULL),
	                ==, utc - 3600);
	g_assert_cmpint(source_mbox_from_line_time(zoned, strlen(zoned), NULL),
	                ==, utc);
	g_setenv("TZ", "America/New_York", TRUE);
	g_assert_cmpint(source_mbox_from_line_time(line, strlen(line), NULL),
	                ==, utc + 5 * 3600);
	GTimeZone *zone = g_time_zone_new_identifier("Asia/Tokyo");
	g_assert_nonnull(zone);
	g_assert_cmpint(source_mbox_from_line_time(line, strlen(line), zone),
	                ==, utc - 9 * 3600);
	g_time_zone_unref(zone);
	g_setenv("TZ", "UTC", TRUE);
}

int
main(int argc, char **argv)
{
	g_test_init(&argc, &argv, NULL);
	/* The table's dates without a zone are the host's: UTC here. */
	g_setenv("TZ", "UTC", TRUE);
	g_test_add_func("/mbox-from/local time", test_local_time);
	for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autofree char *path =
		    g_strdup_printf("/mbox-from/%s", cases[i].name);
		g_test_add_data_func(path, &cases[i], test_case);
	}
	return g_test_run();
}
