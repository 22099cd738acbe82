/* clock.c: see clock.h. */
#include "config.h"

#include "base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include <gio/gio.h>

#include "base/deb822.h"
#include "base/resolve.h"
#include "base/state_file.h"
#include "base/util.h"

#define CLOCK_FILE   "clock"
#define CLOCK_LOCK   "clock.lock"
#define BOOT_ID_FILE "/proc/sys/kernel/random/boot_id"
#define REMEDY                                                                 \
	"if tenure's clock is right, say so with `tenure clock trust`"
/* A reading older than this is no evidence any more: a server whose
 * clock was wrong and was put right does not hold the doubt until the
 * next session with it. */
#define READING_LIFE (60 * 60)
/* The kernel's clock is disciplined by NTP within this (microseconds). */
#define NTP_MAX_ERROR 1000000
/* Tests only: a loopback or local server is a witness all the same, and
 * the kernel's NTP state is this ("synced" or anything else). */
#define TEST_LOCAL_WITNESS "TENURE_TEST_CLOCK_LOCAL_WITNESS"
#define TEST_NTP_STATE     "TENURE_TEST_CLOCK_NTP"

typedef struct {
	char *server;
	gint64 time; /* the server's time, or a time it passed */
	gint64 seen; /* monotonic microseconds when it was read */
	gboolean exact;
	gboolean witness; /* a server on another host (clock_is_witness) */
} Reading;

/* What STATE_DIR/clock says; 0 and NULL where it says nothing. */
typedef struct {
	gint64 checked;  /* real time of the last pass that trusted it */
	char *boot_id;   /* of that pass */
	gint64 boottime; /* its seconds since boot */
	char *doubt;
	gint64 doubt_since;
	char *doubt_witness; /* the server whose reading the doubt rests on
	                        (Doubt-Witness), or NULL */
	gint64 trusted;   /* when the admin said `tenure clock trust` */
	guint64 doubts;       /* doubts begun here so far: each one's
	                         number (Doubts) */
	guint64 doubt_number; /* the doubt's own (Doubt-Number) */
	guint64 trusted_doubt; /* the number of the doubt the trust ended
	                          (0: none was recorded) */
	gint64 heard;     /* when a server that is a witness last agreed,
	                     giving its time */
	char *ended;      /* the last doubt that ended: what it was */
	gint64 ended_since, ended_at;
	char *ended_why;  /* and what ended it */
	guint waiting;    /* messages the last fetch held (doubted only) */
	int real;         /* Real-Passes: 1 "yes" (a pass at the real time
	                     wrote it), 0 "no" (rehearsals and imports
	                     only), -1 not said (written before the mark:
	                     taken as yes) */
	gboolean present; /* the file is there */
} Record;

static GMutex lock;
static GPtrArray *readings; /* of Reading *: per server, the last exact
                               one and the latest lower bound */
/* Under LOCK: whether a witness has vouched for this process's clock
 * since it started, and the doubt it holds (also when the record cannot
 * say). */
static gboolean witnessed;
/* Under LOCK: whether this process has weighed a reading of a witness
 * server (servers_disagree), whatever it said. */
static gboolean witness_read;
static char *doubting;
static char *doubting_kind; /* what it rests on: a server, the record... */
static guint64 doubting_number; /* its Doubt-Number in the record */
static guint64 admin_taken; /* the doubt (its number) a `tenure clock
                               trust` already ended */
static gint in_doubt; /* atomic: clock_in_doubt */
static gboolean timedated_silent; /* its silence was logged */
static char *ran_before; /* clock_note_start: what shows a run, or NULL */

/* The host of SERVER as clock_observe is given it ("the SMTP server
 * HOST:PORT", "the IMAP server imaps://HOST:PORT"), or of a URL. */
static char *
host_of(const char *server)
{
	const char *word = strrchr(server, ' ');
	word = word ? word + 1 : server;
	const char *scheme = strstr(word, "://");
	if (scheme)
		word = scheme + 3;
	const char *at = strchr(word, '@');
	if (at)
		word = at + 1;
	if (*word == '[') {
		const char *close = strchr(word, ']');
		return close ? g_strndup(word + 1, close - word - 1)
		             : g_strdup(word + 1);
	}
	gsize len = strcspn(word, ":/");
	return g_strndup(word, len);
}

static gboolean
same_address(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a == NULL || b == NULL || a->sa_family != b->sa_family)
		return FALSE;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		              &((const struct sockaddr_in6 *)b)->sin6_addr,
		              sizeof(struct in6_addr)) == 0;
	return FALSE;
}

static gboolean
loopback(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >>
		        24) == 127;
	if (a->sa_family == AF_INET6) {
		const struct in6_addr *in6 =
		    &((const struct sockaddr_in6 *)a)->sin6_addr;
		if (IN6_IS_ADDR_LOOPBACK(in6))
			return TRUE;
		/* ::ffff:127.x.y.z */
		return IN6_IS_ADDR_V4MAPPED(in6) && in6->s6_addr[12] == 127;
	}
	return FALSE;
}

/* Whether the addresses FOUND are another host's: none a loopback one
 * nor one of this machine's. */
static gboolean
addresses_elsewhere(const struct addrinfo *found)
{
	struct ifaddrs *mine = NULL;
	if (getifaddrs(&mine) != 0)
		mine = NULL;
	gboolean witness = TRUE;
	for (const struct addrinfo *a = found; a && witness; a = a->ai_next) {
		if (loopback(a->ai_addr))
			witness = FALSE;
		for (struct ifaddrs *i = mine; i && witness; i = i->ifa_next)
			if (same_address(a->ai_addr, i->ifa_addr))
				witness = FALSE;
	}
	if (mine)
		freeifaddrs(mine);
	return witness;
}

/* What is known of each host's place (clock_is_witness), so that a pass
 * looks a name up at most every PLACE_LIFE, and never under LOCK: a
 * host (char *) to a Place.  Under PLACES_LOCK, held for no lookup. */
#define PLACE_LIFE (10 * 60)
typedef struct {
	gboolean witness;
	gint64 until; /* monotonic microseconds */
} Place;
static GMutex places_lock;
static GHashTable *places;

/* Keeps WITNESS as HOST's place; FALSE when a fresh answer was kept
 * already (a lookup made at the same time by another thread). */
static gboolean
place_note(const char *host, gboolean witness)
{
	g_mutex_lock(&places_lock);
	if (places == NULL)
		places = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		                               g_free);
	const Place *known = g_hash_table_lookup(places, host);
	gboolean first = !known || known->until <= g_get_monotonic_time();
	Place *place = g_new(Place, 1);
	place->witness = witness;
	place->until = g_get_monotonic_time() +
	               (gint64)PLACE_LIFE * G_USEC_PER_SEC;
	g_hash_table_replace(places, g_strdup(host), place);
	g_mutex_unlock(&places_lock);
	return first;
}

void
clock_note_addresses(const char *host, const struct addrinfo *found)
{
	if (host && *host && found)
		(void)place_note(host, addresses_elsewhere(found));
}

gboolean
clock_is_witness(const char *server)
{
	g_autofree char *host = host_of(server);
	if (*host == '\0')
		return FALSE;
	if (g_strcmp0(g_getenv(TEST_LOCAL_WITNESS), "1") == 0)
		return TRUE;
	g_mutex_lock(&places_lock);
	const Place *known = places ? g_hash_table_lookup(places, host) : NULL;
	gboolean answer = known && known->until > g_get_monotonic_time();
	gboolean witness = answer && known->witness;
	g_mutex_unlock(&places_lock);
	if (answer)
		return witness;
	/* Under tenure's deadline (resolve.h): a resolver that never
	 * answers holds no pass for long, and is asked again only after
	 * PLACE_LIFE. */
	g_autoptr(GError) error = NULL;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
	struct addrinfo *found =
	    resolve_bounded(host, NULL, &hints, RESOLVE_TIMEOUT_MS, &error);
	if (found == NULL) {
		/* What cannot be placed vouches for nothing. */
		if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
		    place_note(host, FALSE))
			util_log_warning("clock-witness-unplaced", "error",
			                 error->message, "means",
			                 "its readings vouch for nothing", NULL);
		return FALSE;
	}
	witness = addresses_elsewhere(found);
	freeaddrinfo(found);
	(void)place_note(host, witness);
	return witness;
}

/* What systemd-timedated says of the kernel's clock (its
 * NTPSynchronized property, which it reads with adjtimex in its own
 * process): the shipped units deny tenure the adjtimex call itself
 * (ProtectClock=yes and the @system-service allow list), so that
 * tenure cannot set the clock; asked over the system bus instead, with
 * a short deadline.  FALSE when there is no answer. */
static gboolean
timedated_synchronised(void)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GDBusConnection) bus =
	    g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, &error);
	g_autoptr(GVariant) reply = NULL;
	if (bus)
		reply = g_dbus_connection_call_sync(
		    bus, "org.freedesktop.timedate1",
		    "/org/freedesktop/timedate1",
		    "org.freedesktop.DBus.Properties", "Get",
		    g_variant_new("(ss)", "org.freedesktop.timedate1",
		                  "NTPSynchronized"),
		    G_VARIANT_TYPE("(v)"), G_DBUS_CALL_FLAGS_NONE, 2000, NULL,
		    &error);
	/* No answer is no witness, said once until one comes: the admin
	 * who finds tenure doubting a clock NTP keeps right learns why. */
	if (reply == NULL) {
		if (!timedated_silent)
			util_log_warning(
			    "clock-ntp-unknown", "error", error->message, "means",
			    "the kernel's NTP state vouches for nothing "
			    "(adjtimex is denied, and systemd-timedated "
			    "did not answer)",
			    NULL);
		timedated_silent = TRUE;
		return FALSE;
	}
	timedated_silent = FALSE;
	g_autoptr(GVariant) value = NULL;
	g_variant_get(reply, "(v)", &value);
	return g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN) &&
	       g_variant_get_boolean(value);
}

/* Whether the kernel says its clock is synchronised (by NTP or the
 * like) within NTP_MAX_ERROR: a witness that reads the clock every
 * pass.  Where the sandbox denies adjtimex (EPERM), timedated answers
 * for the kernel. */
static gboolean
ntp_synchronised(void)
{
	const char *test = g_getenv(TEST_NTP_STATE);
	if (test && *test)
		return strcmp(test, "synced") == 0;
	struct timex tx;
	memset(&tx, 0, sizeof tx);
	int state = adjtimex(&tx);
	if (state < 0 && (errno == EPERM || errno == ENOSYS))
		return timedated_synchronised();
	return state >= 0 && state != TIME_ERROR &&
	       !(tx.status & STA_UNSYNC) && tx.maxerror <= NTP_MAX_ERROR;
}

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
	/* Before LOCK, which the schedule needs: a name may be looked up. */
	gboolean witness = clock_is_witness(server);
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
		same->witness = witness;
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

/* What in STATE_DIR shows that tenure has run on it: mail seen, read
 * from IMAP, or queued and sent (`tenure init` makes none of them);
 * NULL when nothing does. */
static char *
traces_of_runs(const char *state_dir)
{
	static const char *const traces[] = {"seen", "outbox", "imap-cursor"};
	for (gsize i = 0; i < G_N_ELEMENTS(traces); i++) {
		g_autofree char *path =
		    g_build_filename(state_dir, traces[i], NULL);
		if (g_file_test(path, G_FILE_TEST_EXISTS))
			return g_strdup_printf("%s is there", path);
	}
	return NULL;
}

/* Why STATE_DIR/clock, missing, is lost (RAN: what shows tenure ran). */
static char *
lost_text(const char *ran)
{
	return g_strdup_printf("the clock record is missing, though tenure "
	                       "has run here before (%s)",
	                       ran);
}

void
clock_note_start(const char *state_dir)
{
	g_mutex_lock(&lock);
	g_free(ran_before);
	ran_before = traces_of_runs(state_dir);
	g_mutex_unlock(&lock);
}

void
clock_forget(void)
{
	g_mutex_lock(&lock);
	g_clear_pointer(&readings, g_ptr_array_unref);
	g_mutex_lock(&places_lock);
	g_clear_pointer(&places, g_hash_table_unref);
	g_mutex_unlock(&places_lock);
	admin_taken = doubting_number = 0;
	witnessed = witness_read = FALSE;
	g_clear_pointer(&doubting, g_free);
	g_clear_pointer(&doubting_kind, g_free);
	g_atomic_int_set(&in_doubt, 0);
	g_mutex_unlock(&lock);
}

gboolean
clock_in_doubt(void)
{
	return g_atomic_int_get(&in_doubt) != 0;
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

/* What the witnesses' clocks say against NOW (readings of servers on
 * this host, and readings older than READING_LIFE, say nothing);
 * *CONFIRMED when one of them gives its time and agrees (naming it in
 * *BY), *HEARD when one of them agrees at all.  Under LOCK. */
static char *
servers_disagree(gint64 now, gboolean *confirmed, gboolean *heard, char **by,
                 const char **server)
{
	*confirmed = *heard = FALSE;
	char *why = NULL;
	gint64 mono = g_get_monotonic_time();
	for (guint i = 0; readings && i < readings->len && why == NULL; i++) {
		const Reading *r = readings->pdata[i];
		*server = r->server;
		if (!r->witness ||
		    mono - r->seen > (gint64)READING_LIFE * G_USEC_PER_SEC)
			continue;
		witness_read = TRUE;
		gint64 theirs = r->time + (mono - r->seen) / G_USEC_PER_SEC;
		gint64 off = now - theirs;
		g_autofree char *span = span_text(off);
		g_autofree char *at = time_text(theirs);
		if (r->exact && ABS(off) > CLOCK_TOLERANCE)
			why = g_strdup_printf(
			    "the clock of %s says %s: tenure's is %s %s",
			    r->server, at, span, off > 0 ? "ahead" : "behind");
		else if (off < -CLOCK_TOLERANCE)
			why = g_strdup_printf(
			    "%s has passed %s already: tenure's clock "
			    "is %s behind",
			    r->server, at, span);
		else {
			/* A lower bound that agrees says only that tenure's
			 * clock is not behind: it vouches for no jump. */
			if (r->exact)
				*heard = TRUE;
			if (r->exact && !*confirmed) {
				*confirmed = TRUE;
				g_free(*by);
				*by = g_strdup_printf("%s agrees", r->server);
			}
		}
	}
	return why;
}

static void
record_clear(Record *record)
{
	g_free(record->boot_id);
	g_free(record->doubt);
	g_free(record->doubt_witness);
	g_free(record->ended);
	g_free(record->ended_why);
	memset(record, 0, sizeof *record);
	record->real = -1;
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
	record->real = -1;
	if (!state_file_read(state_dir, path, REMEDY, &body, &len, NULL, error))
		return FALSE;
	if (body == NULL)
		return TRUE;
	record->present = TRUE;
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
	record->doubt_witness = g_strdup(deb822_get(stanza, "Doubt-Witness"));
	record->trusted = field_int(stanza, "Trusted");
	record->doubts = (guint64)MAX(field_int(stanza, "Doubts"), 0);
	record->doubt_number = (guint64)MAX(field_int(stanza, "Doubt-Number"), 0);
	record->trusted_doubt = (guint64)MAX(field_int(stanza, "Trusted-Doubt"), 0);
	/* Not Witness-Heard, which releases before 0.2 also wrote for an
	 * INTERNALDATE: a start would wait for good for an exact reading
	 * an IMAP-only set-up never gives. */
	record->heard = field_int(stanza, "Witness-Dated");
	record->ended = g_strdup(deb822_get(stanza, "Ended"));
	record->ended_since = field_int(stanza, "Ended-Since");
	record->ended_at = field_int(stanza, "Ended-At");
	record->ended_why = g_strdup(deb822_get(stanza, "Ended-Why"));
	record->waiting = (guint)CLAMP(field_int(stanza, "Waiting"), 0, G_MAXUINT);
	const char *real = deb822_get(stanza, "Real-Passes");
	record->real = real == NULL ? -1 : strcmp(real, "no") != 0;
	return TRUE;
}

static gboolean
record_save(const char *state_dir, const Record *record, GError **error)
{
	GString *body = g_string_new(NULL);
	if (record->real >= 0)
		g_string_append_printf(body, "Real-Passes: %s\n",
		                       record->real ? "yes" : "no");
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
	if (record->doubt && record->doubt_witness)
		g_string_append_printf(body, "Doubt-Witness: %s\n",
		                       record->doubt_witness);
	if (record->doubt && record->doubt_number)
		g_string_append_printf(body,
		                       "Doubt-Number: %" G_GUINT64_FORMAT "\n",
		                       record->doubt_number);
	if (record->doubt && record->waiting)
		g_string_append_printf(body, "Waiting: %u\n", record->waiting);
	if (record->trusted)
		g_string_append_printf(body, "Trusted: %" G_GINT64_FORMAT "\n",
		                       record->trusted);
	if (record->trusted && record->trusted_doubt)
		g_string_append_printf(body,
		                       "Trusted-Doubt: %" G_GUINT64_FORMAT "\n",
		                       record->trusted_doubt);
	if (record->doubts)
		g_string_append_printf(body, "Doubts: %" G_GUINT64_FORMAT "\n",
		                       record->doubts);
	if (record->heard)
		g_string_append_printf(body,
		                       "Witness-Dated: %" G_GINT64_FORMAT "\n",
		                       record->heard);
	if (record->ended)
		g_string_append_printf(
		    body,
		    "Ended: %s\nEnded-Since: %" G_GINT64_FORMAT
		    "\nEnded-At: %" G_GINT64_FORMAT "\nEnded-Why: %s\n",
		    record->ended, record->ended_since, record->ended_at,
		    record->ended_why ? record->ended_why : "-");
	g_autofree char *path = record_path(state_dir);
	gboolean ok = state_file_write(path, body->str, body->len, error);
	g_string_free(body, TRUE);
	return ok;
}

/* Takes the lock every writer of STATE_DIR/clock holds from reading it
 * to replacing it: the daemon's pass and `tenure clock trust` are
 * different processes, and the one that wrote last from what it read
 * before the other's write would undo it (a trust lost).  Not
 * STATE_DIR/lock, which the daemon holds as long as it runs, nor the
 * record itself, which each write replaces with a new file: a file of
 * its own, held only for the read and the write.  Returns the
 * descriptor to close, or -1 with ERROR. */
static int
record_lock(const char *state_dir, GError **error)
{
	g_autofree char *path = g_build_filename(state_dir, CLOCK_LOCK, NULL);
	return state_file_lock_wait(path, error);
}

/* The file in the unit's RuntimeDirectory= (a tmpfs the reboot empties,
 * kept across restarts by RuntimeDirectoryPreserve=) that names this
 * boot where the sandbox hides the kernel's boot id (ProcSubset=pid). */
#define RUN_BOOT_FILE "boot-id"

/* The units' RuntimeDirectory=, where $RUNTIME_DIRECTORY is not set (a
 * command the admin runs by hand). */
#define RUN_DIR_DEFAULT "/run/tenure"

/* The path of the boot id tenure keeps: in $RUNTIME_DIRECTORY (its
 * first directory), else in RUN_DIR_DEFAULT. */
static char *
run_boot_path(gboolean *given)
{
	const char *dir = g_getenv("RUNTIME_DIRECTORY");
	*given = dir && *dir;
	g_autofree char *first =
	    *given ? g_strndup(dir, strcspn(dir, ":")) : g_strdup(RUN_DIR_DEFAULT);
	return g_build_filename(first, RUN_BOOT_FILE, NULL);
}

static char *
read_id(const char *path, GError **error)
{
	char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, error))
		return NULL;
	if (*g_strstrip(text) != '\0')
		return text;
	g_free(text);
	g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s is empty", path);
	return NULL;
}

/* This boot's id.  The one tenure keeps in its runtime directory when
 * there is one, so that every process of the boot (the daemon in the
 * sandbox, `tenure clock trust` by hand) names the boot alike; else the
 * kernel's; else, where the sandbox hides the kernel's (ProcSubset=pid),
 * one made now in $RUNTIME_DIRECTORY by the first process of the boot
 * to look.  NULL when none can be read, and in *WHY why not (newly
 * allocated). */
static char *
boot_id(char **why)
{
	g_autoptr(GError) kernel = NULL, run = NULL;
	gboolean given = FALSE;
	g_autofree char *path = run_boot_path(&given);
	*why = NULL;
	char *id = read_id(path, NULL);
	if (id == NULL)
		id = read_id(BOOT_ID_FILE, &kernel);
	if (id == NULL && given) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		              0644);
		if (fd >= 0) {
			g_autofree char *uuid = g_uuid_string_random();
			g_autofree char *made = g_strdup_printf("%s\n", uuid);
			gboolean ok = write(fd, made, strlen(made)) ==
			              (ssize_t)strlen(made);
			if (close(fd) < 0 || !ok)
				unlink(path);
		}
		id = read_id(path, &run);
	}
	if (id)
		return id;
	*why = g_strdup_printf(
	    "this boot's id cannot be read (%s; %s), so tenure cannot tell "
	    "a jump of its clock within this boot from a reboot",
	    kernel->message,
	    run ? run->message
	        : "and no RuntimeDirectory= ($RUNTIME_DIRECTORY) to keep "
	          "one in");
	return NULL;
}

/* Seconds since boot, suspended time included: the kernel's
 * CLOCK_BOOTTIME, read from /proc/uptime where it can be, so that a
 * process whose clock calls are faked (faketime) still sees the
 * machine's, and else from clock_gettime, which needs no /proc (the
 * unit's ProcSubset=pid hides /proc/uptime).  0 when neither says. */
static gint64
seconds_since_boot(void)
{
	g_autofree char *text = NULL;
	if (g_file_get_contents("/proc/uptime", &text, NULL, NULL))
		return g_ascii_strtoll(text, NULL, 10);
	struct timespec ts;
	if (clock_gettime(CLOCK_BOOTTIME, &ts) == 0)
		return ts.tv_sec;
	return 0;
}

/* What the last pass says against NOW, in this boot (BOOT_ID, BOOTTIME)
 * or after a reboot; WITNESSES when one is configured, to vouch for a
 * jump across a reboot. */
static char *
history_disagrees(const Record *record, const char *boot, gint64 boottime,
                  gint64 now, gboolean witnesses)
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
	if (now < record->checked - CLOCK_TOLERANCE) {
		g_autofree char *span = span_text(record->checked - now);
		return g_strdup_printf(
		    "tenure's clock is %s behind its last pass (%s)", span,
		    last);
	}
	/* Across a reboot the time since boot says nothing; a long jump
	 * with no witness to weigh it waits for the admin. */
	if (!witnesses && now - record->checked > CLOCK_JUMP_LIMIT) {
		g_autofree char *span = span_text(now - record->checked);
		g_autofree char *limit = span_text(CLOCK_JUMP_LIMIT);
		return g_strdup_printf(
		    "tenure's clock moved %s across a restart since its last "
		    "pass (%s), more than %s, and no witness that gives its "
		    "time (a server's date, the kernel's NTP state) has "
		    "vouched for it",
		    span, last, limit);
	}
	return NULL;
}

/* Records the end of a doubt (was WHY since SINCE) at NOW, and what
 * ended it (BY). */
static void
doubt_ended(Record *record, const char *was, gint64 since, gint64 now,
            const char *by)
{
	g_free(record->ended);
	record->ended = g_strdup(was);
	record->ended_since = since;
	record->ended_at = now;
	g_free(record->ended_why);
	record->ended_why = g_strdup(by);
}

static void
log_ended(const Record *record)
{
	g_autofree char *began = time_text(record->ended_since);
	util_log("clock-trusted", "was", record->ended, "since", began, "why",
	         record->ended_why, NULL);
}

char *
clock_doubt(const char *state_dir, gint64 now, gboolean witnesses)
{
	g_autoptr(GError) error = NULL;
	Record record = {0};
	gboolean confirmed = FALSE, heard = FALSE;
	g_autofree char *by = NULL;
	char *why = NULL;
	g_autofree char *kind = NULL;
	g_autofree char *boot_why = NULL;
	g_autofree char *boot = boot_id(&boot_why);
	gint64 boottime = seconds_since_boot();
	g_mutex_lock(&lock);
	/* The kernel's NTP state outweighs a server: it is read afresh,
	 * and disciplines the very clock tenure reads. */
	if (ntp_synchronised()) {
		confirmed = TRUE;
		by = g_strdup("the kernel's clock is synchronised (NTP)");
	} else {
		const char *server = NULL;
		why = servers_disagree(now, &confirmed, &heard, &by, &server);
		if (why)
			kind = g_strdup(server);
	}
	/* What the doubt rests on, if a server's reading: kept in the
	 * record (Doubt-Witness) for the next process. */
	g_autofree char *on_server = why ? g_strdup(kind) : NULL;
	g_autofree char *torn = NULL;
	gboolean unreadable = FALSE;
	/* Without the lock the pass goes on (its doubt is what matters
	 * now); the write that follows says what is wrong, if it fails. */
	int locked = record_lock(state_dir, &error);
	if (locked < 0) {
		util_log_error("clock-record", "error", error->message, NULL);
		g_clear_error(&error);
	}
	if (!record_load(state_dir, &record, &error)) {
		unreadable = TRUE;
		torn = g_strdup_printf("the clock record cannot be read (%s)",
		                       error->message);
		g_clear_error(&error);
		record_clear(&record);
	} else if (!record.present && ran_before) {
		/* Lost (a restore that missed it, a hand cleanup), not a
		 * first start: as torn, until a witness that gives its time
		 * or the admin vouches; left missing meanwhile, so that the
		 * next process finds it so too. */
		unreadable = TRUE;
		torn = lost_text(ran_before);
	}
	/* A configured server is waited for once it has been heard: one
	 * that never gives a date (Postfix) or an empty mailbox would hold
	 * every start for good. */
	gboolean expect = witnesses && record.heard > 0;
	/* The admin's word ends only the doubt the admin saw: the one this
	 * process holds, by the number the record gave it and the trust
	 * names.  Not a comparison of times: a trust, a pass that starts
	 * and a jump it finds, even two doubts, can fall in one second, and
	 * the jump is a doubt nobody has seen.  A process that began to
	 * doubt after the trust holds a doubt of its own, which the trust
	 * does not name. */
	gboolean admin = !torn && record.trusted_doubt != admin_taken &&
	                 doubting != NULL && record.trusted_doubt != 0 &&
	                 record.trusted_doubt == doubting_number;
	if (why == NULL && !confirmed && admin) {
		/* Once: a later jump is a new doubt.  The trust rebased the
		 * record on the time it was given, so a jump since then is
		 * still seen; what the admin's word ends is what the record
		 * cannot settle (a start no witness has vouched for, a boot
		 * that cannot be told). */
		admin_taken = record.trusted_doubt;
		why = history_disagrees(&record, boot, boottime, now, expect);
		if (why) {
			kind = g_strdup("history");
		} else {
			confirmed = TRUE;
			g_free(by);
			by = g_strdup("the admin trusted it (tenure clock trust)");
		}
	}
	/* A doubt that a server's reading raised, recorded by an earlier
	 * process (a daemon stopped while its IMAP server showed tenure's
	 * clock behind), holds until this process has read a witness: the
	 * last pass's agreement says nothing against the server, and the
	 * schedule comes before the first fetch.  The admin's word or the
	 * kernel's NTP state end it as any doubt. */
	if (why == NULL && !confirmed && !torn && !witness_read &&
	    record.doubt && record.doubt_witness) {
		why = g_strdup(record.doubt);
		kind = g_strdup(record.doubt_witness);
		on_server = g_strdup(record.doubt_witness);
	}
	if (confirmed || heard)
		witnessed = TRUE;
	if (heard)
		record.heard = now;
	if (why == NULL && !confirmed) {
		kind = g_strdup(torn                     ? "record"
		                : expect && !witnessed ? "start"
		                : boot == NULL && record.checked ? "boot"
		                                       : "history");
		if (torn)
			why = g_steal_pointer(&torn);
		else if (boot == NULL && record.checked)
			/* Never the after-a-reboot rules in silence: a jump
			 * within the boot would pass for one across it. */
			why = g_steal_pointer(&boot_why);
		else if (expect && !witnessed)
			why = g_strdup(
			    "tenure started and no witness has vouched for its "
			    "clock yet (a server on another host, or the "
			    "kernel's NTP state)");
		else
			why = history_disagrees(&record, boot, boottime, now,
			                        expect);
		if (why == NULL && by == NULL)
			by = g_strdup(heard ? "a witness agrees"
			                    : "its last pass agrees");
	}
	gboolean was_doubting = record.doubt != NULL || doubting != NULL;
	/* Logged once the record says so, so that `status` agrees with the
	 * log from the line on. */
	gboolean say_doubt = FALSE, say_ended = FALSE;
	if (why) {
		/* Once when it begins, and when it comes to rest on other
		 * evidence: the reason's times move each pass. */
		say_doubt = !was_doubting || g_strcmp0(kind, doubting_kind) != 0;
		if (record.doubt == NULL)
			record.doubt_since = doubting ? record.doubt_since : now;
		if (record.doubt_since == 0)
			record.doubt_since = now;
		/* A doubt the record did not show (or showed without a
		 * number, as before numbers) is a new one. */
		if (record.doubt == NULL || record.doubt_number == 0) {
			/* Past every number this process has met, should the
			 * record have been lost meanwhile. */
			record.doubts = MAX(record.doubts,
			                    MAX(admin_taken, doubting_number));
			record.doubt_number = ++record.doubts;
		}
		g_free(record.doubt);
		record.doubt = g_strdup(why);
		g_free(record.doubt_witness);
		record.doubt_witness = g_steal_pointer(&on_server);
		g_free(doubting);
		doubting = g_strdup(why);
		g_free(doubting_kind);
		doubting_kind = g_steal_pointer(&kind);
		doubting_number = record.doubt_number;
	} else {
		say_ended = was_doubting;
		if (was_doubting)
			doubt_ended(&record, record.doubt ? record.doubt : doubting,
			            record.doubt_since ? record.doubt_since : now,
			            now, by);
		g_clear_pointer(&record.doubt, g_free);
		g_clear_pointer(&record.doubt_witness, g_free);
		record.doubt_since = 0;
		record.waiting = 0;
		g_clear_pointer(&doubting, g_free);
		g_clear_pointer(&doubting_kind, g_free);
		doubting_number = 0;
		record.doubt_number = 0;
		record.checked = now;
		g_free(record.boot_id);
		record.boot_id = g_strdup(boot);
		record.boottime = boottime;
	}
	g_atomic_int_set(&in_doubt, why != NULL);
	/* Only a pass at the real time asks clock_doubt (never under
	 * --now): from here on the state is no rehearsal's. */
	record.real = 1;
	/* A record that cannot be read stays as it is until the clock is
	 * vouched for: written over with the doubt, it would say nothing
	 * against the clock at the next pass. */
	if ((!unreadable || why == NULL) &&
	    !record_save(state_dir, &record, &error))
		util_log_error("clock-record", "error", error->message, NULL);
	if (locked >= 0)
		close(locked);
	if (say_doubt)
		util_log_warning("clock-doubt", "reason", why, "held",
		                 "expiries, their announcements, reminders, "
		                 "commands",
		                 NULL);
	if (say_ended)
		log_ended(&record);
	g_mutex_unlock(&lock);
	record_clear(&record);
	return why;
}

gboolean
clock_trust(const char *state_dir, gint64 now, char **was, GError **error)
{
	Record record = {0};
	g_autoptr(GError) local = NULL;
	*was = NULL;
	int locked = record_lock(state_dir, error);
	if (locked < 0)
		return FALSE;
	/* A torn record is what the admin answers too: it is written anew. */
	if (!record_load(state_dir, &record, &local)) {
		*was = g_strdup_printf("the clock record cannot be read (%s)",
		                       local->message);
		record_clear(&record);
	} else if (!record.present) {
		g_autofree char *ran = traces_of_runs(state_dir);
		if (ran)
			*was = lost_text(ran);
	}
	if (record.doubt) {
		g_free(*was);
		*was = g_strdup(record.doubt);
	}
	if (*was)
		doubt_ended(&record, *was,
		            record.doubt_since ? record.doubt_since : now, now,
		            "the admin trusted it (tenure clock trust)");
	/* Which doubt the admin saw: the running pass's, if it recorded
	 * one; a doubt found after this names another time. */
	record.trusted_doubt = record.doubt ? record.doubt_number : 0;
	record.doubt_number = 0;
	g_clear_pointer(&record.doubt, g_free);
	g_clear_pointer(&record.doubt_witness, g_free);
	record.doubt_since = 0;
	record.waiting = 0;
	record.trusted = now;
	record.checked = now;
	g_free(record.boot_id);
	g_autofree char *boot_why = NULL;
	record.boot_id = boot_id(&boot_why);
	record.boottime = seconds_since_boot();
	gboolean ok = record_save(state_dir, &record, error);
	close(locked);
	record_clear(&record);
	return ok;
}

char *
clock_real_passes(const char *state_dir)
{
	Record record = {0};
	g_autoptr(GError) error = NULL;
	g_autofree char *path = record_path(state_dir);
	char *shown = NULL;
	if (!record_load(state_dir, &record, &error))
		shown = g_strdup_printf("its clock record, which passes at the "
		                        "real time write, cannot be read (%s)",
		                        error->message);
	else if (record.present && record.real != 0)
		shown = g_strdup_printf("%s says so", path);
	else if (!record.present) {
		g_autofree char *ran = traces_of_runs(state_dir);
		if (ran)
			shown = g_strdup_printf(
			    "%s, and %s is missing: a record that was lost, "
			    "or one that an earlier tenure never wrote for "
			    "a rehearsal",
			    ran, path);
	}
	record_clear(&record);
	return shown;
}

/* record_lock for a note no caller waits on: an error is logged. */
static int
record_lock_logged(const char *state_dir)
{
	g_autoptr(GError) error = NULL;
	int locked = record_lock(state_dir, &error);
	if (locked < 0)
		util_log_error("clock-record", "error", error->message, NULL);
	return locked;
}

void
clock_note_rehearsal(const char *state_dir)
{
	g_autoptr(GError) error = NULL;
	Record record = {0};
	int locked = record_lock_logged(state_dir);
	if (locked < 0)
		return;
	/* Only on a state nothing has written yet: a record missing beside
	 * other state is lost (clock_note_start), and stays missing. */
	g_autofree char *ran = traces_of_runs(state_dir);
	if (record_load(state_dir, &record, &error) && !record.present &&
	    ran == NULL) {
		record.real = 0;
		if (!record_save(state_dir, &record, &error))
			util_log_error("clock-record", "error", error->message,
			               NULL);
	}
	close(locked);
	record_clear(&record);
}

void
clock_note_waiting(const char *state_dir, guint count)
{
	g_autoptr(GError) error = NULL;
	Record record = {0};
	int locked = record_lock_logged(state_dir);
	if (locked < 0)
		return;
	/* Only a doubt has mail waiting for it; a record that cannot be
	 * read stays as it is (clock_doubt). */
	if (record_load(state_dir, &record, &error) &&
	    record.waiting != (record.doubt ? count : 0)) {
		record.waiting = record.doubt ? count : 0;
		if (!record_save(state_dir, &record, &error))
			util_log_error("clock-record", "error", error->message,
			               NULL);
	}
	close(locked);
	record_clear(&record);
}

guint
clock_waiting_recorded(const char *state_dir)
{
	Record record = {0};
	g_autoptr(GError) error = NULL;
	guint waiting = 0;
	if (record_load(state_dir, &record, &error) && record.doubt)
		waiting = record.waiting;
	record_clear(&record);
	return waiting;
}

char *
clock_doubt_recorded(const char *state_dir, gint64 *since, ClockEnded *ended)
{
	Record record = {0};
	g_autoptr(GError) error = NULL;
	*since = 0;
	if (ended)
		memset(ended, 0, sizeof *ended);
	if (!record_load(state_dir, &record, &error))
		return g_strdup_printf("the clock record cannot be read (%s)",
		                       error->message);
	if (!record.present) {
		g_autofree char *ran = traces_of_runs(state_dir);
		return ran ? lost_text(ran) : NULL;
	}
	char *reason = g_steal_pointer(&record.doubt);
	if (reason)
		*since = record.doubt_since;
	if (ended && record.ended) {
		ended->was = g_steal_pointer(&record.ended);
		ended->why = g_steal_pointer(&record.ended_why);
		ended->since = record.ended_since;
		ended->at = record.ended_at;
	}
	record_clear(&record);
	return reason;
}

void
clock_ended_clear(ClockEnded *ended)
{
	g_clear_pointer(&ended->was, g_free);
	g_clear_pointer(&ended->why, g_free);
}
