/* ledger_public.h: the ledger in public form, as [publish] writes it
 * beside status.json (publish.h, PUBLISH_LEDGER).
 *
 * Every event of the ledger, the founding history typed in by hand
 * (Source: import) included, in the ledger's order, each as the ledger
 * writes the event (ledger_event_to_text) in its current form
 * (ledger_event_current_form: an older ledger's signature record moved
 * from Comment into Signature), with two changes: Member holds the name
 * only, as the page and the JSON show it (status_display_name: the
 * address left out), and Comment, free text that may name addresses,
 * is left out.  Stanzas are separated by blank lines, as in the ledger.
 * tenure.conf(5) documents the format.
 */
#ifndef TENURE_LEDGER_PUBLIC_H
#define TENURE_LEDGER_PUBLIC_H

#include <glib.h>

#include "ledger/ledger.h"

/* EVENT as its public stanza (no trailing blank line).  Newly
 * allocated. */
char *ledger_public_event_text(const LedgerEvent *event);

/* LEDGER in public form, ending with a newline ("" for an empty
 * ledger).  Newly allocated. */
char *ledger_public_render(const Ledger *ledger);

#endif
