/* rule.c: the table of term rules, their parameters, and the helpers the
 * rules share.  See rule.h and rules-private.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rules/rules-private.h"
#include "base/util.h"

static const RuleClass *const classes[] = {
    &rule_none_class,           &rule_fixed_term_class,    &rule_rotation_class,
    &rule_senior_rolling_class, &rule_annual_expiry_class, &rule_debian_class,
};

const char *const *
rule_names(void)
{
	static const char *names[G_N_ELEMENTS(classes) + 1];
	if (names[0] == NULL)
		for (gsize i = 0; i < G_N_ELEMENTS(classes); i++)
			names[i] = classes[i]->name;
	return names;
}

static const RuleClass *
class_lookup(const char *name)
{
	for (gsize i = 0; i < G_N_ELEMENTS(classes); i++)
		if (strcmp(classes[i]->name, name) == 0)
			return classes[i];
	return NULL;
}

static char *
param_names(const RuleClass *klass)
{
	GString *names = g_string_new(NULL);
	for (const ParamSpec *spec = klass->params; spec->name; spec++)
		g_string_append_printf(names, "%s%s", names->len ? ", " : "",
		                       spec->name);
	if (names->len == 0)
		g_string_append(names, "none");
	return g_string_free(names, FALSE);
}

static gboolean
parse_bool(const char *text, gboolean *out)
{
	static const char *const yes[] = {"true", "yes", "1", "on"};
	static const char *const no[] = {"false", "no", "0", "off"};
	for (gsize i = 0; i < G_N_ELEMENTS(yes); i++) {
		if (g_ascii_strcasecmp(text, yes[i]) == 0) {
			*out = TRUE;
			return TRUE;
		}
		if (g_ascii_strcasecmp(text, no[i]) == 0) {
			*out = FALSE;
			return TRUE;
		}
	}
	return FALSE;
}

/* Parses "MM-DD" into month * 100 + day; any day that exists in a leap
 * year is accepted (29 February falls on 28 February in other years). */
static gboolean
parse_month_day(const char *text, int *out)
{
	if (strlen(text) != 5 || text[2] != '-' || !g_ascii_isdigit(text[0]) ||
	    !g_ascii_isdigit(text[1]) || !g_ascii_isdigit(text[3]) ||
	    !g_ascii_isdigit(text[4]))
		return FALSE;
	int month = atoi(text), mday = atoi(text + 3);
	if (month < 1 || month > 12 || mday < 1 ||
	    mday > g_date_get_days_in_month(month, 2000))
		return FALSE;
	*out = month * 100 + mday;
	return TRUE;
}

/* "4y13m" parses as 61 months, but months beside years are the part of
 * a year left over: 13 of them is a mistake (18m alone is fine). */
static gboolean
months_within_year(const char *text)
{
	const char *y = strchr(text, 'y');
	if (y == NULL || y[1] == '\0')
		return TRUE;
	return g_ascii_strtoll(y + 1, NULL, 10) < 12;
}

static gboolean
param_set(Rule *rule, const ParamSpec *spec, const char *value, GError **error)
{
	int *number = G_STRUCT_MEMBER_P(rule, spec->offset);
	const char *name = rule->klass->name;
	switch (spec->kind) {
	case PARAM_SPAN:
	case PARAM_SPAN_OR_ZERO: {
		int months;
		if (!date_parse_span(value, &months) ||
		    !months_within_year(value)) {
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_INVALID,
			    "rule %s: parameter %s: \"%s\" is not a duration "
			    "(like 4y, 5y6m, 18m or 5.5)",
			    name, spec->name, value);
			return FALSE;
		}
		if (months == 0 && spec->kind == PARAM_SPAN) {
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_INVALID,
			    "rule %s: parameter %s: \"%s\" must be longer "
			    "than zero",
			    name, spec->name, value);
			return FALSE;
		}
		if (months > 100 * 12) {
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_INVALID,
			    "rule %s: parameter %s: \"%s\" is longer than a "
			    "century",
			    name, spec->name, value);
			return FALSE;
		}
		*number = months;
		return TRUE;
	}
	case PARAM_COUNT: {
		char *end = NULL;
		gint64 count = g_ascii_strtoll(value, &end, 10);
		if (*value == '\0' || *end != '\0' || count < 1 ||
		    count > 100) {
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_INVALID,
			    "rule %s: parameter %s: \"%s\" is not a whole "
			    "number from 1 to 100",
			    name, spec->name, value);
			return FALSE;
		}
		*number = (int)count;
		return TRUE;
	}
	case PARAM_BOOL:
		if (!parse_bool(value, number)) {
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_INVALID,
			    "rule %s: parameter %s: \"%s\" is not true or "
			    "false",
			    name, spec->name, value);
			return FALSE;
		}
		return TRUE;
	case PARAM_MONTH_DAY:
		if (!parse_month_day(value, number)) {
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_INVALID,
			    "rule %s: parameter %s: \"%s\" is not a day of the "
			    "year (MM-DD)",
			    name, spec->name, value);
			return FALSE;
		}
		return TRUE;
	}
	g_assert_not_reached();
}

static const ParamSpec *
spec_lookup(const RuleClass *klass, const char *key)
{
	for (const ParamSpec *spec = klass->params; spec->name; spec++)
		if (strcmp(spec->name, key) == 0)
			return spec;
	return NULL;
}

Rule *
rule_new(const char *name, GHashTable *params, GError **error)
{
	const RuleClass *klass = name ? class_lookup(name) : NULL;
	if (klass == NULL) {
		g_autofree char *known =
		    g_strjoinv(", ", (char **)rule_names());
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "unknown rule \"%s\" (known rules: %s)",
		            name ? name : "", known);
		return NULL;
	}
	g_autoptr(Rule) rule = g_new0(Rule, 1);
	rule->klass = klass;
	for (const ParamSpec *spec = klass->params; spec->name; spec++)
		if (!param_set(rule, spec, spec->fallback, error))
			g_assert_not_reached();
	if (params == NULL)
		return g_steal_pointer(&rule);

	/* Sorted keys make the first error reported the same every time. */
	g_autoptr(GList) keys =
	    g_list_sort(g_hash_table_get_keys(params), (GCompareFunc)strcmp);
	for (GList *l = keys; l; l = l->next) {
		const char *key = l->data;
		const ParamSpec *spec = spec_lookup(klass, key);
		if (spec == NULL) {
			g_autofree char *known = param_names(klass);
			g_set_error(
			    error, TENURE_ERROR, TENURE_ERROR_INVALID,
			    "rule %s: unknown parameter \"%s\" (parameters "
			    "of %s: %s)",
			    klass->name, key, klass->name, known);
			return NULL;
		}
		if (!param_set(rule, spec, g_hash_table_lookup(params, key),
		               error))
			return NULL;
	}
	return g_steal_pointer(&rule);
}

Rule *
rule_new_from_string(const char *name, const char *parameters, GError **error)
{
	g_autoptr(GHashTable) params =
	    g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	g_auto(GStrv) words =
	    g_strsplit_set(parameters ? parameters : "", " \t,;", -1);
	for (char **word = words; *word; word++) {
		if (**word == '\0')
			continue;
		const char *eq = strchr(*word, '=');
		if (eq == NULL || eq == *word) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
			            "rule %s: \"%s\" is not KEY=VALUE",
			            name ? name : "", *word);
			return NULL;
		}
		char *key = g_strndup(*word, eq - *word);
		if (g_hash_table_contains(params, key)) {
			g_set_error(error, TENURE_ERROR, TENURE_ERROR_PARSE,
			            "rule %s: parameter %s given twice",
			            name ? name : "", key);
			g_free(key);
			return NULL;
		}
		g_hash_table_insert(params, key, g_strdup(eq + 1));
	}
	return rule_new(name, params, error);
}

void
rule_free(Rule *rule)
{
	g_free(rule);
}

const char *
rule_name(const Rule *rule)
{
	return rule->klass->name;
}

gboolean
rule_deferrable(const Rule *rule)
{
	return rule->klass->deferrable;
}

char *
rule_describe(const Rule *rule)
{
	GString *text = g_string_new(rule->klass->name);
	for (const ParamSpec *spec = rule->klass->params; spec->name; spec++) {
		const int *number = G_STRUCT_MEMBER_P(rule, spec->offset);
		g_string_append_printf(text, " %s=", spec->name);
		switch (spec->kind) {
		case PARAM_SPAN:
		case PARAM_SPAN_OR_ZERO: {
			g_autofree char *span = date_span_to_string(*number);
			g_string_append(text, span);
			break;
		}
		case PARAM_COUNT:
			g_string_append_printf(text, "%d", *number);
			break;
		case PARAM_BOOL:
			g_string_append(text, *number ? "true" : "false");
			break;
		case PARAM_MONTH_DAY:
			g_string_append_printf(text, "%02d-%02d", *number / 100,
			                       *number % 100);
			break;
		}
	}
	return g_string_free(text, FALSE);
}

gboolean
rule_board_expire(Board *board, Seat *seat, Day expiry, int reason,
                  Day reason_day)
{
	if (seat->pinned_end != DAY_NONE)
		return FALSE;
	seat->deferred = FALSE;
	guint n_deferrals = board->rule && board->rule->klass->deferrable
	                        ? seat->n_deferrals
	                        : 0;
	for (guint i = 0; i < n_deferrals; i++) {
		const EngineDeferral *deferral = &seat->deferrals[i];
		if (deferral->on >= board->today && deferral->on <= expiry &&
		    deferral->until > expiry) {
			expiry = deferral->until;
			seat->deferred = TRUE;
		}
	}
	board->version++;
	seat->expiry = expiry;
	rule_seat_update(seat);
	seat->decided = board->today;
	seat->reason = reason;
	seat->reason_day = reason_day;
	seat->decided_by = board->rule;
	return TRUE;
}

guint
rule_board_ended_between(const Board *board, Day lo, Day hi)
{
	guint count = 0;
	/* Endings are appended in date order, so only the tail can fall
	 * inside a window that reaches back from today. */
	for (guint i = board->n_ended; i > 0; i--) {
		Day end = board->ended[i - 1];
		if (end <= lo)
			break;
		if (end <= hi)
			count++;
	}
	if (lo < board->today && board->today <= hi)
		for (guint i = 0; i < board->n_seats; i++)
			if (rule_seat_end(&board->seats[i]) == board->today)
				count++;
	return count;
}

/* The rules do their date arithmetic in the engine's inner loop, where
 * GDate's validation of every step costs more than the rest of a
 * simulation together.  These are the same calendar (GLib's Julian day
 * numbers, proleptic Gregorian, day 1 = 0001-01-01) by Howard Hinnant's
 * civil-day algorithms; rules-term checks them against date.c. */
#define JULIAN_1970_01_01 719163

void
rule_day_to_ymd(Day day, int *year, int *month, int *mday)
{
	gint64 z = (gint64)day - JULIAN_1970_01_01 + 719468;
	gint64 era = (z >= 0 ? z : z - 146096) / 146097;
	guint doe = (guint)(z - era * 146097);
	guint yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	guint doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	guint mp = (5 * doy + 2) / 153;
	guint m = mp < 10 ? mp + 3 : mp - 9;
	*year = (int)((gint64)yoe + era * 400 + (m <= 2));
	*month = (int)m;
	*mday = (int)(doy - (153 * mp + 2) / 5 + 1);
}

Day
rule_day_from_ymd(int year, int month, int mday)
{
	gint64 y = year - (month <= 2);
	gint64 era = (y >= 0 ? y : y - 399) / 400;
	guint yoe = (guint)(y - era * 400);
	guint doy = (153 * (guint)(month > 2 ? month - 3 : month + 9) + 2) / 5 +
	            (guint)mday - 1;
	guint doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (Day)(era * 146097 + (gint64)doe - 719468 + JULIAN_1970_01_01);
}

static int
days_in_month(int year, int month)
{
	static const int days[] = {31, 28, 31, 30, 31, 30,
	                           31, 31, 30, 31, 30, 31};
	if (month == 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		return 29;
	return days[month - 1];
}

Day
rule_add_months(Day day, int months, DateFit fit)
{
	int year, month, mday;
	rule_day_to_ymd(day, &year, &month, &mday);
	int index = year * 12 + (month - 1) + months;
	year = index / 12;
	month = index % 12 + 1;
	int last = days_in_month(year, month);
	if (mday <= last)
		return rule_day_from_ymd(year, month, mday);
	/* The day does not exist MONTHS later (the 31st, 29 February).  A
	 * bar ends on the first of the next month, the first day whose
	 * window of MONTHS no longer reaches back to DAY: ending it on the
	 * month's last day would end it a day early.  A term's end, and a
	 * window reaching back, take the month's last day. */
	Day end = rule_day_from_ymd(year, month, last);
	return fit == DATE_BAR && months > 0 ? end + 1 : end;
}

Day
rule_next_month_day(Day after, int md)
{
	int year, month, mday;
	rule_day_to_ymd(after, &year, &month, &mday);
	for (;; year++) {
		month = md / 100;
		mday = MIN(md % 100, days_in_month(year, month));
		Day day = rule_day_from_ymd(year, month, mday);
		if (day >= after)
			return day;
	}
}

char *
rule_explain_bar(const Rule *rule, BarKind bar, Day bar_day, Day eligible)
{
	char b[11], e[11];
	date_format(bar_day, b);
	date_format(eligible, e);
	switch (bar) {
	case BAR_NONE:
		return NULL;
	case BAR_COOLDOWN: {
		g_autofree char *cooldown = date_span_to_string(rule->cooldown);
		return g_strdup_printf("term ended %s; not before %s after it "
		                       "(%s)",
		                       b, cooldown, rule->klass->name);
	}
	case BAR_RECENT_MEMBER:
		if (rule->klass == &rule_debian_class)
			return g_strdup_printf(
			    "a member until %s, within the "
			    "previous 12 months (debian 6.2.5)",
			    b);
		return g_strdup_printf(
		    "a member until %s, within the preceding "
		    "%d months (%s)",
		    b, rule->cooldown, rule->klass->name);
	case BAR_FOUR_OF_FIVE:
		return g_strdup_printf(
		    "a member for more than 4 of the 5 years "
		    "before (until %s; senior-rolling)",
		    b);
	case BAR_ANTI_CABAL:
		if (eligible == DAY_NEVER)
			return g_strdup_printf(
			    "not until someone else has been "
			    "appointed after %s (fixed-term "
			    "anti-cabal)",
			    b);
		return g_strdup_printf("not until someone else has been "
		                       "appointed after %s, as on %s "
		                       "(fixed-term anti-cabal)",
		                       b, e);
	}
	g_assert_not_reached();
}
