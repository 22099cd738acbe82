/* publish.h: [publish] dir, the committee's outputs where a web server
 * serves them.
 *
 * publish_run writes into the configured directory the status page
 * (index.html), the calendar (calendar.ics: from TODAY for ten years,
 * keeping the year before), the JSON (status.json) and the ledger in
 * public form (ledger.txt, ledger_public.h: every event, names without
 * addresses; the page and the JSON link it), all of TODAY and
 * as `tenure status` and `tenure plan` make them with their defaults
 * (names without addresses), and of the committee only: its members,
 * roles, terms, upcoming events and the warnings about it (too few or
 * too many members, an overdue term, the plan); the outbox, the mail
 * without a verdict, the clock and their warnings, which name servers,
 * errors and Message-IDs, stay in the local `tenure status` (the JSON's
 * "outbox", "undecided" and "clock_doubt" are null).  Each is replaced
 * atomically (a reader sees the
 * old file or the new one, never half of one) and readable by all
 * (0644).  It writes them when the ledger changed since they were last
 * written, when TODAY is a day they were not written on yet, and when one
 * of them is missing; otherwise nothing.  What it last wrote is recorded
 * in STATE_DIR/published (the ledger's SHA-256 and the day), so a
 * restart does not write again.  Without [publish] dir it does nothing.
 * When the calendar's plan cannot be made, the page and the JSON are
 * still written, with a "calendar" warning saying why (status.h), the
 * calendar is left as it was, and it returns FALSE with ERROR naming the
 * calendar and why (nothing recorded: the next call tries again).
 * *WROTE (may be NULL) says whether it wrote.  FALSE with ERROR naming
 * the file when a file cannot be written; the ledger is only read.
 * Called by `tenure run` after every pass (not in a dry run), while it
 * holds the state lock.
 */
#ifndef TENURE_PUBLISH_H
#define TENURE_PUBLISH_H

#include <glib.h>

#include "conf/conf.h"
#include "base/date.h"

/* The names of the files written. */
#define PUBLISH_HTML "index.html"
#define PUBLISH_ICS  "calendar.ics"
#define PUBLISH_JSON "status.json"
#define PUBLISH_LEDGER "ledger.txt"

gboolean publish_run(const Conf *conf, Day today, gboolean *wrote,
                     GError **error);

#endif
