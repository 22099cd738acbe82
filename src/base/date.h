/* date.h: calendar dates as day numbers, and the date arithmetic of the
 * term rules.
 *
 * A Day is a GLib Julian day number (1 = 0001-01-01); 0 means "no date".
 * Every date in tenure is a UTC calendar date.  "N years after D" is the
 * same day and month N years later, 29 February becoming 28 February;
 * fractional years are whole months.  GDate does the calendar work.
 */
#ifndef TENURE_DATE_H
#define TENURE_DATE_H

#include <glib.h>

typedef guint32 Day;
#define DAY_NONE ((Day)0)

/* Parses YYYY-MM-DD strictly (a real calendar date, four-digit year).
 * Returns FALSE without setting anything when TEXT is not one. */
gboolean date_parse(const char *text, Day *out);

/* Formats DAY as YYYY-MM-DD into BUF, which needs 11 bytes; returns BUF.
 * DAY_NONE formats as "-". */
char *date_format(Day day, char buf[static 11]);

/* Same, returned as a new string. */
char *date_to_string(Day day);

Day date_from_ymd(int year, int month, int day);
void date_to_ymd(Day day, int *year, int *month, int *mday);

/* Where "N months after D" falls when D's day of the month does not
 * exist N months later (29 February, the 31st). */
typedef enum {
	/* A term's end: the month's last day (2016-02-29 + 12 months is
	 * 2017-02-28). */
	DATE_TERM_END,
	/* A bar ("not before", "at least", "within the previous N"): the
	 * 1st of the next month (2016-02-29 + 12 months is 2017-03-01), so
	 * that a bar never ends before its full length. */
	DATE_BAR,
} DateFit;

/* DAY plus MONTHS calendar months, the day that does not exist placed
 * as FIT says.  The one date function of the term rules (see
 * rules-private.h for its fast twin).  Going back (MONTHS < 0, a window
 * reaching back from DAY) both fits take the month's last day: that is
 * the bar's own reading backwards, for a day E lies within the MONTHS
 * before DAY exactly when E's bar of MONTHS (DATE_BAR from E + 1) falls
 * after DAY, so windows and bars agree. */
Day date_shift_months(Day day, int months, DateFit fit);

/* date_shift_months(DAY, MONTHS, DATE_TERM_END). */
Day date_add_months(Day day, int months);

/* Today in UTC, or the date given to --now. */
Day date_today(void);

/* The UTC day of T (Unix seconds), or DAY_NONE when T is out of range. */
Day date_of_unix(gint64 t);

/* The current time (Unix seconds, UTC), or the time given to --now. */
gint64 date_now_unix(void);

/* TRUE when --now set the time: it is the operator's, not the clock's. */
gboolean date_now_given(void);

/* Sets the clock from --now: "YYYY-MM-DD" (midnight UTC) or an ISO 8601
 * time such as "2026-12-31T08:00:00Z".  FALSE if TEXT is neither. */
gboolean date_set_now(const char *text);

/* Parses a duration as whole months: "4y", "5y6m", "18m", "5.5" or
 * "5.5y" (years, fractions as whole months), "4" (years).  Returns FALSE
 * on anything else, on a negative or non-whole-month value. */
gboolean date_parse_span(const char *text, int *months);

/* Formats whole months as "4y", "5y6m", "6m". */
char *date_span_to_string(int months);

/* Whole years and months from FROM to TO, for "served 5y4m" columns. */
int date_months_between(Day from, Day to);

#endif
