/* relay.c: see relay.h. */
#include "config.h"

#include <string.h>

#include "relay.h"

/* The value of the first Received header: the one added last. */
static const char *
topmost_received(GMimeMessage *message)
{
	GMimeHeaderList *headers =
	    g_mime_object_get_header_list(GMIME_OBJECT(message));
	int count = g_mime_header_list_get_count(headers);
	for (int i = 0; i < count; i++) {
		GMimeHeader *header =
		    g_mime_header_list_get_header_at(headers, i);
		if (g_ascii_strcasecmp(g_mime_header_get_name(header),
		                       "Received") == 0)
			return g_mime_header_get_value(header);
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

/* The words of TEXT (blanks and parentheses separate them). */
static void
add_words(GPtrArray *hosts, const char *text)
{
	g_auto(GStrv) words = g_strsplit_set(text, " ()", -1);
	for (char **word = words; *word; word++)
		add_host(hosts, *word);
}

/* The hosts the "from" clause of RECEIVED names as the receiving server
 * saw them (see relay.h for the forms). */
static GPtrArray *
from_hosts(const char *received)
{
	GPtrArray *hosts = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *text = g_strdup(received);
	for (char *c = text; *c; c++)
		if (g_ascii_isspace(*c))
			*c = ' ';
	const char *p = text;
	while (*p == ' ')
		p++;
	if (g_ascii_strncasecmp(p, "from ", 5) != 0)
		return hosts;
	p += 5;
	while (*p == ' ')
		p++;
	const char *start = p;
	while (*p && *p != ' ' && *p != '(' && *p != ';')
		p++;
	g_autofree char *name = g_strndup(start, p - start);
	while (*p == ' ')
		p++;
	g_autofree char *comment = NULL;
	if (*p == '(') {
		int depth = 0;
		start = p + 1;
		for (; *p; p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && --depth == 0)
				break;
		}
		comment = g_strndup(start, p - start);
	}
	if (comment && strstr(comment, "helo=") != NULL) {
		/* Exim: the name outside is what the server looked up;
		 * inside, the address and the sender's own HELO. */
		add_host(hosts, name);
		add_words(hosts, comment);
	} else if (comment) {
		/* Postfix, Sendmail: outside is the sender's HELO, inside
		 * what the server saw. */
		add_words(hosts, comment);
	} else {
		add_host(hosts, name);
	}
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
