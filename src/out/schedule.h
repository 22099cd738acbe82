/* schedule.h: the secretary's calendar.
 *
 * schedule_run, for TODAY: appends an expire event for every rule-driven
 * expiry whose last day has passed and is not yet recorded; queues an
 * announcement to the list for every ledger event, of every kind, that
 * is not history (Source: import) and was not announced yet, and for a
 * key event a notice to the member; queues an
 * announcement of each newly scheduled expiry; queues each reminder
 * ([reminders] days-before) that is due and was not sent.  Every mail has
 * a Message-ID derived from its event, so running twice, after a crash or
 * a clock jump sends nothing twice.  *NEXT_DUE is the next day on which
 * something will be due (DAY_NONE if nothing is).
 */
#ifndef TENURE_SCHEDULE_H
#define TENURE_SCHEDULE_H

#include <glib.h>

#include "conf/conf.h"
#include "base/date.h"

gboolean schedule_run(const Conf *conf, Day today, Day *next_due,
                      GError **error);

/* The first step of schedule_run alone: appends the expire events a
 * pass on TODAY would, and queues nothing.  `tenure import` runs it for
 * each day of the archive before that day's mail, so that the mail is
 * judged against the committee a running tenure saw then. */
gboolean schedule_record_expiries(const Conf *conf, Day today,
                                  GError **error);

/* schedule_run while tenure's clock is in doubt (clock.h) for the reason
 * CLOCK_DOUBT (NULL: it is not): what the date alone decides, and which
 * could not be taken back (recording an expiry, announcing one that the
 * schedule recorded, announcing a scheduled expiry, a reminder), waits,
 * each held act logged (expiry-held); the announcements of what the
 * ledger records from mail go out as usual. */
gboolean schedule_run_doubting(const Conf *conf, Day today,
                               const char *clock_doubt, Day *next_due,
                               GError **error);

#endif
