/* clock.c: see clock.h. */
#include "config.h"

#include "clock.h"

#include <string.h>

#include "deb822.h"
#include "state_file.h"
#include "util.h"

#define CLOCK_FILE   "clock"
#define BOOT_ID_FILE "/proc/sys/kernel/random/boot_id"
#define REMEDY                                                                 \
	"if tenure's clock is right, remove the file (tenure then trusts "     \
	"it again)"

typedef struct {
	char *server;
	gint64 time; /* the server's time, or a time it passed */
	gint64 seen; /* monotonic microseconds when it was read */
	gboolean exact;
} Reading;

/* What STATE_DIR/clock says; 0 and NULL where it says nothing. */
typedef struct {
	gint64 checked;  /* real time of the last pass that trusted it */
	char *boot_id;   /* of that pass */
	gint64 boottime; /* its seconds since boot */
	char *doubt;
	gint64 doubt_since;
} Record;

static GMutex lock;
static GPtrArray *readings; /* of Reading *: per server, the last exact
                               one and the latest lower bound */

static void
reading_free(Reading *reading)
{
	g_free(reading->server);
	g_free(reading);
}

void
clock_observe(const char *server, gint64 server_time, gboolean exact)
{
	gint64 seen = g_get_monotonic_time();
	g_mutex_lock(&lock);
	if (readings == NULL)
		readings = g_ptr_array_new_with_free_func(
		    (GDestroyNotify)reading_free);
	Reading *same = NULL;
	for (guint i = 0; i < readings->len && same == NULL; i++) {
		Reading *r = readings->pdata[i];
		if (r->exact == exact && strcmp(r->server, server) == 0)
			same = r;
	}
	if (same == NULL) {
		same = g_new0(Reading, 1);
		same->server = g_strdup(server);
		same->exact = exact;
		g_ptr_array_add(readings, same);
	}
	/* A lower bound only ever rises: an older message says less. */
	gint64 carried = same->time + (seen - same->seen) / G_USEC_PER_SEC;
	if (exact || same->seen == 0 || server_time > carried) {
		same->time = server_time;
		same->seen = seen;
	}
	g_mutex_unlock(&lock);
}

void
clock_forget(void)
{
	g_mutex_lock(&lock);
	g_clear_pointer(&readings, g_ptr_array_unref);
	g_mutex_unlock(&lock);
}

/* "3 days 2 h", "12 min", "40 s": how far apart two times are. */
static char *
span_text(gint64 seconds)
{
	seconds = ABS(seconds);
	if (seconds >= 86400)
		return g_strdup_printf("%" G_GINT64_FORMAT
		                       " days %" G_GINT64_FORMAT " h",
		                       seconds / 86400, seconds % 86400 / 3600);
	if (seconds >= 3600)
		return g_strdup_printf("%" G_GINT64_FORMAT
		                       " h %" G_GINT64_FORMAT " min",
		                       seconds / 3600, seconds % 3600 / 60);
	if (seconds >= 60)
		return g_strdup_printf("%" G_GINT64_FORMAT " min",
		                       seconds / 60);
	return g_strdup_printf("%" G_GINT64_FORMAT " s", seconds);
}

static char *
time_text(gint64 when)
{
	g_autoptr(GDateTime) at = g_date_time_new_from_unix_utc(when);
	return at ? g_date_time_format(at, "%Y-%m-%d %H:%M:%S UTC")
	          : g_strdup("?");
}

/* What the servers' clocks say against NOW; *CONFIRMED when one of them
 * gives its time and agrees. */
static char *
servers_disagree(gint64 now, gboolean *confirmed)
{
	*confirmed = FALSE;
	char *why = NULL;
	gint64 mono = g_get_monotonic_time();
	g_mutex_lock(&lock);
	for (guint i = 0; readings && i < readings->len && why == NULL; i++) {
		const Reading *r = readings->pdata[i];
		gint64 theirs = r->time + (mono - r->seen) / G_USEC_PER_SEC;
		gint64 off = now - theirs;
		g_autofree char *span = span_text(off);
		g_autofree char *at = time_text(theirs);
		if (r->exact && ABS(off) > CLOCK_TOLERANCE)
			why = g_strdup_printf(
			    "the clock of %s says %s: tenure's is %s %s",
			    r->server, at, span, off > 0 ? "ahead" : "behind");
		else if (r->exact)
			*confirmed = TRUE;
		else if (off < -CLOCK_TOLERANCE)
			why = g_strdup_printf(
			    "%s has passed %s already: tenure's clock "
			    "is %s behind",
			    r->server, at, span);
	}
	g_mutex_unlock(&lock);
	return why;
}

static void
record_clear(Record *record)
{
	g_free(record->boot_id);
	g_free(record->doubt);
	memset(record, 0, sizeof *record);
}

static gint64
field_int(const Deb822Stanza *stanza, const char *name)
{
	const char *text = deb822_get(stanza, name);
	return text ? g_ascii_strtoll(text, NULL, 10) : 0;
}

static char *
record_path(const char *state_dir)
{
	return g_build_filename(state_dir, CLOCK_FILE, NULL);
}

static gboolean
record_load(const char *state_dir, Record *record, GError **error)
{
	g_autofree char *path = record_path(state_dir);
	g_autofree char *body = NULL;
	gsize len = 0;
	if (!state_file_read(state_dir, path, REMEDY, &body, &len, NULL, error))
		return FALSE;
	if (body == NULL)
		return TRUE;
	g_autoptr(GPtrArray) stanzas = deb822_parse(path, body, len, error);
	if (stanzas == NULL)
		return FALSE;
	if (stanzas->len == 0)
		return TRUE;
	const Deb822Stanza *stanza = stanzas->pdata[0];
	record->checked = field_int(stanza, "Checked");
	record->boot_id = g_strdup(deb822_get(stanza, "Boot-Id"));
	record->boottime = field_int(stanza, "Boottime");
	record->doubt = g_strdup(deb822_get(stanza, "Doubt"));
	record->doubt_since = field_int(stanza, "Doubt-Since");
	return TRUE;
}

static gboolean
record_save(const char *state_dir, const Record *record, GError **error)
{
	GString *body = g_string_new(NULL);
	if (record->checked)
		g_string_append_printf(body,
		                       "Checked: %" G_GINT64_FORMAT "\n"
		                       "Boot-Id: %s\n"
		                       "Boottime: %" G_GINT64_FORMAT "\n",
		                       record->checked,
		                       record->boot_id ? record->boot_id : "-",
		                       record->boottime);
	if (record->doubt)
		g_string_append_printf(
		    body, "Doubt: %s\nDoubt-Since: %" G_GINT64_FORMAT "\n",
		    record->doubt, record->doubt_since);
	g_autofree char *path = record_path(state_dir);
	gboolean ok = state_file_write(path, body->str, body->len, error);
	g_string_free(body, TRUE);
	return ok;
}

/* This boot's id; NULL when the kernel does not say. */
static char *
boot_id(void)
{
	char *text = NULL;
	if (!g_file_get_contents(BOOT_ID_FILE, &text, NULL, NULL))
		return NULL;
	return g_strstrip(text);
}

/* Seconds since boot, suspended time included, from /proc/uptime: the
 * kernel's CLOCK_BOOTTIME, read from a file so that a process whose
 * clock calls are faked (faketime) still sees the machine's; 0 when it
 * cannot be read. */
static gint64
seconds_since_boot(void)
{
	g_autofree char *text = NULL;
	if (!g_file_get_contents("/proc/uptime", &text, NULL, NULL))
		return 0;
	return g_ascii_strtoll(text, NULL, 10);
}

/* What the last pass says against NOW, in this boot (BOOT_ID, BOOTTIME)
 * or after a reboot. */
static char *
history_disagrees(const Record *record, const char *boot, gint64 boottime,
                  gint64 now)
{
	if (record->checked == 0)
		return NULL;
	g_autofree char *last = time_text(record->checked);
	/* The time since boot never goes back within a boot: a record that
	 * says otherwise was written under a faked clock (faketime fakes
	 * it too) and is compared as after a reboot. */
	if (boot && g_strcmp0(record->boot_id, boot) == 0 &&
	    record->boottime > 0 && record->boottime <= boottime) {
		gint64 expected =
		    record->checked + (boottime - record->boottime);
		gint64 off = now - expected;
		if (ABS(off) <= CLOCK_TOLERANCE)
			return NULL;
		g_autofree char *span = span_text(off);
		return g_strdup_printf(
		    "tenure's clock moved %s %s than the time "
		    "since its last pass (%s)",
		    span, off > 0 ? "further" : "less", last);
	}
	if (now >= record->checked - CLOCK_TOLERANCE)
		return NULL;
	g_autofree char *span = span_text(record->checked - now);
	return g_strdup_printf("tenure's clock is %s behind its last pass (%s)",
	                       span, last);
}

char *
clock_doubt(const char *state_dir, gint64 now)
{
	g_autoptr(GError) error = NULL;
	Record record = {0};
	gboolean confirmed = FALSE;
	char *why = servers_disagree(now, &confirmed);
	g_autofree char *boot = boot_id();
	gint64 boottime = seconds_since_boot();
	if (!record_load(state_dir, &record, &error)) {
		/* A torn record holds the acts until someone looks. */
		if (why == NULL)
			why = g_strdup(error->message);
		record_clear(&record);
		return why;
	}
	if (why == NULL && !confirmed)
		why = history_disagrees(&record, boot, boottime, now);
	gboolean was_doubting = record.doubt != NULL;
	if (why) {
		/* Once when it begins: the reason's times move each pass. */
		if (!was_doubting)
			util_log_warning(
			    "clock-doubt", "reason", why, "held",
			    "expiries, their announcements, reminders", NULL);
		if (!was_doubting)
			record.doubt_since = now;
		g_free(record.doubt);
		record.doubt = g_strdup(why);
	} else {
		if (was_doubting)
			util_log("clock-trusted", "was", record.doubt, NULL);
		g_clear_pointer(&record.doubt, g_free);
		record.checked = now;
		g_free(record.boot_id);
		record.boot_id = g_strdup(boot);
		record.boottime = boottime;
	}
	if (!record_save(state_dir, &record, &error))
		util_log_error("clock-record", "error", error->message, NULL);
	record_clear(&record);
	return why;
}

char *
clock_doubt_recorded(const char *state_dir, gint64 *since)
{
	Record record = {0};
	g_autoptr(GError) error = NULL;
	*since = 0;
	if (!record_load(state_dir, &record, &error))
		return g_strdup(error->message);
	char *reason = g_steal_pointer(&record.doubt);
	if (reason)
		*since = record.doubt_since;
	record_clear(&record);
	return reason;
}
