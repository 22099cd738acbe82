/* fuzz-ledger.c: the ledger parser and the committee replay.
 *
 * Any input is parsed as a ledger; one that parses is replayed, and one
 * that parses must come out of ledger_to_text as text that parses again
 * into the same number of events, each with the same stanza text: what
 * tenure writes, tenure must read back unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger/committee.h"
#include "fuzz.h"
#include "ledger/ledger.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(Ledger) ledger =
	    ledger_parse("fuzz", (const char *)data, size, &error);
	if (ledger == NULL) {
		FUZZ_ASSERT(error != NULL && error->message[0] != '\0',
		            "a refused ledger has an error message");
		return 0;
	}
	g_autoptr(GError) replay_error = NULL;
	g_autoptr(Committee) committee =
	    committee_replay(ledger, &replay_error);
	FUZZ_ASSERT(committee != NULL || replay_error != NULL,
	            "a refused replay has an error");

	g_autofree char *text = ledger_to_text(ledger);
	g_autoptr(GError) again_error = NULL;
	g_autoptr(Ledger) again =
	    ledger_parse("fuzz-again", text, -1, &again_error);
	if (again == NULL)
		fprintf(stderr, "re-parse: %s\n", again_error->message);
	FUZZ_ASSERT(again != NULL, "the written ledger parses again");
	FUZZ_ASSERT(again->events->len == ledger->events->len,
	            "the written ledger has the same events");
	for (guint i = 0; i < ledger->events->len; i++) {
		g_autofree char *a =
		    ledger_event_to_text(ledger->events->pdata[i]);
		g_autofree char *b =
		    ledger_event_to_text(again->events->pdata[i]);
		FUZZ_ASSERT(strcmp(a, b) == 0,
		            "an event reads back as it was written");
	}
	return 0;
}
