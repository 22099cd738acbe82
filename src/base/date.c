/* date.c: see date.h. */
#include "config.h"

#include "base/date.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set by --now; -1 means the real clock. */
static gint64 now_override = -1;

gboolean
date_parse(const char *text, Day *out)
{
	if (text == NULL || strlen(text) != 10 || text[4] != '-' ||
	    text[7] != '-')
		return FALSE;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !g_ascii_isdigit(text[i]))
			return FALSE;
	int y = atoi(text), m = atoi(text + 5), d = atoi(text + 8);
	if (y < 1 || !g_date_valid_dmy(d, m, y))
		return FALSE;
	*out = date_from_ymd(y, m, d);
	return TRUE;
}

Day
date_from_ymd(int year, int month, int mday)
{
	GDate date;
	g_date_clear(&date, 1);
	g_date_set_dmy(&date, mday, month, year);
	return g_date_get_julian(&date);
}

void
date_to_ymd(Day day, int *year, int *month, int *mday)
{
	GDate date;
	g_date_clear(&date, 1);
	g_date_set_julian(&date, day);
	if (year)
		*year = g_date_get_year(&date);
	if (month)
		*month = g_date_get_month(&date);
	if (mday)
		*mday = g_date_get_day(&date);
}

char *
date_format(Day day, char buf[static 11])
{
	if (day == DAY_NONE) {
		strcpy(buf, "-");
		return buf;
	}
	int y, m, d;
	char text[32];
	date_to_ymd(day, &y, &m, &d);
	g_snprintf(text, sizeof text, "%04d-%02d-%02d", y, m, d);
	g_strlcpy(buf, text, 11);
	return buf;
}

char *
date_to_string(Day day)
{
	char buf[11];
	return g_strdup(date_format(day, buf));
}

Day
date_shift_months(Day day, int months, DateFit fit)
{
	GDate date;
	g_date_clear(&date, 1);
	g_date_set_julian(&date, day);
	int mday = g_date_get_day(&date);
	/* GDate clamps to the end of a shorter month. */
	if (months >= 0)
		g_date_add_months(&date, months);
	else
		g_date_subtract_months(&date, -months);
	if (fit == DATE_BAR && months > 0 && g_date_get_day(&date) != mday)
		g_date_add_days(&date, 1);
	return g_date_get_julian(&date);
}

Day
date_add_months(Day day, int months)
{
	return date_shift_months(day, months, DATE_TERM_END);
}

gboolean
date_set_now(const char *text)
{
	Day day;
	if (date_parse(text, &day)) {
		int y, m, d;
		date_to_ymd(day, &y, &m, &d);
		g_autoptr(GDateTime) at = g_date_time_new_utc(y, m, d, 0, 0, 0);
		if (at == NULL)
			return FALSE;
		now_override = g_date_time_to_unix(at);
		return TRUE;
	}
	g_autoptr(GTimeZone) utc = g_time_zone_new_utc();
	g_autoptr(GDateTime) at = g_date_time_new_from_iso8601(text, utc);
	if (at == NULL)
		return FALSE;
	now_override = g_date_time_to_unix(at);
	return TRUE;
}

gint64
date_now_unix(void)
{
	if (now_override >= 0)
		return now_override;
	return g_get_real_time() / G_USEC_PER_SEC;
}

gboolean
date_now_given(void)
{
	return now_override >= 0;
}

Day
date_of_unix(gint64 t)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(t);
	if (dt == NULL)
		return DAY_NONE;
	return date_from_ymd(g_date_time_get_year(dt), g_date_time_get_month(dt),
	                     g_date_time_get_day_of_month(dt));
}

Day
date_today(void)
{
	return date_of_unix(date_now_unix());
}

/* Reads digits at *P into *VALUE; FALSE when there are none. */
static gboolean
read_number(const char **p, int *value)
{
	if (!g_ascii_isdigit(**p))
		return FALSE;
	long v = 0;
	while (g_ascii_isdigit(**p)) {
		v = v * 10 + (**p - '0');
		if (v > 100000)
			return FALSE;
		(*p)++;
	}
	*value = (int)v;
	return TRUE;
}

gboolean
date_parse_span(const char *text, int *months)
{
	if (text == NULL || *text == '\0')
		return FALSE;
	const char *p = text;
	int whole = 0, total = 0;
	if (!read_number(&p, &whole))
		return FALSE;
	if (*p == '.') {
		/* Fractional years: the fraction must be a whole number of
		 * months (5.5 = 5 years 6 months; 5.3 is refused). */
		p++;
		const char *frac_start = p;
		int frac = 0;
		if (!read_number(&p, &frac) || p - frac_start > 3)
			return FALSE;
		int scale = 1;
		for (const char *q = frac_start; q < p; q++)
			scale *= 10;
		if ((frac * 12) % scale != 0)
			return FALSE;
		total = whole * 12 + frac * 12 / scale;
		if (*p == 'y')
			p++;
		if (*p != '\0')
			return FALSE;
		*months = total;
		return TRUE;
	}
	if (*p == '\0' || *p == 'y') {
		total = whole * 12;
		if (*p == 'y')
			p++;
		if (*p != '\0') {
			int m = 0;
			if (!read_number(&p, &m) || *p != 'm')
				return FALSE;
			p++;
			total += m;
		}
	} else if (*p == 'm') {
		p++;
		total = whole;
	} else {
		return FALSE;
	}
	if (*p != '\0')
		return FALSE;
	*months = total;
	return TRUE;
}

char *
date_span_to_string(int months)
{
	if (months % 12 == 0)
		return g_strdup_printf("%dy", months / 12);
	if (months < 12)
		return g_strdup_printf("%dm", months);
	return g_strdup_printf("%dy%dm", months / 12, months % 12);
}

int
date_months_between(Day from, Day to)
{
	int y1, m1, d1, y2, m2, d2;
	date_to_ymd(from, &y1, &m1, &d1);
	date_to_ymd(to, &y2, &m2, &d2);
	int months = (y2 - y1) * 12 + (m2 - m1);
	if (d2 < d1)
		months--;
	return months;
}
