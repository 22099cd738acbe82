/* conf.h: /etc/tenure/tenure.conf, read with GKeyFile.
 *
 * Every section and key is known; an unknown one is an error, as is a
 * value of the wrong type.  conf_load collects every problem, each as
 * "FILE: [section] key: problem", and fails if there was any.  Relative
 * paths in the file are taken relative to the file's directory, so an
 * example configuration works from any directory.
 */
#ifndef TENURE_CONF_H
#define TENURE_CONF_H

#include <glib.h>

#define CONF_DEFAULT_PATH SYSCONFDIR "/tenure/tenure.conf"

/* The configuration read when no --config is given: $TENURE_CONFIG when
 * set and not empty, else CONF_DEFAULT_PATH.  The test suite points it
 * at a file that does not exist, so that no test reads the host's
 * configuration, whatever the package installed there. */
const char *conf_default_path(void);

/* How intake tells that a command reached it through the list
 * ([committee] public-record). */
typedef enum {
	CONF_PUBLIC_LIST_ID_OR_TO, /* List-Id names the list; without a
	                              List-Id, To or Cc does */
	CONF_PUBLIC_LIST_ID,       /* List-Id must name the list */
	CONF_PUBLIC_OFF,           /* no check: the source holds list mail only */
} ConfPublicRecord;

/* How the mbox source's writer wrote it ([source] mbox-format): split
 * at From_ lines or by the writer's Content-Length, and which ">From "
 * lines it quoted.  Never chosen by the mail: in an mbox split at From_
 * lines a Content-Length is the author's. */
typedef enum {
	CONF_MBOX_MBOXO,   /* From_ lines; a body's "From " quoted ">From "
	                      (Exim, Postfix's local): the default */
	CONF_MBOX_MBOXRD,  /* From_ lines; every ">*From " line quoted */
	CONF_MBOX_MBOXCL,  /* the writer's Content-Length; quoted as mboxo */
	CONF_MBOX_MBOXCL2, /* the writer's Content-Length, nothing quoted
	                      (Dovecot's LDA, LMTP and IMAP) */
} ConfMboxFormat;

typedef struct {
	char *path;

	/* [committee] */
	char *name;             /* "Debian Technical Committee" */
	char *list;             /* list address */
	char *contact;          /* a human's address: Reply-To of reminders
	                           and transcripts, or NULL ([sink] from) */
	int max_members;        /* 8 */
	int min_members;        /* 4: below it status warns */
	char *ledger;           /* /var/lib/tenure/ledger */
	char *state_dir;        /* /var/lib/tenure */
	char *templates_dir;    /* overrides /etc/tenure/templates, or NULL */
	ConfPublicRecord public_record; /* list-id-or-to */
	char *list_id;          /* the List-Id naming the list, or NULL: then
	                           derived from list ("a@b" gives "a.b") */

	/* [rule] */
	char *rule_name;        /* "none" when unset */
	GHashTable *rule_params; /* key -> value (strings), without "name" */

	/* [roles] */
	char *chair;            /* fingerprint or NULL */
	char *leader;           /* fingerprint or NULL */
	char *secretary;        /* fingerprint or NULL: may sign handovers */

	/* [keys] */
	char **keyrings;        /* NULL-terminated, absolute paths */
	char *gnupg_home;       /* tenure's own GNUPGHOME */
	char *bot_key;          /* fingerprint or NULL */
	int max_signature_age;  /* days, 7 */
	int gpg_timeout;        /* seconds any one gpg run may take, 10 */
	int confirm_days;       /* a key's binding: both halves within, 14 */

	/* [source] */
	char *source_url;       /* imap://, imaps://, maildir:PATH, mbox:PATH */
	char *source_user;
	char *source_password_file;
	char *source_ca_file;
	char *source_mailbox;   /* NULL: the IMAP URL's path, or INBOX */
	int poll_interval;      /* seconds, 300 */
	int retry_hours;        /* a message without a verdict is retried
	                           this long, then set aside: 24 */
	char *source_list_relay; /* the list's relay hosts (';'-separated),
	                            or NULL: no check (relay.h) */
	ConfMboxFormat mbox_format; /* mboxo */
	char *mbox_timezone;    /* the zone of From_ dates written without
	                           one (Exim, Dovecot), or NULL: the host's */

	/* [sink] */
	char *sink_url;         /* smtp://, smtps://, maildir:PATH */
	char *sink_user;
	char *sink_password_file;
	char *sink_ca_file;
	gboolean sink_starttls; /* starttls = required (TRUE) | no */
	char *sink_from;        /* From: address (and the envelope's,
	                           unless envelope-from is set) */
	char *sink_from_name;   /* From: display name ([sink] from =
	                           "Name <address>"), or NULL */
	char *sink_envelope_from; /* the envelope sender (MAIL FROM, the
	                             Maildir sink's Return-Path), where
	                             bounces go, or NULL: sink_from */

	/* [reminders] */
	int *days_before;       /* 90, 30, 7 */
	gsize n_days_before;
	int announce_days_before; /* announce a scheduled expiry this early */
	int replies_per_day;    /* refusal replies per signer per day, 3 */
	int recommendation_days; /* a recommendation lapses after, 90 */

	/* [publish] */
	char *publish_dir;      /* index.html, calendar.ics, status.json
	                           and ledger.txt written here (publish.h),
	                           or NULL */
	char *mail_guide_url;   /* where members read tenure-mail(7), or
	                           NULL */
} Conf;

/* The envelope sender of tenure's mail, where bounces go: [sink]
 * envelope-from, or [sink] from when that is not set. */
const char *conf_envelope_from(const Conf *conf);

/* What every announcement, reminder and transcript, and the status
 * page, point members to when no [publish] mail-guide-url is set. */
#define CONF_MAIL_GUIDE_MAN "man 7 tenure-mail"

/* Where a member reads what to send and what comes back: [publish]
 * mail-guide-url, else CONF_MAIL_GUIDE_MAN.  Points into CONF or is
 * static. */
const char *conf_mail_guide(const Conf *conf);

/* Why [committee] contact must be set, or NULL: replies to reminders
 * and transcripts go to it, else to [sink] from, and when that is the
 * address the IMAP source reads ([source] user, or its local part when
 * the login has no domain) nobody would read them. */
char *conf_contact_problem(const Conf *conf);

/* Loads PATH.  On failure returns NULL and sets ERROR to every problem,
 * one per line. */
Conf *conf_load(const char *path, GError **error);

/* A configuration with every default and no file, for commands given
 * only --ledger. */
Conf *conf_new_default(void);

void conf_free(Conf *conf);

/* Reads a secret from PATH (first line, without newline); refuses a file
 * readable by others, writable by its group, or readable by its group
 * unless root owns it (root:tenure 0640 is accepted); the refusal
 * names the commands that fix it for the user reading it (the owner or
 * group first, then the mode, so the reader is never locked out). */
char *conf_read_password(const char *path, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Conf, conf_free)

#endif
