/* conf.c: see conf.h. */
#include "config.h"

#include "conf/conf.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>

#include "rules/rule.h"
#include "base/util.h"

typedef enum {
	KEY_STRING,
	KEY_ADDRESS,   /* an e-mail address */
	KEY_MAILBOX,   /* an e-mail address, or "Name <address>" */
	KEY_PATH,      /* relative to the configuration's directory */
	KEY_PATHS,     /* ';'-separated paths */
	KEY_INT,       /* positive integer */
	KEY_DAYS,      /* ';'-separated positive integers */
	KEY_FPR,       /* OpenPGP fingerprint */
	KEY_STARTTLS,  /* required | no */
	KEY_SOURCE,    /* imap://, imaps://, maildir:PATH, mbox:PATH */
	KEY_SINK,      /* smtp://, smtps://, maildir:PATH */
	KEY_PUBLIC,    /* list-id-or-to | list-id | off */
	KEY_MBOX,      /* mboxo | mboxrd | mboxcl | mboxcl2 */
	KEY_ZONE,      /* a time zone's name, as in /usr/share/zoneinfo */
	KEY_URL,       /* an http:// or https:// URL */
} KeyType;

typedef struct {
	const char *section;
	const char *key;
	KeyType type;
	gsize offset;
} KeySpec;

#define AT(field) G_STRUCT_OFFSET(Conf, field)

static const KeySpec keys[] = {
	{"committee", "name", KEY_STRING, AT(name)},
	{"committee", "list", KEY_ADDRESS, AT(list)},
	{"committee", "contact", KEY_ADDRESS, AT(contact)},
	{"committee", "max-members", KEY_INT, AT(max_members)},
	{"committee", "min-members", KEY_INT, AT(min_members)},
	{"committee", "ledger", KEY_PATH, AT(ledger)},
	{"committee", "state-dir", KEY_PATH, AT(state_dir)},
	{"committee", "templates", KEY_PATH, AT(templates_dir)},
	{"committee", "public-record", KEY_PUBLIC, AT(public_record)},
	{"committee", "list-id", KEY_STRING, AT(list_id)},
	{"roles", "chair", KEY_FPR, AT(chair)},
	{"roles", "leader", KEY_FPR, AT(leader)},
	{"roles", "secretary", KEY_FPR, AT(secretary)},
	{"keys", "keyring", KEY_PATHS, AT(keyrings)},
	{"keys", "gnupg-home", KEY_PATH, AT(gnupg_home)},
	{"keys", "bot-key", KEY_FPR, AT(bot_key)},
	{"keys", "max-signature-age", KEY_INT, AT(max_signature_age)},
	{"keys", "gpg-timeout", KEY_INT, AT(gpg_timeout)},
	{"keys", "confirm-days", KEY_INT, AT(confirm_days)},
	{"source", "url", KEY_SOURCE, AT(source_url)},
	{"source", "user", KEY_STRING, AT(source_user)},
	{"source", "password-file", KEY_PATH, AT(source_password_file)},
	{"source", "ca-file", KEY_PATH, AT(source_ca_file)},
	{"source", "mailbox", KEY_STRING, AT(source_mailbox)},
	{"source", "poll-interval", KEY_INT, AT(poll_interval)},
	{"source", "retry-hours", KEY_INT, AT(retry_hours)},
	{"source", "list-relay", KEY_STRING, AT(source_list_relay)},
	{"source", "mbox-format", KEY_MBOX, AT(mbox_format)},
	{"source", "mbox-timezone", KEY_ZONE, AT(mbox_timezone)},
	{"sink", "url", KEY_SINK, AT(sink_url)},
	{"sink", "user", KEY_STRING, AT(sink_user)},
	{"sink", "password-file", KEY_PATH, AT(sink_password_file)},
	{"sink", "ca-file", KEY_PATH, AT(sink_ca_file)},
	{"sink", "starttls", KEY_STARTTLS, AT(sink_starttls)},
	{"sink", "from", KEY_MAILBOX, AT(sink_from)},
	{"sink", "envelope-from", KEY_ADDRESS, AT(sink_envelope_from)},
	{"reminders", "days-before", KEY_DAYS, AT(days_before)},
	{"reminders", "announce-days-before", KEY_INT, AT(announce_days_before)},
	{"reminders", "replies-per-day", KEY_INT, AT(replies_per_day)},
	{"reminders", "recommendation-days", KEY_INT, AT(recommendation_days)},
	{"publish", "dir", KEY_PATH, AT(publish_dir)},
	{"publish", "mail-guide-url", KEY_URL, AT(mail_guide_url)},
};

#undef AT

static const char *const sections[] = {
	"committee", "rule", "roles", "keys", "source", "sink", "reminders",
	"publish",
};

const char *
conf_default_path(void)
{
	const char *path = g_getenv("TENURE_CONFIG");
	return path && *path ? path : CONF_DEFAULT_PATH;
}

Conf *
conf_new_default(void)
{
	Conf *conf = g_new0(Conf, 1);
	conf->name = g_strdup("Technical Committee");
	conf->max_members = 8;
	conf->min_members = 4;
	conf->ledger = g_strdup(LOCALSTATEDIR "/lib/tenure/ledger");
	conf->state_dir = g_strdup(LOCALSTATEDIR "/lib/tenure");
	conf->rule_name = g_strdup("none");
	conf->rule_params = g_hash_table_new_full(g_str_hash, g_str_equal,
	                                          g_free, g_free);
	conf->gnupg_home = g_strdup(LOCALSTATEDIR "/lib/tenure/gnupg");
	conf->max_signature_age = 7;
	conf->gpg_timeout = 10;
	conf->confirm_days = 14;
	conf->poll_interval = 300;
	conf->retry_hours = 24;
	conf->sink_starttls = TRUE;
	static const int days[] = {90, 30, 7};
	conf->days_before = g_memdup2(days, sizeof days);
	conf->n_days_before = G_N_ELEMENTS(days);
	conf->announce_days_before = 0;
	conf->replies_per_day = 3;
	conf->recommendation_days = 90;
	conf->public_record = CONF_PUBLIC_LIST_ID_OR_TO;
	return conf;
}

void
conf_free(Conf *conf)
{
	if (conf == NULL)
		return;
	for (gsize i = 0; i < G_N_ELEMENTS(keys); i++) {
		gpointer field = G_STRUCT_MEMBER_P(conf, keys[i].offset);
		switch (keys[i].type) {
		case KEY_STRING: case KEY_ADDRESS: case KEY_MAILBOX: case KEY_PATH:
		case KEY_FPR: case KEY_SOURCE: case KEY_SINK: case KEY_ZONE:
		case KEY_URL:
			g_free(*(char **)field);
			break;
		case KEY_PATHS:
			g_strfreev(*(char ***)field);
			break;
		case KEY_DAYS:
			g_free(*(int **)field);
			break;
		case KEY_INT: case KEY_STARTTLS: case KEY_PUBLIC: case KEY_MBOX:
			break;
		}
	}
	g_free(conf->path);
	g_free(conf->sink_from_name);
	g_free(conf->rule_name);
	if (conf->rule_params)
		g_hash_table_unref(conf->rule_params);
	g_free(conf);
}

/* PATH made absolute against DIR. */
static char *
resolve(const char *dir, const char *path)
{
	if (g_path_is_absolute(path))
		return g_strdup(path);
	return g_canonicalize_filename(path, dir);
}

static gboolean
valid_address(const char *text)
{
	const char *at = strchr(text, '@');
	return at && at != text && at[1] && !strchr(at + 1, '@') &&
	       !strpbrk(text, " \t<>,;\"");
}

/* An http:// or https:// URL with a host, of printable ASCII without
 * blanks, quotes or angle brackets: it goes into mail and into the
 * published page's links as it is. */
static gboolean
valid_url(const char *text)
{
	const char *rest = g_str_has_prefix(text, "https://") ? text + 8
	                   : g_str_has_prefix(text, "http://") ? text + 7
	                                                       : NULL;
	if (rest == NULL || *rest == '\0' || *rest == '/')
		return FALSE;
	for (const char *p = text; *p; p++)
		if ((guchar)*p <= ' ' || (guchar)*p >= 0x7f || strchr("\"'<>\\`", *p))
			return FALSE;
	return TRUE;
}

/* "address", "Name <address>" or "\"Name\" <address>": *NAME is NULL
 * when there is none.  A name keeps to one line and holds no '<', '>'
 * or '"' of its own (mailout quotes it as the header needs). */
static gboolean
parse_mailbox(const char *value, char **name, char **address)
{
	const char *lt = strchr(value, '<');
	if (lt == NULL) {
		if (!valid_address(value))
			return FALSE;
		*name = NULL;
		*address = g_strdup(value);
		return TRUE;
	}
	gsize len = strlen(value);
	if (len < 2 || value[len - 1] != '>')
		return FALSE;
	g_autofree char *inside = g_strndup(lt + 1, value + len - 1 - (lt + 1));
	g_autofree char *display = g_strstrip(g_strndup(value, lt - value));
	gsize dlen = strlen(display);
	if (dlen >= 2 && display[0] == '"' && display[dlen - 1] == '"') {
		memmove(display, display + 1, dlen - 2);
		display[dlen - 2] = '\0';
	}
	if (!valid_address(inside) || strpbrk(display, "<>\"\r\n") ||
	    !g_utf8_validate(display, -1, NULL))
		return FALSE;
	*name = *display ? g_steal_pointer(&display) : NULL;
	*address = g_steal_pointer(&inside);
	return TRUE;
}

/* Parses a ';'-separated list of positive integers. */
static gboolean
parse_days(const char *value, int **days, gsize *n)
{
	g_auto(GStrv) parts = g_strsplit(value, ";", -1);
	g_autoptr(GArray) list = g_array_new(FALSE, FALSE, sizeof(int));
	for (guint i = 0; parts[i]; i++) {
		g_strstrip(parts[i]);
		if (*parts[i] == '\0')
			continue;
		guint64 v;
		if (!g_ascii_string_to_unsigned(parts[i], 10, 1, 3650, &v, NULL))
			return FALSE;
		int d = (int)v;
		g_array_append_val(list, d);
	}
	if (list->len == 0)
		return FALSE;
	*n = list->len;
	*days = (int *)g_array_free(g_steal_pointer(&list), FALSE);
	return TRUE;
}

/* Validates a transport URL; maildir: and mbox: paths are resolved. */
static char *
parse_url(const char *dir, const char *value, gboolean source,
          const char **problem)
{
	static const char *const source_schemes[] = {"imap://", "imaps://", NULL};
	static const char *const sink_schemes[] = {"smtp://", "smtps://", NULL};
	const char *const *schemes = source ? source_schemes : sink_schemes;
	for (guint i = 0; schemes[i]; i++) {
		if (g_str_has_prefix(value, schemes[i])) {
			const char *host = value + strlen(schemes[i]);
			if (*host == '\0' || *host == '/' || *host == ':') {
				*problem = "has no host name";
				return NULL;
			}
			return g_strdup(value);
		}
	}
	const char *path = NULL, *scheme = NULL;
	if (g_str_has_prefix(value, "maildir:")) {
		scheme = "maildir:";
		path = value + 8;
	} else if (source && g_str_has_prefix(value, "mbox:")) {
		scheme = "mbox:";
		path = value + 5;
	}
	if (scheme == NULL) {
		*problem = source ? "must start with imap://, imaps://, maildir: or mbox:"
		                  : "must start with smtp://, smtps:// or maildir:";
		return NULL;
	}
	if (*path == '\0') {
		*problem = "has no path";
		return NULL;
	}
	g_autofree char *abs = resolve(dir, path);
	return g_strconcat(scheme, abs, NULL);
}

/* Stores KEY's VALUE into CONF; returns a problem or NULL. */
static char *
set_key(Conf *conf, const KeySpec *spec, const char *dir, const char *value)
{
	gpointer field = G_STRUCT_MEMBER_P(conf, spec->offset);
	const char *problem = NULL;
	switch (spec->type) {
	case KEY_STRING:
		if (*value == '\0')
			return g_strdup("is empty");
		g_free(*(char **)field);
		*(char **)field = g_strdup(value);
		return NULL;
	case KEY_URL:
		if (!valid_url(value))
			return g_strdup_printf("\"%s\" is not an http:// or "
			                       "https:// URL (no blanks, no "
			                       "quotes, no angle brackets)",
			                       value);
		g_free(*(char **)field);
		*(char **)field = g_strdup(value);
		return NULL;
	case KEY_ADDRESS:
		if (!valid_address(value))
			return g_strdup_printf("\"%s\" is not an e-mail address", value);
		g_free(*(char **)field);
		*(char **)field = g_strdup(value);
		return NULL;
	case KEY_MAILBOX: {
		g_autofree char *name = NULL, *address = NULL;
		if (!parse_mailbox(value, &name, &address))
			return g_strdup_printf("\"%s\" is not an e-mail address "
			                       "or \"Name <address>\"", value);
		g_free(*(char **)field);
		*(char **)field = g_steal_pointer(&address);
		g_free(conf->sink_from_name);
		conf->sink_from_name = g_steal_pointer(&name);
		return NULL;
	}
	case KEY_PATH:
		if (*value == '\0')
			return g_strdup("is empty");
		g_free(*(char **)field);
		*(char **)field = resolve(dir, value);
		return NULL;
	case KEY_PATHS: {
		g_auto(GStrv) parts = g_strsplit(value, ";", -1);
		GPtrArray *paths = g_ptr_array_new();
		for (guint i = 0; parts[i]; i++) {
			g_strstrip(parts[i]);
			if (*parts[i])
				g_ptr_array_add(paths, resolve(dir, parts[i]));
		}
		g_ptr_array_add(paths, NULL);
		g_strfreev(*(char ***)field);
		*(char ***)field = (char **)g_ptr_array_free(paths, FALSE);
		if ((*(char ***)field)[0] == NULL)
			return g_strdup("lists no file");
		return NULL;
	}
	case KEY_INT: {
		guint64 v;
		if (!g_ascii_string_to_unsigned(value, 10, 0, 1000000, &v, NULL))
			return g_strdup_printf("\"%s\" is not a whole number", value);
		*(int *)field = (int)v;
		return NULL;
	}
	case KEY_DAYS:
		g_clear_pointer((int **)field, g_free);
		if (!parse_days(value, (int **)field, &conf->n_days_before))
			return g_strdup_printf(
			    "\"%s\" is not a list of days such as 90;30;7", value);
		return NULL;
	case KEY_FPR: {
		char *fpr;
		if (!util_fingerprint_normalize(value, &fpr))
			return g_strdup_printf(
			    "\"%s\" is not an OpenPGP fingerprint (40 hex digits)",
			    value);
		g_free(*(char **)field);
		*(char **)field = fpr;
		return NULL;
	}
	case KEY_STARTTLS:
		if (strcmp(value, "required") == 0)
			*(gboolean *)field = TRUE;
		else if (strcmp(value, "no") == 0)
			*(gboolean *)field = FALSE;
		else
			return g_strdup_printf("\"%s\" must be \"required\" or \"no\"",
			                       value);
		return NULL;
	case KEY_PUBLIC:
		if (strcmp(value, "list-id-or-to") == 0)
			*(ConfPublicRecord *)field = CONF_PUBLIC_LIST_ID_OR_TO;
		else if (strcmp(value, "list-id") == 0)
			*(ConfPublicRecord *)field = CONF_PUBLIC_LIST_ID;
		else if (strcmp(value, "off") == 0)
			*(ConfPublicRecord *)field = CONF_PUBLIC_OFF;
		else
			return g_strdup_printf("\"%s\" must be \"list-id-or-to\", "
			                       "\"list-id\" or \"off\"", value);
		return NULL;
	case KEY_MBOX: {
		static const char *const names[] = {"mboxo", "mboxrd", "mboxcl",
		                                    "mboxcl2"};
		for (gsize i = 0; i < G_N_ELEMENTS(names); i++)
			if (strcmp(value, names[i]) == 0) {
				*(ConfMboxFormat *)field = (ConfMboxFormat)i;
				return NULL;
			}
		return g_strdup_printf("\"%s\" must be \"mboxo\" (Exim, Postfix), "
		                       "\"mboxrd\", \"mboxcl\" or \"mboxcl2\" "
		                       "(Dovecot)", value);
	}
	case KEY_ZONE: {
		GTimeZone *zone = g_time_zone_new_identifier(value);
		if (zone == NULL)
			return g_strdup_printf("\"%s\" is no time zone tenure knows "
			                       "(a name such as Europe/Berlin, or UTC)",
			                       value);
		g_time_zone_unref(zone);
		g_free(*(char **)field);
		*(char **)field = g_strdup(value);
		return NULL;
	}
	case KEY_SOURCE:
	case KEY_SINK: {
		char *url = parse_url(dir, value, spec->type == KEY_SOURCE,
		                      &problem);
		if (url == NULL)
			return g_strdup_printf("\"%s\" %s", value, problem);
		g_free(*(char **)field);
		*(char **)field = url;
		return NULL;
	}
	}
	return NULL;
}

static const KeySpec *
find_key(const char *section, const char *key)
{
	for (gsize i = 0; i < G_N_ELEMENTS(keys); i++)
		if (strcmp(keys[i].section, section) == 0 &&
		    strcmp(keys[i].key, key) == 0)
			return &keys[i];
	return NULL;
}

static gboolean
known_section(const char *name)
{
	for (gsize i = 0; i < G_N_ELEMENTS(sections); i++)
		if (strcmp(sections[i], name) == 0)
			return TRUE;
	return FALSE;
}

/* GKeyFile stops at the first line it cannot read and does not say
 * which; this names every such line, "FILE:LINE: problem", one per line
 * of the result, or returns NULL when it
 * finds none (the problem is elsewhere: the encoding, say). */
static char *
syntax_problems(const char *path)
{
	g_autofree char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return NULL;
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	g_autoptr(GString) problems = g_string_new(NULL);
	g_autofree char *prefix = g_strdup_printf("%s:", path);
	gboolean in_group = FALSE;
	for (guint i = 0; lines[i]; i++) {
		const char *line = lines[i];
		while (g_ascii_isspace(*line))
			line++;
		const char *problem = NULL;
		gsize len = strlen(line);
		while (len > 0 && g_ascii_isspace(line[len - 1]))
			len--;
		if (len == 0 || *line == '#')
			continue;
		if (*line == '[') {
			/* A broken header still opens a section: its keys
			 * are not reported once more. */
			in_group = TRUE;
			if (line[len - 1] != ']' || len == 2 ||
			    memchr(line + 1, '[', len - 2) || memchr(line + 1, ']', len - 2))
				problem = "a section header is \"[name]\"";
		} else if (strchr(line, '=') == NULL) {
			problem = "not \"key = value\", a [section] or a # comment";
		} else if (*line == '=') {
			problem = "a key name is missing before \"=\"";
		} else if (!in_group) {
			problem = "a key before the first [section]";
		}
		if (problem == NULL)
			continue;
		g_autofree char *shown = g_strndup(line, MIN(len, 60));
		g_string_append_printf(problems, "%s%s%u: %s: \"%s\"",
		                       problems->len ? "\n" : "", prefix, i + 1,
		                       problem, shown);
	}
	return problems->len ? g_string_free(g_steal_pointer(&problems), FALSE)
	                     : NULL;
}

Conf *
conf_load(const char *path, GError **error)
{
	g_autoptr(GKeyFile) file = g_key_file_new();
	g_autoptr(GError) local = NULL;
	if (!g_key_file_load_from_file(file, path, G_KEY_FILE_NONE, &local)) {
		g_autofree char *lines = local->domain == G_FILE_ERROR
		                             ? NULL : syntax_problems(path);
		int code = local->domain == G_FILE_ERROR
		               ? TENURE_ERROR_IO : TENURE_ERROR_PARSE;
		if (lines)
			g_set_error(error, TENURE_ERROR, code, "%s", lines);
		else
			g_set_error(error, TENURE_ERROR, code, "%s: %s", path,
			            local->message);
		return NULL;
	}
	g_autoptr(Conf) conf = conf_new_default();
	g_autofree char *cwd = g_get_current_dir();
	g_autofree char *abs = resolve(cwd, path);
	conf->path = g_strdup(abs);
	g_autofree char *dir = g_path_get_dirname(abs);
	g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func(g_free);

	g_auto(GStrv) groups = g_key_file_get_groups(file, NULL);
	for (guint g = 0; groups[g]; g++) {
		const char *section = groups[g];
		if (!known_section(section)) {
			g_ptr_array_add(problems, g_strdup_printf(
			    "%s: [%s]: unknown section", path, section));
			continue;
		}
		g_auto(GStrv) names = g_key_file_get_keys(file, section, NULL, NULL);
		for (guint k = 0; names && names[k]; k++) {
			const char *key = names[k];
			g_autofree char *value =
			    g_key_file_get_string(file, section, key, NULL);
			if (value == NULL)
				value = g_key_file_get_value(file, section, key, NULL);
			g_strstrip(value);
			if (strcmp(section, "rule") == 0) {
				if (strcmp(key, "name") == 0) {
					g_free(conf->rule_name);
					conf->rule_name = g_strdup(value);
				} else {
					g_hash_table_replace(conf->rule_params,
					                     g_strdup(key),
					                     g_strdup(value));
				}
				continue;
			}
			const KeySpec *spec = find_key(section, key);
			if (spec == NULL) {
				g_ptr_array_add(problems, g_strdup_printf(
				    "%s: [%s] %s: unknown key", path, section, key));
				continue;
			}
			g_autofree char *problem = set_key(conf, spec, dir, value);
			if (problem)
				g_ptr_array_add(problems, g_strdup_printf(
				    "%s: [%s] %s: %s", path, section, key, problem));
		}
	}

	/* The rule and its parameters: the rules module names the bad one. */
	g_autoptr(GError) rule_error = NULL;
	g_autoptr(Rule) rule = rule_new(conf->rule_name, conf->rule_params,
	                                &rule_error);
	if (rule == NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [rule] %s", path, rule_error->message));
	if (conf->max_members < 1)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [committee] max-members: must be at least 1", path));
	if (conf->recommendation_days < 1)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [reminders] recommendation-days: must be at least 1",
		    path));
	if (conf->confirm_days < 1)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [keys] confirm-days: must be at least 1", path));
	if (conf->sink_from == NULL && conf->list != NULL &&
	    conf->sink_url != NULL)
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [sink] from: missing (the address tenure sends as)",
		    path));
	if (conf->source_user && conf->source_url &&
	    !g_str_has_prefix(conf->source_url, "imap"))
		g_ptr_array_add(problems, g_strdup_printf(
		    "%s: [source] user: only IMAP sources log in", path));

	if (problems->len > 0) {
		g_ptr_array_add(problems, NULL);
		g_autofree char *all = g_strjoinv("\n", (char **)problems->pdata);
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID, "%s", all);
		return NULL;
	}
	return g_steal_pointer(&conf);
}

const char *
conf_envelope_from(const Conf *conf)
{
	return conf->sink_envelope_from ? conf->sink_envelope_from
	                                : conf->sink_from;
}

const char *
conf_mail_guide(const Conf *conf)
{
	return conf->mail_guide_url ? conf->mail_guide_url : CONF_MAIL_GUIDE_MAN;
}

char *
conf_contact_problem(const Conf *conf)
{
	if (conf->contact || conf->sink_from == NULL ||
	    conf->source_user == NULL || conf->source_url == NULL ||
	    !g_str_has_prefix(conf->source_url, "imap"))
		return NULL;
	const char *at = strrchr(conf->sink_from, '@');
	gboolean own =
	    g_ascii_strcasecmp(conf->source_user, conf->sink_from) == 0 ||
	    (strchr(conf->source_user, '@') == NULL && at &&
	     strlen(conf->source_user) == (gsize)(at - conf->sink_from) &&
	     g_ascii_strncasecmp(conf->source_user, conf->sink_from,
	                         at - conf->sink_from) == 0);
	if (!own)
		return NULL;
	return g_strdup_printf(
	    "[committee] contact: missing, and [sink] from %s is the mailbox "
	    "the source reads ([source] user %s): replies to reminders and "
	    "transcripts would go to a mailbox nobody reads; set contact to "
	    "the address of a person (the chair, the secretary)",
	    conf->sink_from, conf->source_user);
}

/* What keeps PATH from others and readable by whoever reads it now
 * (the service user, when it runs tenure): the owner or the group
 * first, then the mode.  Only chmod 0600 on a file another user owns,
 * root's say, would lock the reader out.  Newly allocated. */
static char *
password_fix(const char *path, const struct stat *st)
{
	if (st->st_uid == geteuid())
		return g_strdup_printf("chmod 0600 %s", path);
	char buffer[4096];
	if (st->st_uid == 0) {
		/* Debian's way, as README.Debian sets it up: root:tenure
		 * 0640, which only root can change. */
		struct group entry, *gr = NULL;
		g_autofree char *group =
		    getgrgid_r(getegid(), &entry, buffer, sizeof buffer, &gr) ==
		                0 &&
		            gr
		        ? g_strdup(gr->gr_name)
		        : g_strdup_printf("%u", (unsigned)getegid());
		return g_strdup_printf("chgrp %s %s && chmod 0640 %s", group,
		                       path, path);
	}
	struct passwd entry, *pw = NULL;
	g_autofree char *user =
	    getpwuid_r(geteuid(), &entry, buffer, sizeof buffer, &pw) == 0 && pw
	        ? g_strdup(pw->pw_name)
	        : g_strdup_printf("%u", (unsigned)geteuid());
	return g_strdup_printf("chown %s: %s && chmod 0600 %s", user, path,
	                       path);
}

char *
conf_read_password(const char *path, GError **error)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO,
		            "%s: cannot read the password file: %s", path,
		            g_strerror(errno));
		return NULL;
	}
	/* Owner only; or, Debian's usual way, owned by root and readable
	 * by the service's group (root:tenure 0640): only root can then
	 * change who reads it.  Never by others, never group-writable. */
	gboolean group_read_ok = st.st_uid == 0 &&
	                         (st.st_mode & (S_IWGRP | S_IXGRP)) == 0;
	if ((st.st_mode & S_IRWXO) ||
	    ((st.st_mode & S_IRWXG) && !group_read_ok)) {
		g_autofree char *fix = password_fix(path, &st);
		g_set_error(
		    error, TENURE_ERROR, TENURE_ERROR_INVALID,
		    "%s: the password file is readable by others (mode %04o); "
		    "fix, in this order: %s",
		    path, (unsigned)(st.st_mode & 07777), fix);
		return NULL;
	}
	g_autofree char *text = NULL;
	g_autoptr(GError) local = NULL;
	if (!g_file_get_contents(path, &text, NULL, &local)) {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_IO, "%s",
		            local->message);
		return NULL;
	}
	char *nl = strchr(text, '\n');
	if (nl)
		*nl = '\0';
	if (*text == '\0') {
		g_set_error(error, TENURE_ERROR, TENURE_ERROR_INVALID,
		            "%s: the password file is empty", path);
		return NULL;
	}
	return g_steal_pointer(&text);
}
