/* ledger_public.c: see ledger_public.h. */
#include "config.h"

#include "views/ledger_public.h"
#include "views/status.h"

char *
ledger_public_event_text(const LedgerEvent *event)
{
	g_autoptr(LedgerEvent) shown = ledger_event_current_form(event);
	if (shown->member) {
		char *name = status_display_name(shown->member, FALSE);
		g_free(shown->member);
		shown->member = name;
	}
	g_clear_pointer(&shown->email, g_free);
	g_clear_pointer(&shown->comment, g_free);
	return ledger_event_to_text(shown);
}

char *
ledger_public_render(const Ledger *ledger)
{
	GString *out = g_string_new(NULL);
	for (guint i = 0; i < ledger->events->len; i++) {
		g_autofree char *text =
		    ledger_public_event_text(ledger->events->pdata[i]);
		if (i > 0)
			g_string_append_c(out, '\n');
		g_string_append(out, text);
	}
	return g_string_free(out, FALSE);
}
