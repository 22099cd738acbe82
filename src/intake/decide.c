/* decide.c: see decide.h.
 *
 * One function per verb.  Each checks who signed first (the cheapest
 * and the most telling refusal), then the dates, then what the
 * committee and the rule allow, and builds the event last.
 */
#include "config.h"

#include <string.h>

#include "intake/decide.h"
#include "rules/term.h"

/* How far ahead a command may reach: an Effective or Until further than
 * this after the signature is a typo or a plan made too early to bind
 * the committee that will be. */
#define DECIDE_AHEAD_MONTHS 12

guint
decide_roles_of(const DecideRoles *roles, const char *fingerprint)
{
	guint held = 0;
	if (fingerprint == NULL)
		return 0;
	if (roles->chair && g_ascii_strcasecmp(roles->chair, fingerprint) == 0)
		held |= DECIDE_ROLE_CHAIR;
	if (roles->leader && g_ascii_strcasecmp(roles->leader, fingerprint) == 0)
		held |= DECIDE_ROLE_LEADER;
	if (roles->secretary &&
	    g_ascii_strcasecmp(roles->secretary, fingerprint) == 0)
		held |= DECIDE_ROLE_SECRETARY;
	return held;
}

/* Whether FINGERPRINT held ROLE both on the signature's date and when
 * the mail arrived: a signature's date is the signer's own claim, so a
 * role that had passed on by the arrival no longer authorises. */
static gboolean
holds(const DecideInput *in, const char *fingerprint, DecideRole role)
{
	return (decide_roles_of(&in->roles, fingerprint) & role) != 0 &&
	       (decide_roles_of(&in->roles_at_arrival, fingerprint) & role) != 0;
}

static gboolean
signer_is(const DecideInput *in, DecideRole role)
{
	return holds(in, in->signer, role);
}

static DecideKind
refuse(Decision *out, char *reason)
{
	out->reason = reason;
	return DECIDE_REFUSE;
}

/* Refuses with WHO_MAY (who may sign this), adding why the signer is
 * not that person when a role they held on the signature's date had
 * passed on by the time the mail arrived. */
static DecideKind
refuse_signer(const DecideInput *in, Decision *out, char *who_may)
{
	guint lost = decide_roles_of(&in->roles, in->signer) &
	             ~decide_roles_of(&in->roles_at_arrival, in->signer);
	if (lost == 0)
		return refuse(out, who_may);
	const char *role = lost & DECIDE_ROLE_CHAIR    ? "chair"
	                   : lost & DECIDE_ROLE_LEADER ? "leader"
	                                               : "secretary";
	char signed_on[11], arrived_on[11];
	char *reason = g_strdup_printf(
	    "%s; the signer held the %s's role on the signature's date (%s) "
	    "but no longer when the mail arrived (%s)",
	    who_may, role, date_format(in->signed_on, signed_on),
	    date_format(in->arrived_on, arrived_on));
	g_free(who_may);
	return refuse(out, reason);
}

const char *
decide_problem_text(const char *message, const char *path)
{
	gsize len = path ? strlen(path) : 0;
	if (path == NULL || strncmp(message, path, len) != 0 ||
	    message[len] != ':')
		return message;
	const char *p = message + len + 1;
	while (g_ascii_isdigit(*p))
		p++;
	return p[0] == ':' && p[1] == ' ' ? p + 2 : message;
}

/* Refuses because the ledger cannot take the event: the signer reads
 * what is wrong; the ledger's file and line (PROBLEM as the ledger
 * said it) go to the log only. */
static DecideKind
refuse_ledger(const DecideInput *in, Decision *out, const char *problem)
{
	out->detail = g_strdup(problem);
	return refuse(out, g_strdup_printf(
	    "the ledger cannot take this event: %s",
	    decide_problem_text(problem, in->ledger->path)));
}

/* Refuses because the committee's term rule could not be worked out
 * (the ledger's rule event is wrong): nothing the signer can mend, so
 * the transcript says where the cause is, and the log what it is. */
static DecideKind
refuse_rule(Decision *out, const char *problem)
{
	out->detail = g_strdup(problem);
	return refuse(out, g_strdup("tenure could not apply the committee's term "
	                            "rule to this command; the cause is in "
	                            "tenure's log, for its administrator"));
}

static LedgerEvent *
event_new(const DecideInput *in, EventKind kind, Day date, const char *member)
{
	LedgerEvent *event = ledger_event_new(kind, date, member);
	event->source = g_strdup(in->message_id);
	event->signed_by = g_strdup(in->signer);
	event->signature = g_strdup(in->signature_record);
	return event;
}

/* The first day a command may take effect: its signature's date, but
 * never before the day before the mail arrived.  A signature's date is
 * the signer's claim; the day of grace is for mail delayed on its way. */
static Day
first_day(const DecideInput *in)
{
	if (in->arrived_on == DAY_NONE || in->arrived_on - 1 < in->signed_on)
		return in->signed_on;
	return in->arrived_on - 1;
}

/* The latest day a command signed on SIGNED_ON may name. */
static Day
latest_day(Day signed_on)
{
	return date_add_months(signed_on, DECIDE_AHEAD_MONTHS);
}

/* The effective date: as given, else first_day(); never before the
 * signature, which would rewrite history, nor more than a year after
 * it.  A date given before first_day() is refused rather than moved: the
 * signer chose that day, and another would change what was signed. */
static gboolean
effective_day(const DecideInput *in, Day *day, char **reason)
{
	Day from = first_day(in);
	*day = in->command->effective ? in->command->effective : from;
	char buf[11], arrived[11];
	if (*day < in->signed_on) {
		*reason = g_strdup_printf("Effective: is before the signature's date (%s)",
		                          date_format(in->signed_on, buf));
		return FALSE;
	}
	if (*day < from) {
		*reason = g_strdup_printf(
		    "Effective: is before %s, the day before this mail arrived (%s): "
		    "a command takes effect at the earliest on the day before it "
		    "reaches tenure",
		    date_format(from, buf), date_format(in->arrived_on, arrived));
		return FALSE;
	}
	if (*day > latest_day(in->signed_on)) {
		*reason = g_strdup_printf("Effective: is more than a year after the "
		                          "signature's date (at most %s)",
		                          date_format(latest_day(in->signed_on), buf));
		return FALSE;
	}
	return TRUE;
}

/* A command bound to a committee or a list (Committee:, List:) counts
 * only in that one: a mail signed for another committee the signer
 * also sits on is not replayed into this one. */
static gboolean
context_matches(const DecideInput *in, char **reason)
{
	const Command *c = in->command;
	const Conf *conf = in->conf;
	if (c->committee &&
	    (conf->name == NULL || g_ascii_strcasecmp(c->committee, conf->name) != 0)) {
		*reason = g_strdup_printf("Committee: \"%s\" is not this committee "
		                          "(\"%s\")", c->committee,
		                          conf->name ? conf->name : "unnamed");
		return FALSE;
	}
	if (c->list && (conf->list == NULL ||
	                g_ascii_strcasecmp(c->list, conf->list) != 0)) {
		*reason = g_strdup_printf("List: %s is not this committee's list (%s)",
		                          c->list, conf->list ? conf->list : "none");
		return FALSE;
	}
	return TRUE;
}

/* Whether FPR is tenure's own key ([keys] bot-key, or its primary key
 * when that names a subkey). */
static gboolean
bot_key(const DecideInput *in, const char *fpr)
{
	return (in->conf->bot_key && g_ascii_strcasecmp(in->conf->bot_key, fpr) == 0) ||
	       (in->bot_primary && g_ascii_strcasecmp(in->bot_primary, fpr) == 0);
}

/* The [roles] entry naming FPR, or NULL. */
static const char *
configured_role(const DecideInput *in, const char *fpr)
{
	const Conf *conf = in->conf;
	if (conf->chair && g_ascii_strcasecmp(conf->chair, fpr) == 0)
		return "chair";
	if (conf->leader && g_ascii_strcasecmp(conf->leader, fpr) == 0)
		return "leader";
	if (conf->secretary && g_ascii_strcasecmp(conf->secretary, fpr) == 0)
		return "secretary";
	return NULL;
}

/* NULL when FPR may be bound to EMAIL, else why not.  A key is one
 * person's for good: one that anyone else has ever held (a member, a
 * former member, a role holder) is never bound to another, or two
 * people could sign for each other and a signature could not tell them
 * apart; nor is tenure's own.  A key the configuration names ([roles])
 * that the ledger records for nobody is bound only with its own
 * signature (SELF_SIGNED): its holder is whoever holds it. */
static char *
key_claimed(const DecideInput *in, const char *fpr, const char *email,
            gboolean self_signed)
{
	const char *other = committee_key_other_holder(in->committee, fpr, email);
	if (other) {
		const char *name = committee_name_of(in->committee, other);
		return g_strdup_printf("Fingerprint: %s is the key of %s", fpr,
		                       name ? name : other);
	}
	if (bot_key(in, fpr))
		return g_strdup_printf("Fingerprint: %s is tenure's own key", fpr);
	const char *role = configured_role(in, fpr);
	if (role && !self_signed &&
	    committee_key_first_holder(in->committee, fpr) == NULL)
		return g_strdup_printf("Fingerprint: %s is the key [roles] %s names; "
		                       "it is bound to a person only by a mail it "
		                       "signs itself", fpr, role);
	return NULL;
}

/* Whether the ledger with EVENT keeps the committee within max-members
 * on every day from the signature on, counting appointments recorded
 * ahead, the rule's expiries and deferrals; OUT's refusal when not. */
static gboolean
within_cap(const DecideInput *in, const LedgerEvent *event, Decision *out)
{
	Ledger with = {.path = in->ledger->path, .events = g_ptr_array_new()};
	for (guint i = 0; i < in->ledger->events->len; i++)
		g_ptr_array_add(with.events, in->ledger->events->pdata[i]);
	g_ptr_array_add(with.events, (gpointer)event);
	g_autoptr(GError) error = NULL;
	g_autoptr(Committee) after = committee_replay(&with, &error);
	g_ptr_array_unref(with.events);
	if (after == NULL) {
		refuse_ledger(in, out, error->message);
		return FALSE;
	}
	Day day;
	int count;
	if (term_cap_exceeded(in->committee, after, in->default_rule,
	                      in->conf->max_members, in->signed_on, &day, &count,
	                      &error)) {
		char buf[11];
		refuse(out, g_strdup_printf("the committee would have %d members on %s, "
		                            "more than the %d it may have", count,
		                            date_format(day, buf),
		                            in->conf->max_members));
		return FALSE;
	}
	if (error) {
		refuse_rule(out, error->message);
		return FALSE;
	}
	return TRUE;
}

/* The term PERSON serves on DAY, or NULL with *REASON set: not serving,
 * or serving with an end already recorded (the ledger would contradict
 * itself with a second one).  An ENDING event dated before the recorded
 * end overtakes it, as the replay does: a resignation dated years ahead
 * neither shields a member from removal nor stops them from leaving
 * earlier. */
static const Term *
open_term(const Person *person, const char *who, Day day, gboolean ending,
          char **reason)
{
	const Term *term = person ? person_term_on(person, day) : NULL;
	char buf[11];
	if (term == NULL) {
		*reason = g_strdup_printf("%s is not a member of the committee on %s",
		                          who, date_format(day, buf));
		return NULL;
	}
	if (term->end != DAY_NONE && !(ending && day < term->end)) {
		*reason = g_strdup_printf("%s's term already ends on %s",
		                          person->member, date_format(term->end, buf));
		return NULL;
	}
	return term;
}

/* A member is known by the primary fingerprint their signatures map
 * to: one recorded by a subkey's would never match them again. */
static gboolean
primary_fingerprint(const DecideInput *in, char **reason)
{
	if (in->fingerprint_primary == NULL)
		return TRUE;
	*reason = g_strdup_printf("Fingerprint: %s is a subkey of %s; give the primary "
	                          "key's fingerprint", in->command->fingerprint,
	                          in->fingerprint_primary);
	return FALSE;
}

/* Whether the signing key, EMAIL's on the signature's date, was still
 * theirs when the mail arrived: a key replaced since (new-key) no longer
 * acts for them, whatever date its signature claims. */
static gboolean
key_held_at_arrival(const DecideInput *in, const char *email, char **reason)
{
	if (in->arrived_on == DAY_NONE)
		return TRUE;
	const char *key = committee_key_on(in->committee, email, in->arrived_on);
	if (key && g_ascii_strcasecmp(key, in->signer) == 0)
		return TRUE;
	char buf[11];
	*reason = g_strdup_printf("the signing key (%s) was no longer the key of %s "
	                          "when the mail arrived (%s)",
	                          in->signer, committee_name_of(in->committee, email),
	                          date_format(in->arrived_on, buf));
	return FALSE;
}

static DecideKind
decide_resign(const DecideInput *in, Decision *out)
{
	const Person *person = in->signer_member;
	if (person && !key_held_at_arrival(in, person->email, &out->reason))
		return DECIDE_REFUSE;
	Day day;
	if (!effective_day(in, &day, &out->reason))
		return DECIDE_REFUSE;
	g_autofree char *who = g_strdup_printf("the signer (%s)", in->signer);
	if (open_term(person, person ? person->member : who, day, TRUE,
	              &out->reason) == NULL)
		return DECIDE_REFUSE;
	out->event = event_new(in, EVENT_RESIGN, day, person->member);
	out->event->fingerprint = g_strdup(in->signer);
	return DECIDE_APPEND;
}

static DecideKind
decide_recommend(const DecideInput *in, Decision *out)
{
	const Command *c = in->command;
	if (!signer_is(in, DECIDE_ROLE_CHAIR))
		return refuse_signer(in, out, g_strdup("only the chair may recommend "
		                                       "an appointment"));
	if (!primary_fingerprint(in, &out->reason) ||
	    (out->reason = key_claimed(in, c->fingerprint, c->email, FALSE)) != NULL)
		return DECIDE_REFUSE;
	/* The recommendation lapses after recommendation-days, and the
	 * appointment may take effect up to a year after it is signed: a
	 * committee with no place for anyone new in all that time has no
	 * use for the recommendation. */
	Day until = latest_day(in->signed_on + in->conf->recommendation_days);
	Day vacancy = DAY_NONE;
	g_autoptr(GError) error = NULL;
	if (!term_first_vacancy(in->committee, in->default_rule,
	                        in->conf->max_members, in->signed_on, until,
	                        &vacancy, &error))
		return refuse_rule(out, error->message);
	if (vacancy == DAY_NONE) {
		char buf[11];
		return refuse(out, g_strdup_printf("the committee has no place for "
		                                   "another member until %s (it may "
		                                   "have %d)", date_format(until, buf),
		                                   in->conf->max_members));
	}
	PendingRecommendation *rec = g_new0(PendingRecommendation, 1);
	rec->member = g_strdup(c->member);
	rec->fingerprint = g_strdup(c->fingerprint);
	rec->project_joined = c->project_joined;
	rec->signed_by = g_strdup(in->signer);
	rec->message_id = g_strdup(in->message_id);
	rec->date = first_day(in);
	out->recommendation = rec;
	return DECIDE_PENDING;
}

typedef enum {
	NOT_RECOMMENDED,
	RECOMMENDATION_LAPSED,
	RECOMMENDED,
} Recommendation;

/* Whether the pending recommendation lets the leader appoint C's
 * person: same fingerprint, by whoever holds the chair now, not used
 * up by an appointment since, and signed no more than
 * recommendation-days before. */
static Recommendation
recommended(const DecideInput *in)
{
	const Command *c = in->command;
	const PendingRecommendation *rec = in->recommendation;
	/* Only a recommendation by whoever holds the chair now counts: a
	 * half-finished step by a former chair is not the committee's. */
	if (rec == NULL || rec->fingerprint == NULL ||
	    g_ascii_strcasecmp(rec->fingerprint, c->fingerprint) != 0 ||
	    !holds(in, rec->signed_by, DECIDE_ROLE_CHAIR))
		return NOT_RECOMMENDED;
	/* Nor one the person was appointed on since: it was used up, even
	 * if the process stopped before dropping it. */
	const Person *appointee = committee_find(in->committee, c->email);
	const Term *last_term = appointee ? person_last_term(appointee) : NULL;
	if (last_term && last_term->start >= rec->date)
		return NOT_RECOMMENDED;
	/* A recommendation nobody acted on for months was made for a
	 * committee that has changed since. */
	if (rec->date == DAY_NONE ||
	    first_day(in) > rec->date + (Day)in->conf->recommendation_days)
		return RECOMMENDATION_LAPSED;
	return RECOMMENDED;
}

static DecideKind
decide_appoint(const DecideInput *in, Decision *out)
{
	const Command *c = in->command;
	Day day;
	if (!effective_day(in, &day, &out->reason))
		return DECIDE_REFUSE;
	gboolean chair = signer_is(in, DECIDE_ROLE_CHAIR);
	gboolean leader = signer_is(in, DECIDE_ROLE_LEADER);
	g_autoptr(GPtrArray) members = committee_members_on(in->committee, day);
	Recommendation rec = leader ? recommended(in) : NOT_RECOMMENDED;
	if (rec == RECOMMENDED) {
		/* The leader appoints the person the chair recommended. */
	} else if (chair && members->len <= 5) {
		/* While the committee has 5 members or fewer, the chair may
		 * appoint alone (constitution 6.2.2). */
	} else if (rec == RECOMMENDATION_LAPSED) {
		char buf[11];
		return refuse(out, g_strdup_printf("the chair's recommendation of %s "
		                                   "(%s) lapsed after %d days "
		                                   "([reminders] recommendation-days)",
		                                   c->member,
		                                   date_format(in->recommendation->date, buf),
		                                   in->conf->recommendation_days));
	} else if (leader) {
		return refuse(out, g_strdup_printf("the chair has not recommended %s "
		                                   "(with this fingerprint)", c->member));
	} else if (chair) {
		return refuse(out, g_strdup_printf("the chair may appoint alone only while "
		                                   "the committee has 5 members or fewer "
		                                   "(it has %u)", members->len));
	} else {
		return refuse_signer(in, out,
		                     g_strdup("only the leader (for a person the chair "
		                              "recommended) or the chair (while the "
		                              "committee has 5 members or fewer) may "
		                              "appoint"));
	}
	if (!primary_fingerprint(in, &out->reason) ||
	    (out->reason = key_claimed(in, c->fingerprint, c->email, FALSE)) != NULL)
		return DECIDE_REFUSE;
	g_autofree char *why = NULL;
	if (!term_may_appoint(in->committee, in->default_rule,
	                      in->conf->max_members, c->email, day, &why)) {
		/* A reason naming the ledger's file is the ledger's rule
		 * event failing, not this appointment. */
		if (why && decide_problem_text(why, in->ledger->path) != why)
			return refuse_rule(out, why);
		return refuse(out, why ? g_steal_pointer(&why)
		                       : g_strdup("the term rule does not allow "
		                                  "this appointment"));
	}
	out->event = event_new(in, EVENT_APPOINT, day, c->member);
	out->event->fingerprint = g_strdup(c->fingerprint);
	out->event->project_joined = c->project_joined;
	if (!within_cap(in, out->event, out))
		return DECIDE_REFUSE;
	/* A half-signed removal is of one term: once a new term begins,
	 * nothing is left for the other role to complete. */
	out->drop_recommendation = TRUE;
	out->drop_removal = TRUE;
	return DECIDE_APPEND;
}

/* The pending removal to build on: a copy of IN's, without halves
 * whose signer no longer holds that role, or a new one. */
static PendingRemoval *
removal_so_far(const DecideInput *in)
{
	PendingRemoval *removal = g_new0(PendingRemoval, 1);
	const PendingRemoval *had = in->removal;
	/* Both halves on file is a removal already made whose record the
	 * process stopped before dropping: start afresh. */
	if (had == NULL || (had->chair && had->leader))
		return removal;
	removal->member = g_strdup(had->member);
	removal->effective = had->effective;
	/* A half signed by someone who no longer holds that role (the
	 * configuration changed since) does not count. */
	if (holds(in, had->chair, DECIDE_ROLE_CHAIR)) {
		removal->chair = g_strdup(had->chair);
		removal->chair_message = g_strdup(had->chair_message);
	}
	if (holds(in, had->leader, DECIDE_ROLE_LEADER)) {
		removal->leader = g_strdup(had->leader);
		removal->leader_message = g_strdup(had->leader_message);
	}
	return removal;
}

static DecideKind
decide_remove(const DecideInput *in, Decision *out)
{
	const Command *c = in->command;
	gboolean chair = signer_is(in, DECIDE_ROLE_CHAIR);
	gboolean leader = signer_is(in, DECIDE_ROLE_LEADER);
	if (!chair && !leader)
		return refuse_signer(in, out, g_strdup("only the chair and the leader, "
		                                       "together, may remove a member"));
	Day day;
	if (!effective_day(in, &day, &out->reason))
		return DECIDE_REFUSE;
	const Person *person = committee_find(in->committee, c->email);
	g_autoptr(PendingRemoval) removal = removal_so_far(in);
	/* A pending half holds its own signer's Effective; the removal
	 * takes effect on the later of the two, so neither signer's date
	 * is overridden by the other's. */
	const char *other_half = chair ? removal->leader : removal->chair;
	Day agreed = other_half ? removal->effective : DAY_NONE;
	Day date = MAX(agreed, day);
	/* The member must serve on the day the removal would end the
	 * term: with the other half, the later of the two dates. */
	if (open_term(person, c->member, date, TRUE, &out->reason) == NULL)
		return DECIDE_REFUSE;
	if (removal->member == NULL)
		removal->member = g_strdup(person->member);
	removal->effective = c->effective;
	if (chair) {
		g_free(removal->chair);
		g_free(removal->chair_message);
		removal->chair = g_strdup(in->signer);
		removal->chair_message = g_strdup(in->message_id);
	}
	if (leader) {
		g_free(removal->leader);
		g_free(removal->leader_message);
		removal->leader = g_strdup(in->signer);
		removal->leader_message = g_strdup(in->message_id);
	}
	if (removal->chair == NULL || removal->leader == NULL) {
		out->removal = g_steal_pointer(&removal);
		return DECIDE_PENDING;
	}
	out->event = event_new(in, EVENT_REMOVE, date, person->member);
	g_free(out->event->signed_by);
	out->event->signed_by = g_strdup_printf("%s %s", removal->chair,
	                                        removal->leader);
	const char *other = chair ? removal->leader_message : removal->chair_message;
	out->event->comment = g_strdup_printf("also signed in %s",
	                                      other ? other : "-");
	/* The removal is made: nothing is left for either role to sign. */
	out->drop_removal = TRUE;
	return DECIDE_APPEND;
}

/* Whether a deferral of PERSON's expiry dated DAY, signed by the chair
 * (CHAIR) or the leader (LEADER), may be made; OUT's refusal when not.
 * A deferral is Ian's idea (mail 003): the committee delaying a limit
 * it set itself.  So it does not exist under a rule nobody may delay
 * (debian: 6.2.7 is the constitution's); nobody defers their own
 * expiry, and the chair's is deferred by the leader, not by the chair;
 * and it moves an expiry the rule has already decided and that has not
 * taken effect: one dated before the decision would reach into a
 * decision not yet made (the 1 January that sets it, a rule not yet in
 * force).  Sets *PENDING to the expiry it would move. */
static gboolean
defer_allowed(const DecideInput *in, const Person *person, Day day,
              gboolean chair, gboolean leader, Day *pending, Decision *out)
{
	g_autoptr(GError) error = NULL;
	g_autofree char *rule = NULL;
	gboolean deferrable;
	Day decided;
	if (!term_pending_expiry(in->committee, in->default_rule,
	                         in->conf->max_members, person->email, day, &rule,
	                         &deferrable, pending, &decided, &error)) {
		refuse_rule(out, error->message);
		return FALSE;
	}
	if (!deferrable) {
		refuse(out, g_strdup_printf(
		    "no expiry can be deferred under the %s rule: its expiries are "
		    "the constitution's (section 6.2.7), not a limit the committee "
		    "sets itself, and nobody may delay them", rule));
		return FALSE;
	}
	if (in->signer_member == person) {
		refuse(out, g_strdup("nobody may defer their own expiry"));
		return FALSE;
	}
	const char *key = committee_key_on(in->committee, person->email, day);
	gboolean member_chairs =
	    key && (decide_roles_of(&in->roles, key) & DECIDE_ROLE_CHAIR);
	if (member_chairs && !leader) {
		refuse_signer(in, out, g_strdup("only the leader may defer the chair's "
		                                "expiry"));
		return FALSE;
	}
	if (!member_chairs && !chair) {
		refuse_signer(in, out, g_strdup("only the chair may defer an expiry "
		                                "(the leader, the chair's own)"));
		return FALSE;
	}
	if (*pending == DAY_NONE) {
		char d[11], r[11];
		date_format(day, d);
		refuse(out, decided != DAY_NONE
		                ? g_strdup_printf(
		                      "nothing to defer yet: %s has no expiry pending on "
		                      "%s; the %s rule decides one on %s, and a deferral "
		                      "may move it from then on",
		                      person->member, d, rule, date_format(decided, r))
		                : g_strdup_printf(
		                      "nothing to defer yet: %s has no expiry pending on "
		                      "%s under the %s rule",
		                      person->member, d, rule));
		return FALSE;
	}
	return TRUE;
}

static DecideKind
decide_defer(const DecideInput *in, Decision *out)
{
	const Command *c = in->command;
	gboolean chair = signer_is(in, DECIDE_ROLE_CHAIR);
	gboolean leader = signer_is(in, DECIDE_ROLE_LEADER);
	if (!chair && !leader)
		return refuse_signer(in, out, g_strdup("only the chair may defer an expiry "
		                                       "(the leader, the chair's own)"));
	const Person *person = committee_find(in->committee, c->email);
	Day day = first_day(in);
	if (open_term(person, c->member, day, FALSE, &out->reason) == NULL)
		return DECIDE_REFUSE;
	if (c->until <= day)
		return refuse(out, g_strdup(day == in->signed_on
		                                ? "Until: is not after the signature's date"
		                                : "Until: is not after the day before "
		                                  "this mail arrived"));
	if (c->until > latest_day(in->signed_on)) {
		char buf[11];
		return refuse(out, g_strdup_printf("Until: is more than a year after the "
		                                   "signature's date (at most %s)",
		                                   date_format(latest_day(in->signed_on),
		                                               buf)));
	}
	Day pending;
	if (!defer_allowed(in, person, day, chair, leader, &pending, out))
		return DECIDE_REFUSE;
	char p[11];
	if (c->until <= pending)
		return refuse(out, g_strdup_printf("Until: is not after the expiry it "
		                                   "would move (%s)",
		                                   date_format(pending, p)));
	out->event = event_new(in, EVENT_DEFER, day, person->member);
	out->event->until = c->until;
	/* The chair's text, in Comment alone: it is never read as a
	 * record (ledger_event_signature). */
	out->event->comment = g_strdup(c->reason);
	/* Keeping a member past the day a newcomer recorded ahead starts
	 * must not make the committee too large. */
	if (!within_cap(in, out->event, out))
		return DECIDE_REFUSE;
	return DECIDE_APPEND;
}

/* The new key must be one the keyrings hold, as a primary key: a
 * signature by it could not be verified otherwise. */
static gboolean
usable_key(const DecideInput *in, char **reason)
{
	if (!primary_fingerprint(in, reason))
		return FALSE;
	if (in->fingerprint_usable)
		return TRUE;
	*reason = g_strdup_printf("Fingerprint: %s is not a usable key in the keyring",
	                          in->command->fingerprint);
	return FALSE;
}

/* Whether HALF is the other half of the binding of FPR to EMAIL (for
 * ROLE, or a new key when NULL), signed within [keys] confirm-days of
 * this mail. */
static gboolean
half_matches(const DecideInput *in, const PendingBinding *half, const char *fpr,
             const char *email, const char *role)
{
	g_autofree char *half_email = NULL;
	if (half == NULL || half->fingerprint == NULL || half->member == NULL ||
	    half->date == DAY_NONE ||
	    !ledger_member_email(half->member, &half_email))
		return FALSE;
	Day from = first_day(in);
	Day gap = half->date > from ? half->date - from : from - half->date;
	return g_ascii_strcasecmp(half->fingerprint, fpr) == 0 &&
	       strcmp(half_email, email) == 0 && g_strcmp0(half->role, role) == 0 &&
	       gap <= (Day)in->conf->confirm_days;
}

/* This mail's half of the binding of FPR to MEMBER, to wait for the
 * other. */
static DecideKind
binding_pending(const DecideInput *in, Decision *out, PendingBindingKind kind,
                const char *member, const char *fpr, const char *role)
{
	PendingBinding *half = g_new0(PendingBinding, 1);
	half->member = g_strdup(member);
	half->fingerprint = g_strdup(fpr);
	half->role = g_strdup(role);
	half->signed_by = g_strdup(in->signer);
	half->message_id = g_strdup(in->message_id);
	half->date = first_day(in);
	half->effective = in->command->effective;
	out->binding = half;
	out->binding_kind = kind;
	return DECIDE_PENDING;
}

/* The event that binds: KIND on the later of the two halves' days (each
 * its Effective, else the day it acts from), so that neither signer's
 * date is overridden; signed by both, the key being bound last. */
static DecideKind
binding_event(const DecideInput *in, Decision *out, EventKind kind, Day day,
              const PendingBinding *other, const char *member, const char *fpr,
              gboolean by_key)
{
	Day theirs = other->effective != DAY_NONE ? other->effective : other->date;
	out->event = event_new(in, kind, MAX(day, theirs), member);
	out->event->fingerprint = g_strdup(fpr);
	g_free(out->event->signed_by);
	out->event->signed_by = by_key ? g_strdup_printf("%s %s", other->signed_by, fpr)
	                               : g_strdup_printf("%s %s", in->signer, fpr);
	out->event->comment = g_strdup_printf("also signed in %s",
	                                      other->message_id ? other->message_id
	                                                        : "-");
	out->drop_bindings = TRUE;
	return DECIDE_APPEND;
}

/* The chair's or the leader's role passes to the person Member (or the
 * key Fingerprint) names, signed by the role's holder or the secretary
 * (who announces election results).  A handover introduces no key: a
 * holder the ledger records a key for acts with that key, and one it
 * records none for is bound to the key Fingerprint names only when that
 * key signs the same handover itself (either mail first, within [keys]
 * confirm-days). */
static DecideKind
decide_handover(const DecideInput *in, Decision *out)
{
	const Command *c = in->command;
	CommitteeRole role = ROLE_CHAIR;
	committee_role_parse(c->role, &role);
	const char *name = committee_role_name(role);
	DecideRole flag = role == ROLE_CHAIR ? DECIDE_ROLE_CHAIR : DECIDE_ROLE_LEADER;
	gboolean authoriser = signer_is(in, flag) || signer_is(in, DECIDE_ROLE_SECRETARY);
	gboolean by_key = !authoriser &&
	                  g_ascii_strcasecmp(c->fingerprint, in->signer) == 0;
	if (!authoriser && !by_key)
		return refuse_signer(in, out,
		                     g_strdup_printf("only the %s or the secretary may "
		                                     "hand over the %s's role", name, name));
	Day day;
	if (!effective_day(in, &day, &out->reason) ||
	    !usable_key(in, &out->reason))
		return DECIDE_REFUSE;
	char buf[11];
	date_format(day, buf);
	const char *owner = committee_key_owner_on(in->committee, c->fingerprint, day);
	const char *member = c->member;
	if (member && owner && strcmp(owner, c->email) != 0)
		return refuse(out, g_strdup_printf("Fingerprint: %s is the key of %s on %s, "
		                                   "not of %s", c->fingerprint,
		                                   committee_name_of(in->committee, owner),
		                                   buf, member));
	if (member && owner == NULL) {
		/* A handover introduces no key: a holder's key is the
		 * ledger's, and a new one is recorded by new-key. */
		const char *key = committee_key_on(in->committee, c->email, day);
		if (key)
			return refuse(out, g_strdup_printf("Fingerprint: %s is not %s's key on %s "
			                                   "(%s is; a new key is recorded with "
			                                   "\"Tenure: new-key\")",
			                                   c->fingerprint, member, buf, key));
	}
	if (member == NULL && owner == NULL)
		return refuse(out, g_strdup_printf("the ledger knows nobody with the key %s; "
		                                   "give the new holder's Member:",
		                                   c->fingerprint));
	if (member == NULL)
		member = committee_name_of(in->committee, owner);
	g_autofree char *email = NULL;
	ledger_member_email(member, &email);
	if (role == ROLE_CHAIR) {
		const Person *person = committee_find(in->committee, email);
		if (person == NULL || person_term_on(person, day) == NULL)
			return refuse(out, g_strdup_printf("%s is not a member on %s and cannot chair",
			                                   member, buf));
	}
	const char *held = committee_role_key_on(in->committee, role, day);
	if (held && g_ascii_strcasecmp(held, c->fingerprint) == 0)
		return refuse(out, g_strdup_printf("%s already holds the %s's role on %s",
		                                   member, name, buf));
	if (owner) {
		/* The holder's key is recorded: nothing is bound, and the
		 * holder's own mail authorises nothing. */
		if (by_key)
			return refuse_signer(in, out,
			                     g_strdup_printf("only the %s or the secretary may "
			                                     "hand over the %s's role", name,
			                                     name));
		out->event = event_new(in, EVENT_ROLE, day, member);
		out->event->role = g_strdup(name);
		out->event->fingerprint = g_strdup(c->fingerprint);
		out->drop_bindings = TRUE;
		return DECIDE_APPEND;
	}
	if ((out->reason = key_claimed(in, c->fingerprint, email, TRUE)) != NULL)
		return DECIDE_REFUSE;
	const PendingBinding *other = by_key ? in->handover_half : in->key_half;
	/* The authoriser's half counts while its signer still may hand the
	 * role over. */
	gboolean counts = half_matches(in, other, c->fingerprint, email, name) &&
	                  (!by_key || holds(in, other->signed_by, flag) ||
	                   holds(in, other->signed_by, DECIDE_ROLE_SECRETARY));
	if (!counts)
		return binding_pending(in, out, by_key ? PENDING_KEY : PENDING_HANDOVER,
		                       member, c->fingerprint, name);
	DecideKind kind = binding_event(in, out, EVENT_ROLE, day, other, member,
	                                c->fingerprint, by_key);
	out->event->role = g_strdup(name);
	return kind;
}

/* A person's key is replaced by the key Fingerprint names once both
 * have signed the same new-key: the key the ledger records for them
 * (on both the signature's date and the arrival day), and the new key
 * itself, which names the person in Member: (either mail first, within
 * [keys] confirm-days).  From the event's date on only the new key acts
 * for them. */
static DecideKind
decide_new_key(const DecideInput *in, Decision *out)
{
	const Command *c = in->command;
	char when[11];
	gboolean by_key = g_ascii_strcasecmp(c->fingerprint, in->signer) == 0;
	const char *email = NULL;
	if (by_key) {
		if (c->email == NULL)
			return refuse(out, g_strdup("Member: is needed in the mail the new key "
			                            "signs itself: it names whose key it is"));
		email = c->email;
		if (committee_name_of(in->committee, email) == NULL)
			return refuse(out, g_strdup_printf("%s is not in the ledger: a new key "
			                                   "replaces the key of a member, a "
			                                   "former member or a role holder",
			                                   c->member));
	} else {
		email = in->signer_member ? in->signer_member->email
		                          : committee_key_owner_on(in->committee,
		                                                   in->signer,
		                                                   in->signed_on);
		if (email == NULL)
			return refuse(out, g_strdup_printf("the signer (%s) is nobody's key in "
			                                   "the ledger on %s", in->signer,
			                                   date_format(in->signed_on, when)));
		if (!key_held_at_arrival(in, email, &out->reason))
			return DECIDE_REFUSE;
		if (c->email && strcmp(c->email, email) != 0)
			return refuse(out, g_strdup_printf(
			    "Member: %s is not the signer: a key signs a new key only for "
			    "its own holder (%s)", c->member,
			    committee_name_of(in->committee, email)));
	}
	Day day;
	if (!effective_day(in, &day, &out->reason) ||
	    !usable_key(in, &out->reason))
		return DECIDE_REFUSE;
	const char *member = committee_name_of(in->committee, email);
	const char *current = committee_key_on(in->committee, email, day);
	if (current && g_ascii_strcasecmp(current, c->fingerprint) == 0)
		return refuse(out, g_strdup_printf("Fingerprint: %s is already the key of %s",
		                                   c->fingerprint, member));
	if ((out->reason = key_claimed(in, c->fingerprint, email, TRUE)) != NULL)
		return DECIDE_REFUSE;
	const PendingBinding *other = by_key ? in->new_key_half : in->key_half;
	/* The recorded key's half counts while that key is still theirs. */
	gboolean counts = half_matches(in, other, c->fingerprint, email, NULL) &&
	                  (!by_key ||
	                   (g_strcmp0(committee_key_on(in->committee, email,
	                                               in->signed_on),
	                              other->signed_by) == 0 &&
	                    g_strcmp0(committee_key_on(in->committee, email,
	                                               in->arrived_on),
	                              other->signed_by) == 0));
	if (!counts)
		return binding_pending(in, out, by_key ? PENDING_KEY : PENDING_NEW_KEY,
		                       member, c->fingerprint, NULL);
	return binding_event(in, out, EVENT_KEY, day, other, member, c->fingerprint,
	                     by_key);
}

/* Whether OTHER is about what EVENT changes: the same person's
 * membership, the same role, the same person's key. */
static gboolean
same_subject(const LedgerEvent *event, const LedgerEvent *other)
{
	gboolean membership = other->kind == EVENT_APPOINT ||
	                      other->kind == EVENT_RESIGN ||
	                      other->kind == EVENT_REMOVE ||
	                      other->kind == EVENT_EXPIRE;
	switch (event->kind) {
	case EVENT_APPOINT:
	case EVENT_RESIGN:
	case EVENT_REMOVE:
	case EVENT_EXPIRE:
	case EVENT_DEFER:
		return membership && g_strcmp0(event->email, other->email) == 0;
	case EVENT_ROLE:
		return other->kind == EVENT_ROLE &&
		       g_strcmp0(event->role, other->role) == 0;
	case EVENT_KEY:
		return other->kind == EVENT_KEY &&
		       g_strcmp0(event->email, other->email) == 0;
	case EVENT_RULE:
		break;
	}
	return FALSE;
}

/* When the ledger recorded EVENT (Unix time), or -1 for history typed
 * in by hand (Source: import), which is the committee's record of how
 * things stood, not news: it has no Recorded, or the one `tenure audit`
 * gives it when rebuilding. */
static gint64
recorded_at(const LedgerEvent *event)
{
	if (event->recorded == NULL ||
	    g_ascii_strcasecmp(event->source ? event->source : "import",
	                       "import") == 0)
		return -1;
	g_autoptr(GTimeZone) utc = g_time_zone_new_utc();
	g_autoptr(GDateTime) when = g_date_time_new_from_iso8601(event->recorded, utc);
	return when ? g_date_time_to_unix(when) : -1;
}

static const char *
change_name(const LedgerEvent *event)
{
	switch (event->kind) {
	case EVENT_APPOINT:
		return "appointment";
	case EVENT_RESIGN:
		return "resignation";
	case EVENT_REMOVE:
		return "removal";
	case EVENT_EXPIRE:
		return "expiry";
	case EVENT_DEFER:
		return "deferral";
	case EVENT_ROLE:
		return "handover";
	case EVENT_KEY:
		return "new key";
	case EVENT_RULE:
		break;
	}
	return "rule";
}

/* A command acts on the committee as its signer saw it.  When the
 * ledger recorded, after the signature was made, a change to what EVENT
 * changes dated on or after EVENT's date (an expiry of the member
 * resigning, a handover of the role being handed over), EVENT would
 * come before it and undo or overtake it: its signer did not know of
 * it, and a backdated signature must not reach behind the ledger's
 * back. */
static gboolean
unchanged_since_signed(const DecideInput *in, const LedgerEvent *event,
                       char **reason)
{
	for (guint i = 0; i < in->ledger->events->len; i++) {
		const LedgerEvent *other = in->ledger->events->pdata[i];
		if (!same_subject(event, other) || other->date < event->date ||
		    recorded_at(other) <= in->signed_at)
			continue;
		char date[11];
		g_autofree char *recorded = g_strndup(other->recorded, 10);
		const char *whom = other->kind == EVENT_ROLE ? other->role : other->member;
		*reason = g_strdup_printf(
		    "since this command was signed, the ledger has recorded the %s "
		    "of %s (dated %s, recorded %s); a command signed before a change "
		    "cannot take effect before it: sign it again if it still stands",
		    change_name(other), whom, date_format(other->date, date), recorded);
		return FALSE;
	}
	return TRUE;
}

void
decide(const DecideInput *in, Decision *out)
{
	memset(out, 0, sizeof(*out));
	/* tenure's own key signs announcements; a command signed with it
	 * is the bot's mail read back, or its key misused. */
	/* [keys] bot-key may name the primary key or the subkey it signs
	 * with. */
	const char *bot_key = in->conf->bot_key;
	if (bot_key &&
	    ((in->signer && g_ascii_strcasecmp(bot_key, in->signer) == 0) ||
	     (in->signing_key && g_ascii_strcasecmp(bot_key, in->signing_key) == 0))) {
		out->kind = refuse(out, g_strdup("tenure's own key signs no command"));
		return;
	}
	if (!context_matches(in, &out->reason)) {
		out->kind = DECIDE_REFUSE;
		return;
	}
	switch (in->command->verb) {
	case COMMAND_RESIGN:
		out->kind = decide_resign(in, out);
		break;
	case COMMAND_RECOMMEND:
		out->kind = decide_recommend(in, out);
		break;
	case COMMAND_APPOINT:
		out->kind = decide_appoint(in, out);
		break;
	case COMMAND_REMOVE:
		out->kind = decide_remove(in, out);
		break;
	case COMMAND_DEFER:
		out->kind = decide_defer(in, out);
		break;
	case COMMAND_HANDOVER:
		out->kind = decide_handover(in, out);
		break;
	case COMMAND_NEW_KEY:
		out->kind = decide_new_key(in, out);
		break;
	}
	if (out->kind == DECIDE_APPEND &&
	    !unchanged_since_signed(in, out->event, &out->reason))
		out->kind = DECIDE_REFUSE;
	/* A refusal carries nothing else: a half-built event must not be
	 * mistaken for one to append. */
	if (out->kind == DECIDE_REFUSE) {
		g_clear_pointer(&out->event, ledger_event_free);
		g_clear_pointer(&out->recommendation, pending_recommendation_free);
		g_clear_pointer(&out->removal, pending_removal_free);
		g_clear_pointer(&out->binding, pending_binding_free);
		out->drop_recommendation = out->drop_removal = FALSE;
		out->drop_bindings = FALSE;
	}
}

void
decision_clear(Decision *decision)
{
	g_clear_pointer(&decision->reason, g_free);
	g_clear_pointer(&decision->detail, g_free);
	g_clear_pointer(&decision->event, ledger_event_free);
	g_clear_pointer(&decision->recommendation, pending_recommendation_free);
	g_clear_pointer(&decision->removal, pending_removal_free);
	g_clear_pointer(&decision->binding, pending_binding_free);
	decision->drop_recommendation = decision->drop_removal = FALSE;
	decision->drop_bindings = FALSE;
}
