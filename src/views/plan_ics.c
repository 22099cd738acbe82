/* plan_ics.c: see plan_ics.h. */
#include "config.h"

#include "base/util.h"
#include "rules/plan.h"
#include "views/plan_ics.h"
#include "views/status.h"

/* Appends an iCalendar content line, escaped (RFC 5545 3.3.11) and
 * folded at 75 octets, with CRLF. */
static void
ics_line(GString *out, const char *name, const char *value, gboolean text)
{
	GString *line = g_string_new(name);
	g_string_append_c(line, ':');
	for (const char *p = value; *p; p++) {
		if (text && (*p == '\\' || *p == ';' || *p == ','))
			g_string_append_c(line, '\\');
		if (text && *p == '\n') {
			g_string_append(line, "\\n");
			continue;
		}
		g_string_append_c(line, *p);
	}
	/* Fold so that no line exceeds 75 octets (CRLF not counted), and
	 * between UTF-8 characters, never inside one: a character that
	 * would not fit whole goes to the next line. */
	gsize column = 0;
	for (gsize i = 0; i < line->len;) {
		gsize width = 1;
		while (i + width < line->len &&
		       ((guchar)line->str[i + width] & 0xC0) == 0x80)
			width++;
		if (column + width > 75) {
			g_string_append(out, "\r\n ");
			column = 1;
		}
		g_string_append_len(out, line->str + i, (gssize)width);
		column += width;
		i += width;
	}
	g_string_append(out, "\r\n");
	g_string_free(line, TRUE);
}

char *
plan_ics_render(GPtrArray *events, const char *committee_name,
                const char *rule_text, gboolean show_addresses)
{
	GString *out = g_string_new(NULL);
	g_autoptr(GDateTime) now =
	    g_date_time_new_from_unix_utc(date_now_unix());
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%dT%H%M%SZ");
	ics_line(out, "BEGIN", "VCALENDAR", FALSE);
	ics_line(out, "VERSION", "2.0", FALSE);
	ics_line(out, "PRODID", "-//tenure//tenure " PACKAGE_VERSION "//EN",
	         FALSE);
	ics_line(out, "CALSCALE", "GREGORIAN", FALSE);
	g_autofree char *calname =
	    g_strdup_printf("%s terms (%s)", committee_name, rule_text);
	ics_line(out, "X-WR-CALNAME", calname, TRUE);
	/* Keys already used, so that two rows alike on one day still get
	 * two UIDs. */
	g_autoptr(GHashTable) used =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	for (guint i = 0; i < events->len; i++) {
		const PlanEvent *event = events->pdata[i];
		g_autofree char *what = NULL;
		if (event->kind == PLAN_EXPIRE && event->overdue)
			what = g_strdup("term expired, overdue (not recorded)");
		else if (event->kind == PLAN_EXPIRE)
			what = g_strdup("term expires");
		else if (event->kind == PLAN_RESIGN)
			what = g_strdup("last day (resigned)");
		else if (event->kind == PLAN_REMOVE)
			what = g_strdup("last day (removed)");
		else if (event->kind == PLAN_ELIGIBLE)
			what = g_strdup("may be appointed again");
		else if (event->kind == PLAN_HANDOVER)
			what = g_strdup(event->detail);
		else
			continue;
		int y, m, d;
		date_to_ymd(event->date, &y, &m, &d);
		Day next = event->date + 1;
		int ny, nm, nd;
		date_to_ymd(next, &ny, &nm, &nd);
		g_autofree char *start =
		    g_strdup_printf("%04d%02d%02d", y, m, d);
		g_autofree char *end =
		    g_strdup_printf("%04d%02d%02d", ny, nm, nd);
		/* A UID from the event itself, so that a calendar refreshed
		 * from a new plan updates events instead of duplicating
		 * them; the committee and the rule keep calendars of other
		 * committees and other what-ifs apart. */
		char *key = NULL;
		for (guint n = 0; key == NULL; n++) {
			key = g_strdup_printf("%s\n%s\n%s\n%s\n%s\n%u",
			                      committee_name, rule_text, start,
			                      plan_kind_name(event->kind),
			                      event->member, n);
			if (!g_hash_table_add(used, key))
				key = NULL;
		}
		g_autofree char *hash = util_sha256_string(key);
		g_autofree char *uid = g_strdup_printf("%.32s@tenure", hash);
		g_autofree char *who =
		    status_display_name(event->member, show_addresses);
		g_autofree char *summary = g_strdup_printf("%s: %s", who, what);
		ics_line(out, "BEGIN", "VEVENT", FALSE);
		ics_line(out, "UID", uid, FALSE);
		ics_line(out, "DTSTAMP", stamp, FALSE);
		ics_line(out, "DTSTART;VALUE=DATE", start, FALSE);
		ics_line(out, "DTEND;VALUE=DATE", end, FALSE);
		ics_line(out, "SUMMARY", summary, TRUE);
		ics_line(out, "DESCRIPTION", event->detail, TRUE);
		ics_line(out, "TRANSP", "TRANSPARENT", FALSE);
		ics_line(out, "END", "VEVENT", FALSE);
	}
	ics_line(out, "END", "VCALENDAR", FALSE);
	return g_string_free(out, FALSE);
}
