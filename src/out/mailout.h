/* mailout.h: composing tenure's own mail from templates/.
 *
 * A template is headers plus body with {{placeholder}} fields, looked up
 * in the configured templates directory, then /etc/tenure/templates, then
 * DATADIR/tenure/templates.  Kinds: announce-appoint, announce-resign,
 * announce-remove, announce-expire, announce-scheduled, reminder, reply.
 * Every message gets Date, Message-ID, Auto-Submitted (auto-generated, or
 * auto-replied for replies), MIME headers, CRLF line endings, and a
 * PGP/MIME signature by the bot key when [keys] bot-key is set.  Body
 * lines are wrapped at MAILOUT_WRAP_WIDTH after the placeholders are
 * filled, as the template's lines say (template_wrap, template.h).
 */
#ifndef TENURE_MAILOUT_H
#define TENURE_MAILOUT_H

#include <glib.h>
#include <gmime/gmime.h>

#include "conf/conf.h"

/* The Message-ID for the event named by EVENT_KEY (e.g.
 * "announce-resign/rra@debian.org/2026-12-31"): the same key always gives
 * the same ID, "<tenure.HASH.CHECK@DOMAIN>", DOMAIN from [sink] from,
 * HASH and CHECK HMACs keyed by the installation's secret,
 * STATE_DIR/message-id-key (created on first need, mode 0600).  NULL
 * with ERROR when the secret cannot be read or created. */
char *mailout_message_id(const Conf *conf, const char *event_key,
                         GError **error);

/* Creates STATE_DIR/message-id-key unless it exists (`tenure init`). */
gboolean mailout_secret_ensure(const char *state_dir, GError **error);

/* Reads STATE_DIR/message-id-key as a pass would, creating nothing: TRUE
 * when it is whole or missing (a pass creates it), or when it is the
 * service user's and this user may not read it (*UNREADABLE TRUE: a
 * member of the group runs `tenure check` too); FALSE with
 * TENURE_ERROR_PARSE naming the file when a pass would refuse it,
 * TENURE_ERROR_IO when it cannot be read otherwise. */
gboolean mailout_secret_check(const char *state_dir, gboolean *unreadable,
                              GError **error);

/* *KNOWN: whether the outbox ever took the mail for EVENT_KEY, under
 * its Message-ID or under the public one the releases before the
 * secret gave it (so that an upgrade sends nothing twice); the public
 * one only where this outbox queued it, never where `tenure import`
 * noted it. */
gboolean mailout_known(const Conf *conf, const char *event_key,
                       gboolean *known, GError **error);

/* TRUE when MESSAGE_ID is one this installation made: its CHECK
 * verifies under the secret (never created for a look: without one,
 * FALSE), its domain is CONF's. */
gboolean mailout_is_own_message_id(const Conf *conf, const char *message_id);

/* The signed part of every mail tenure signs carries this header
 * with the mail's Message-ID: the identity the bot's signature covers
 * (the message's own Message-ID: header is outside it). */
#define MAILOUT_SIGNED_ID_HEADER "X-Tenure-Message-ID"

/* The Message-ID under which MESSAGE is tenure's own mail, as `tenure
 * import` and a restore record it, or NULL: with [keys] bot-key, the
 * MAILOUT_SIGNED_ID_HEADER inside a PGP/MIME part whose signature by
 * that key verifies in tenure's GnuPG home; else (no bot key, or mail
 * signed before the header) the message's Message-ID when
 * mailout_is_own_message_id recognises it.  A public ID of the releases
 * before the secret is never one. */
char *mailout_own_mail_id(const Conf *conf, GMimeMessage *message);

/* MESSAGE, read from the list at WHEN, is tenure's own mail
 * (mailout_own_mail_id): it was sent, and the outbox records it so
 * (Noted: WHERE, "list" or "import"), dropping a copy still queued, so
 * that neither a rebuilt host nor a state directory restored from a
 * backup sends again what the list has seen.  *NOTED gets the ID
 * recorded, or NULL when MESSAGE is not tenure's.  FALSE when the
 * outbox cannot be written. */
gboolean mailout_note_seen(const Conf *conf, GMimeMessage *message,
                           gint64 when, const char *where, char **noted,
                           GError **error);

/* Body lines of tenure's mail are wrapped at this many characters. */
#define MAILOUT_WRAP_WIDTH 72

/* The names of every placeholder a template may use, NULL-terminated
 * (static).  VARS naming any other is an error in mailout_compose. */
const char *const *mailout_placeholders(void);

/* Renders KIND with VARS (placeholder -> value) into a finished message
 * with MESSAGE_ID. */
GBytes *mailout_compose(const Conf *conf, const char *kind,
                        GHashTable *vars, const char *message_id,
                        GError **error);

/* For `tenure check-config`: composes (unsigned) every kind of mail
 * tenure sends, from the template `tenure run` would use, with a sample
 * value for each placeholder the configuration does not fill.  Returns
 * one message per template that is missing, unreadable or does not
 * make a mail (empty when all do).  A placeholder tenure does not fill
 * (a misspelt one) still fails only when the mail is made. */
GPtrArray *mailout_check_templates(const Conf *conf);

/* Composes KIND for EVENT_KEY and adds it to the outbox for RECIPIENTS,
 * unless that message was queued or sent before (then a no-op).  A mail
 * that cannot be composed or signed (a template, a value, the bot's
 * key) is kept under STATE_DIR/unsent for mailout_retry_unsent, logged
 * (mail-unsent), and TRUE is returned: it never stops the mail after
 * it.  FALSE only when the state directory cannot be written. */
gboolean mailout_queue(const Conf *conf, const char *kind, GHashTable *vars,
                       const char *event_key, const char *const *recipients,
                       GError **error);

/* Tries again every mail kept unsent whose next attempt is due at NOW
 * (Unix time), with the outbox's backoff (util_backoff): one that
 * composes now goes to the outbox.  *WAITING gets how many still wait.
 * FALSE when a record is torn or the state cannot be written. */
gboolean mailout_retry_unsent(const Conf *conf, gint64 now, guint *waiting,
                              GError **error);

/* Makes every mail kept unsent due at the next mailout_retry_unsent of
 * this process (SIGHUP, `run --once --flush`): the bot's key may be
 * back. */
void mailout_make_unsent_due(void);

/* The mail kept unsent, as outbox_failing gives failing mail:
 * "ID\tATTEMPTS\tNEXT-ATTEMPT\tLAST-ERROR" each, the error led by
 * "not composed: ". */
GPtrArray *mailout_unsent(const char *state_dir);

#endif
