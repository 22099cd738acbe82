/* ledger_store.c: the ledger's loads, appends and creation as the rest
 * of tenure calls them (ledger.h), each refusing a ledger the committee
 * does not replay.  ledger.c does the file work and takes that check as
 * an argument; this file, above both ledger.c and committee.c, hands it
 * over. */
#include "config.h"

#include "ledger/ledger.h"
#include "ledger/committee.h"

/* A ledger that parses but contradicts itself is refused as a whole. */
static gboolean
replays(const Ledger *ledger, GError **error)
{
	g_autoptr(Committee) committee = committee_replay(ledger, error);
	return committee != NULL;
}

Ledger *
ledger_load(const char *path, gboolean missing_ok, GError **error)
{
	return ledger_file_load(path, NULL, LEDGER_LOAD_AS_IS, missing_ok, NULL,
	                        replays, error);
}

Ledger *
ledger_load_committed(const char *path, const char *state_dir,
                      gboolean missing_ok, gsize *left_out, GError **error)
{
	return ledger_file_load(path, state_dir, LEDGER_LOAD_COMMITTED,
	                        missing_ok, left_out, replays, error);
}

Ledger *
ledger_load_guarded(const char *path, const char *state_dir, GError **error)
{
	return ledger_file_load(path, state_dir, LEDGER_LOAD_GUARDED, FALSE,
	                        NULL, replays, error);
}

gboolean
ledger_append(const char *path, const LedgerEvent *event, GError **error)
{
	return ledger_file_append(path, NULL, event, replays, error);
}

gboolean
ledger_append_guarded(const char *path, const char *state_dir,
                      const LedgerEvent *event, GError **error)
{
	return ledger_file_append(path, state_dir, event, replays, error);
}

gboolean
ledger_create(const char *path, const Ledger *ledger, const char *state_dir,
              GError **error)
{
	return ledger_file_create(path, ledger, state_dir, replays, error);
}
