/* relay.c: see relay.h. */
#include "config.h"

#include <string.h>

#include "source/relay.h"

/* qmail's queue adds "(qmail 123 invoked from network)" above the
 * header its SMTP server wrote: both are the receiving server's. */
static gboolean
is_qmail_queue_header(const char *value)
{
	while (g_ascii_isspace(*value))
		value++;
	return g_str_has_prefix(value, "(qmail ") &&
	       strstr(value, " invoked from network)") != NULL;
}

/* The value of the first Received header (the one added last), past
 * qmail's queue header. */
static const char *
topmost_received(GMimeMessage *message)
{
	GMimeHeaderList *headers =
	    g_mime_object_get_header_list(GMIME_OBJECT(message));
	int count = g_mime_header_list_get_count(headers);
	gboolean qmail_queue_seen = FALSE;
	for (int i = 0; i < count; i++) {
		GMimeHeader *header =
		    g_mime_header_list_get_header_at(headers, i);
		if (g_ascii_strcasecmp(g_mime_header_get_name(header),
		                       "Received") != 0)
			continue;
		const char *value = g_mime_header_get_value(header);
		if (!qmail_queue_seen && is_qmail_queue_header(value)) {
			qmail_queue_seen = TRUE;
			continue;
		}
		return value;
	}
	return NULL;
}

/* A host as written in a Received header or the setting, in one form:
 * without brackets, "IPv6:" or a final dot, in lower case; NULL for
 * what names no host. */
static char *
host_form(const char *text)
{
	g_autofree char *host = g_strstrip(g_strdup(text));
	char *start = host;
	gsize len = strlen(start);
	if (len >= 2 && start[0] == '[' && start[len - 1] == ']') {
		start[len - 1] = '\0';
		start++;
	}
	if (g_ascii_strncasecmp(start, "IPv6:", 5) == 0)
		start += 5;
	len = strlen(start);
	if (len > 0 && start[len - 1] == '.')
		start[--len] = '\0';
	if (len == 0 || g_ascii_strcasecmp(start, "unknown") == 0 ||
	    strchr(start, '=') != NULL)
		return NULL;
	return g_ascii_strdown(start, -1);
}

static void
add_host(GPtrArray *hosts, const char *text)
{
	char *host = host_form(text);
	if (host)
		g_ptr_array_add(hosts, host);
}

/* The address in WORD when it is a bracketed IP literal ("[192.0.2.1]",
 * "[IPv6:2001:db8::1]"), with Exim's ":PORT" after it or not; else
 * NULL. */
static char *
ip_literal(const char *word)
{
	const char *close = strchr(word, ']');
	if (word[0] != '[' || close == NULL)
		return NULL;
	for (const char *p = close + 1; *p; p++)
		if (!(p == close + 1 ? *p == ':' : g_ascii_isdigit(*p)))
			return NULL;
	g_autofree char *address = g_strndup(word + 1, close - word - 1);
	const char *bare = g_ascii_strncasecmp(address, "IPv6:", 5) == 0
	                       ? address + 5
	                       : address;
	return g_hostname_is_ip_address(bare) ? g_ascii_strdown(bare, -1) : NULL;
}

/* Who wrote the header, as its "by" clause says; only these servers'
 * notation tells a name they verified from one the sender gave. */
typedef enum {
	SERVER_OTHER,
	SERVER_POSTFIX,  /* by HOST (Postfix) */
	SERVER_SENDMAIL, /* by HOST (8.17.1/8.17.1/Debian-2) */
	SERVER_EXIM,     /* by HOST with esmtp (Exim 4.96) */
} ServerKind;

/* A Received header's words and comments, in order, up to the ';'
 * before its date.  A word runs to the next blank, so a HELO name such
 * as "x(bendel.debian.org)" stays one word. */
typedef struct {
	gboolean comment;
	char *text; /* a comment without its outer parentheses */
} Token;

static void
token_clear(gpointer data)
{
	g_free(((Token *)data)->text);
}

static GArray *
tokenize(const char *received)
{
	GArray *tokens = g_array_new(FALSE, FALSE, sizeof(Token));
	g_array_set_clear_func(tokens, token_clear);
	const char *p = received;
	for (;;) {
		while (g_ascii_isspace(*p))
			p++;
		if (*p == '\0' || *p == ';')
			break;
		Token token = {.comment = *p == '('};
		const char *start = p;
		if (token.comment) {
			int depth = 0;
			for (; *p; p++) {
				if (*p == '(')
					depth++;
				else if (*p == ')' && --depth == 0)
					break;
			}
			token.text = g_strndup(start + 1, p - start - 1);
			if (*p)
				p++;
		} else {
			while (*p && !g_ascii_isspace(*p) && *p != ';')
				p++;
			token.text = g_strndup(start, p - start);
		}
		/* One line: a folded comment reads as one. */
		for (char *c = token.text; *c; c++)
			if (g_ascii_isspace(*c))
				*c = ' ';
		g_array_append_val(tokens, token);
	}
	return tokens;
}

static gboolean
is_sendmail_version(const char *comment)
{
	/* "8.17.1/8.17.1" and what Debian adds after it. */
	const char *p = comment;
	for (int dots = 0; dots < 2; dots++) {
		if (!g_ascii_isdigit(*p))
			return FALSE;
		while (g_ascii_isdigit(*p))
			p++;
		if (*p++ != '.')
			return FALSE;
	}
	if (!g_ascii_isdigit(*p))
		return FALSE;
	while (g_ascii_isdigit(*p))
		p++;
	return *p == '/';
}

/* The server named by the "by" clause that starts at tokens[AT]: the
 * comments between "by HOST" and the first of what the sender supplied
 * (envelope-from, id, for) or the date. */
static ServerKind
server_kind(GArray *tokens, guint at)
{
	if (at >= tokens->len ||
	    g_ascii_strcasecmp(g_array_index(tokens, Token, at).text, "by") != 0)
		return SERVER_OTHER;
	for (guint i = at + 2; i < tokens->len; i++) {
		const Token *token = &g_array_index(tokens, Token, i);
		if (!token->comment) {
			if (g_ascii_strcasecmp(token->text, "id") == 0 ||
			    g_ascii_strcasecmp(token->text, "for") == 0)
				break;
			continue;
		}
		if (g_str_has_prefix(token->text, "envelope-from"))
			break;
		if (g_str_has_prefix(token->text, "Postfix") &&
		    (token->text[7] == '\0' || token->text[7] == ','))
			return SERVER_POSTFIX;
		if (g_str_has_prefix(token->text, "Exim "))
			return SERVER_EXIM;
		if (is_sendmail_version(token->text))
			return SERVER_SENDMAIL;
	}
	return SERVER_OTHER;
}

/* The address in a comment that holds nothing else: qmail's "(ADDRESS)"
 * or "(IDENT@ADDRESS)", Microsoft's "(ADDRESS)"; else NULL. */
static char *
bare_address(const char *comment)
{
	if (strpbrk(comment, " \t") != NULL)
		return NULL;
	const char *at = strrchr(comment, '@');
	const char *address = at ? at + 1 : comment;
	return g_hostname_is_ip_address(address) ? g_ascii_strdown(address, -1)
	                                         : NULL;
}

/* The address COMMENT gives the way a server writes what it saw, or
 * NULL: "[ADDRESS]..." (Exim, Sendmail, Dovecot), "NAME [ADDRESS]..."
 * (Postfix, Sendmail, Google), or a bare address (qmail, Microsoft). */
static char *
seen_address(const char *comment)
{
	char *bare = bare_address(comment);
	if (bare)
		return bare;
	g_auto(GStrv) words = g_strsplit(comment, " ", 3);
	if (words[0] == NULL)
		return NULL;
	char *address = ip_literal(words[0]);
	if (address == NULL && words[1])
		address = ip_literal(words[1]);
	return address;
}

/* The hosts the "from" clause of RECEIVED names as the receiving server
 * saw them (see relay.h for the forms). */
static GPtrArray *
from_hosts(const char *received)
{
	GPtrArray *hosts = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GArray) tokens = tokenize(received);
	if (tokens->len < 2 ||
	    g_array_index(tokens, Token, 0).comment ||
	    g_ascii_strcasecmp(g_array_index(tokens, Token, 0).text, "from") != 0 ||
	    g_array_index(tokens, Token, 1).comment)
		return hosts;
	const char *outside = g_array_index(tokens, Token, 1).text;
	guint by = 2;
	while (by < tokens->len && g_array_index(tokens, Token, by).comment)
		by++;
	ServerKind server = server_kind(tokens, by);

	/* Exim writes the name it verified outside, or the address in
	 * brackets when it verified none; the HELO goes inside as
	 * "helo=".  Everyone else writes the sender's HELO outside: it
	 * never counts. */
	if (server == SERVER_EXIM) {
		char *address = ip_literal(outside);
		if (address)
			g_ptr_array_add(hosts, address);
		else
			add_host(hosts, outside);
	}
	/* What the server saw is in the last comment that gives an
	 * address: a sender's HELO can only put text before it, and what
	 * servers add after it (TLS, authentication) gives none. */
	const char *comment = NULL;
	g_autofree char *address = NULL;
	for (guint i = by; i > 2 && address == NULL; i--) {
		comment = g_array_index(tokens, Token, i - 1).text;
		address = seen_address(comment);
	}
	if (address == NULL)
		return hosts;
	/* Postfix names the client only once it has looked the address
	 * up and the name up again ("unknown" otherwise); Sendmail adds
	 * "(may be forged)" when the second look fails.  Exactly "NAME
	 * [ADDRESS]" from them names a verified host.  Other servers'
	 * names (Google's, an LMTP server's, qmail's) are in doubt: the
	 * address alone counts. */
	g_auto(GStrv) words = g_strsplit(comment, " ", -1);
	if ((server == SERVER_POSTFIX || server == SERVER_SENDMAIL) &&
	    g_strv_length(words) == 2 && words[0][0] != '[' &&
	    strchr(words[0], '@') == NULL &&
	    strstr(comment, "may be forged") == NULL) {
		g_autofree char *literal = ip_literal(words[1]);
		if (literal)
			add_host(hosts, words[0]);
	}
	g_ptr_array_add(hosts, g_steal_pointer(&address));
	return hosts;
}

gboolean
relay_handed_over(GMimeMessage *message, const char *relays, char **seen)
{
	if (seen)
		*seen = NULL;
	const char *received = topmost_received(message);
	if (received == NULL)
		return FALSE;
	g_autoptr(GPtrArray) hosts = from_hosts(received);
	g_auto(GStrv) wanted = g_strsplit(relays, ";", -1);
	for (char **relay = wanted; *relay; relay++) {
		g_autofree char *host = host_form(*relay);
		for (guint i = 0; host && i < hosts->len; i++)
			if (strcmp(host, hosts->pdata[i]) == 0)
				return TRUE;
	}
	if (seen && hosts->len > 0) {
		g_ptr_array_add(hosts, NULL);
		*seen = g_strjoinv(" ", (char **)hosts->pdata);
	}
	return FALSE;
}
