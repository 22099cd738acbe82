/* relay.h: whether a mail was handed over by the list's relay.
 *
 * Headers such as List-Id are the sender's to write: a mail sent to
 * tenure's own address alone can carry the list's List-Id.  What the
 * sender cannot write is the topmost Received header, which the server
 * that delivered the mail into tenure's mailbox added when it took the
 * mail over: its "from" clause names the host that handed it over, as
 * that server saw it.  [source] list-relay names the list's relay
 * (host names or addresses, ';'-separated).
 *
 * The clause is read as the common servers write it, and the name the
 * sending host gave in HELO (its own claim) never counts when the
 * server recorded what it saw:
 *   Postfix, Sendmail:  from HELO (NAME [ADDRESS])   NAME or ADDRESS
 *   Exim:               from NAME ([ADDRESS] helo=HELO)  NAME or ADDRESS
 *   no comment:         from NAME                    NAME
 * An address may be written "[192.0.2.1]" or "[IPv6:2001:db8::1]".
 *
 * Pure: a parsed message and the setting in, an answer out.
 */
#ifndef TENURE_RELAY_H
#define TENURE_RELAY_H

#include <glib.h>
#include <gmime/gmime.h>

/* TRUE when the topmost Received header of MESSAGE says that one of
 * RELAYS (the setting's text: names or addresses separated by ';')
 * handed it over.  FALSE when it names another host or there is no
 * such header; *SEEN (may be NULL) is then set to what the header named
 * (newly allocated, for the log), or NULL when nothing could be read. */
gboolean relay_handed_over(GMimeMessage *message, const char *relays,
                           char **seen);

#endif
