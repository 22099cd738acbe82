/* rule.h: the term rules behind one interface.
 *
 * A Rule is a rule name with its parsed parameters.  Each rule lives in
 * its own file under src/rules/ and fills in a RuleClass; rule_new looks
 * the name up in the table of classes.  Parameters come as strings (from
 * [rule] in the configuration, Parameters: in a rule event, or --param)
 * and every bad one is an error naming it:
 * "rule annual-expiry: parameter max-service: \"banana\" is not a duration".
 */
#ifndef TENURE_RULE_H
#define TENURE_RULE_H

#include <glib.h>

typedef struct Rule Rule;

/* Parses NAME with PARAMS (key -> value strings; may be NULL). */
Rule *rule_new(const char *name, GHashTable *params, GError **error);

/* Parses a rule event's "term=4y cooldown=2y" parameter string. */
Rule *rule_new_from_string(const char *name, const char *parameters,
                           GError **error);

void rule_free(Rule *rule);

/* The rule's name ("debian"). */
const char *rule_name(const Rule *rule);

/* Whether a defer may move RULE's expiries: FALSE for debian, whose
 * 6.2.7 is the constitution's and nobody may delay. */
gboolean rule_deferrable(const Rule *rule);

/* "annual-expiry day=08-16 max-service=6y": name and every parameter,
 * defaults included. */
char *rule_describe(const Rule *rule);

/* NULL-terminated list of every rule name, for --help and errors. */
const char *const *rule_names(void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(Rule, rule_free)

#endif
