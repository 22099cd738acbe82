/* cmd_audit.c: tenure audit — re-verify every archived message and
 * rebuild the ledger from them plus the hand-written history.
 *
 * First every archived message is verified again, as of its arrival: a
 * signature made while its key was valid stays valid after the key
 * expired (and the report says so); a key revoked since is reported.
 * Then a scratch ledger is rebuilt: the events that did not come from
 * mail (Source: import, and the rule's own expiries) in date order,
 * interleaved with the archived messages in the order they were acted
 * on, each run
 * through the same intake as live mail.  Every event of the real ledger
 * must come out of the rebuild, and nothing more; each difference is
 * printed.  Exit status 1 when anything failed or differs.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "ledger/archive.h"
#include "cli/cmd.h"
#include "intake/intake.h"
#include "base/util.h"
#include "verify/verify.h"

static gboolean
from_mail(const LedgerEvent *event)
{
	return event->source && event->source[0] == '<';
}

static Day
arrival_day(gint64 arrival)
{
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(arrival);
	return dt ? date_from_ymd(g_date_time_get_year(dt),
	                          g_date_time_get_month(dt),
	                          g_date_time_get_day_of_month(dt))
	          : DAY_NONE;
}

/* Re-verifies one archived message and prints what was found. */
static gboolean
check_message(Verifier *verifier, const char *path, guint *problems)
{
	g_autoptr(GBytes) raw = NULL;
	gint64 arrival = 0;
	g_autoptr(GError) error = NULL;
	g_autofree char *base = g_path_get_basename(path);
	if (!archive_read(path, &raw, &arrival, &error)) {
		printf("FAILED %s: %s\n", base, error->message);
		(*problems)++;
		return FALSE;
	}
	g_autofree char *reason = NULL;
	g_autoptr(GMimeMessage) message = signed_part_parse(raw, &reason);
	GMimeObject *part = NULL;
	g_autofree char *shape = NULL;
	SignedKind kind = message ? signed_part_find(message, &part, &shape,
	                                             &reason)
	                          : SIGNED_REFUSED;
	if (shape) {
		printf("FAILED %s: %s\n", base, shape);
		(*problems)++;
		return FALSE;
	}
	g_autoptr(Signed) sig = NULL;
	if (kind == SIGNED_NONE || kind == SIGNED_REFUSED ||
	    !verify_signed(verifier, part, kind, arrival, VERIFY_AUDIT, &sig,
	                   &reason, &error)) {
		printf("FAILED %s: %s\n", base,
		       reason ? reason : error ? error->message : "no command in the message");
		(*problems)++;
		return FALSE;
	}
	if (sig->refusal) {
		printf("FAILED %s: %s\n", base, sig->refusal);
		(*problems)++;
		return FALSE;
	}
	g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc(sig->created);
	g_autofree char *created = g_date_time_format(when, "%Y-%m-%dT%H:%M:%SZ");
	const char *id = g_mime_message_get_message_id(message);
	printf("%s <%s> signed by %s at %s%s%s\n",
	       sig->revoked_since ? "REVOKED" : "ok", id ? id : "", sig->fingerprint,
	       created, sig->note ? ": " : "", sig->note ? sig->note : "");
	if (sig->revoked_since)
		(*problems)++;
	return TRUE;
}

/* The event as text without Recorded, which a rebuild cannot repeat,
 * and in today's form: a rebuild writes an older ledger's signature
 * record into Signature, not Comment. */
static char *
event_key(const LedgerEvent *event)
{
	g_autoptr(LedgerEvent) copy = ledger_event_current_form(event);
	g_clear_pointer(&copy->recorded, g_free);
	copy->line = 0;
	return ledger_event_to_text(copy);
}

static int
compare_by_date(gconstpointer a, gconstpointer b)
{
	const LedgerEvent *x = *(const LedgerEvent *const *)a;
	const LedgerEvent *y = *(const LedgerEvent *const *)b;
	return x->date < y->date ? -1 : x->date > y->date ? 1 : 0;
}

/* Rebuilds into SCRATCH's ledger; FALSE if the rebuild itself could not
 * run. */
static gboolean
rebuild(const Conf *scratch, const Ledger *ledger, GPtrArray *archived,
        GError **error)
{
	g_autoptr(GPtrArray) history = g_ptr_array_new();
	for (guint i = 0; i < ledger->events->len; i++)
		if (!from_mail(ledger->events->pdata[i]))
			g_ptr_array_add(history, ledger->events->pdata[i]);
	g_ptr_array_sort(history, compare_by_date);

	Intake *intake = intake_new_audit(scratch, ledger, error);
	if (intake == NULL)
		return FALSE;
	gboolean ok = TRUE;
	guint h = 0;
	for (guint m = 0; ok && m <= archived->len; m++) {
		SourceMessage message = {0};
		if (m < archived->len &&
		    !archive_read(archived->pdata[m], &message.raw,
		                  &message.arrival, error)) {
			ok = FALSE;
			break;
		}
		/* History dated before the message's arrival day goes first;
		 * after the last message, all that remains. */
		Day before = m < archived->len ? arrival_day(message.arrival) : G_MAXUINT32;
		for (; ok && h < history->len &&
		       ((LedgerEvent *)history->pdata[h])->date < before; h++) {
			const LedgerEvent *event = history->pdata[h];
			g_autoptr(GError) local = NULL;
			if (!ledger_append(scratch->ledger, event, &local))
				printf("DIFFERENT history event at line %u cannot be replayed: %s\n",
				       event->line, local->message);
		}
		if (m < archived->len) {
			message.id = g_path_get_basename(archived->pdata[m]);
			g_autoptr(GError) local = NULL;
			ok = intake_handle(&message, intake, &local);
			if (!ok && source_error_is_message(local)) {
				printf("FAILED %s: %s\n", message.id, local->message);
				ok = TRUE;
			} else if (!ok) {
				g_propagate_error(error, g_steal_pointer(&local));
			}
		}
		source_message_clear(&message);
	}
	intake_free(intake);
	return ok;
}

/* Prints each event in A whose text is not matched in B. */
static guint
report_missing(const Ledger *a, GHashTable *b_counts, const char *label)
{
	guint differences = 0;
	for (guint i = 0; i < a->events->len; i++) {
		const LedgerEvent *event = a->events->pdata[i];
		g_autofree char *key = event_key(event);
		guint count = GPOINTER_TO_UINT(g_hash_table_lookup(b_counts, key));
		if (count > 0) {
			g_hash_table_replace(b_counts, g_strdup(key),
			                     GUINT_TO_POINTER(count - 1));
			continue;
		}
		differences++;
		g_autofree char *indented = NULL;
		g_auto(GStrv) lines = g_strsplit(key, "\n", -1);
		indented = g_strjoinv("\n    ", lines);
		if (event->line)
			printf("DIFFERENT %s (ledger line %u):\n    %s\n", label,
			       event->line, indented);
		else
			printf("DIFFERENT %s:\n    %s\n", label, indented);
	}
	return differences;
}

static GHashTable *
count_events(const Ledger *ledger)
{
	GHashTable *counts = g_hash_table_new_full(g_str_hash, g_str_equal,
	                                           g_free, NULL);
	for (guint i = 0; i < ledger->events->len; i++) {
		char *key = event_key(ledger->events->pdata[i]);
		guint count = GPOINTER_TO_UINT(g_hash_table_lookup(counts, key));
		g_hash_table_replace(counts, key, GUINT_TO_POINTER(count + 1));
	}
	return counts;
}

int
cmd_audit(int argc, char **argv)
{
	g_autoptr(GOptionContext) context = cmd_context_new(
		"audit", NULL,
		"Re-verify every archived message and rebuild the ledger from them "
		"plus the hand-written history; report any difference.",
		TRUE, NULL);
	if (!cmd_parse(context, "audit", &argc, &argv))
		return CMD_USAGE;
	if (argc != 1) {
		cmd_error("audit", "takes no arguments");
		return CMD_USAGE;
	}
	g_autoptr(Conf) conf = cmd_load_state_conf("audit");
	if (conf == NULL)
		return CMD_FAILED;
	g_autoptr(Ledger) ledger = cmd_load_ledger("audit", conf, FALSE);
	if (ledger == NULL)
		return CMD_FAILED;

	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) archived = archive_list(conf->state_dir, &error);
	g_autoptr(Verifier) verifier = archived ? verify_new(conf, &error) : NULL;
	if (verifier == NULL) {
		cmd_error("audit", "%s", error->message);
		return CMD_FAILED;
	}
	verify_set_signers(verifier, ledger, NULL);
	guint problems = 0;
	for (guint i = 0; i < archived->len; i++)
		check_message(verifier, archived->pdata[i], &problems);

	g_autofree char *scratch_dir = g_dir_make_tmp("tenure-audit-XXXXXX", &error);
	if (scratch_dir == NULL) {
		cmd_error("audit", "%s", error->message);
		return CMD_FAILED;
	}
	Conf scratch = *conf;
	g_autofree char *scratch_ledger = g_build_filename(scratch_dir, "ledger", NULL);
	scratch.ledger = scratch_ledger;
	scratch.state_dir = scratch_dir;
	gboolean quiet = util_log_quiet;
	util_log_quiet = TRUE;
	/* The rebuild appends to an empty ledger of its own (appending
	 * never creates one). */
	gboolean rebuilt = util_write_atomic(scratch_ledger, "", 0, &error) &&
	                   rebuild(&scratch, ledger, archived, &error);
	util_log_quiet = quiet;
	g_autoptr(Ledger) result = rebuilt ? ledger_load(scratch_ledger, TRUE, &error)
	                                   : NULL;
	util_remove_tree(scratch_dir);
	if (result == NULL) {
		cmd_error("audit", "rebuilding the ledger: %s", error->message);
		return CMD_FAILED;
	}
	g_autoptr(GHashTable) rebuilt_counts = count_events(result);
	g_autoptr(GHashTable) ledger_counts = count_events(ledger);
	guint differences =
		report_missing(ledger, rebuilt_counts, "in the ledger, not rebuilt from mail or history") +
		report_missing(result, ledger_counts, "rebuilt from the archive, not in the ledger");
	printf("audit: %u archived messages, %u ledger events, %u problems, %u differences\n",
	       archived->len, ledger->events->len, problems, differences);
	return problems == 0 && differences == 0 ? CMD_OK : CMD_FAILED;
}
