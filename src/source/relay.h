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
 * The clause is read as the common servers write it.  A name the
 * sending host gave (HELO, EHLO, LHLO) never counts, in any server's
 * notation, nor does a name the server marks as unverified; a name
 * counts only where the server's notation says it looked the name up
 * and verified it; anywhere else the address alone counts:
 *   Postfix:   from HELO (NAME [ADDRESS]) by H (Postfix)   NAME or ADDRESS
 *   Sendmail:  from HELO (NAME [ADDRESS]) by H (8.x.y/...) NAME or ADDRESS,
 *              ADDRESS alone after "(may be forged)"
 *   Exim:      from NAME ([ADDRESS] helo=HELO) by H ... (Exim x)
 *              or from [ADDRESS] (helo=HELO)             NAME or ADDRESS
 *   qmail:     from RDNS (HELO HELO) (ADDRESS) by H with SMTP   ADDRESS
 *              (RDNS is not verified; the "(qmail N invoked from
 *              network)" header qmail's queue adds above is passed over)
 *   Dovecot LMTP, Google, Microsoft, and any other:
 *              from HELO ([ADDRESS]), from HELO (NAME. [ADDRESS]),
 *              from HELO (ADDRESS)                        ADDRESS
 * The server is told by its "by" clause, before anything the sender
 * supplied there (envelope-from, id, for).  What it saw is read from
 * the last comment before "by" that gives an address: a HELO can only
 * add text before it, and what servers add after it (TLS, SASL) gives
 * none.  An address may be written "[192.0.2.1]", "[IPv6:2001:db8::1]",
 * with Exim's ":PORT", or bare in a comment of its own (qmail,
 * Microsoft).
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
