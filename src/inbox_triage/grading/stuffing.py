"""Which words of a text come from elsewhere: the index of other tickets' fact phrasings.

A text is stuffed when it names many things that belong to *other* emails. So the index holds
every fact phrasing the org's fixed tasks and the generator's situations use, less those that
are plain English (they occur in the mail of many situations: "report", "access", "login"),
and a phrasing found in a text is foreign only when nothing the agent was shown for this
email (its body, thread, the customer's answers, its metadata) or the decision vocabulary
accounts for it.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from inbox_triage.domain import Scenario, Ticket
from inbox_triage.domain.text import FUNCTION_WORDS, normalise, words
from inbox_triage.grading.lexicon import Indexed, Phrase, covered_by, index, phrase, states
from inbox_triage.grading.memo import ObjectMemo
from inbox_triage.scenarios import fixed_task_ids, load_task
from inbox_triage.scenarios.generator.data import (
    load_entities,
    load_entities_v2,
    load_situations,
)

# A phrasing whose words occur in the mail of at least this share of situations is ordinary
# language, not a sign of another email.
COMMON_SHARE = 0.08
# A reply phrasing that the replies of this many situations need is how support answers.
SHARED_ANSWER = 3

# Words any polite reply uses whatever the topic: a phrase made only of these (and function
# words) says nothing about which ticket it answers, so it never counts as stuffing.
GENERIC_WORDS = frozenset(
    """team teams check checking checked confirm confirmed follow following update updated
    updates review reviewed reviewing answer answered help helping look looking get back
    details detail case issue issues problem request requests support reply respond contact
    soon shortly today tomorrow thanks sorry customer customers message email mail let know
    asap right away able need needs sure send sent our us we you your arrange arranged set
    logged ticket raised open working work on""".split()
)


def is_distinctive(text: str) -> bool:
    """Whether a phrase names something specific (not only generic or function words)."""
    return any(w not in GENERIC_WORDS and w not in FUNCTION_WORDS for w in words(text))


def fact_groups(ticket: Ticket) -> tuple[tuple[str, ...], ...]:
    spec = ticket.truth.reply
    return (*ticket.truth.summary_facts, *(spec.required_facts if spec else ()))


def _phrasings(groups: Iterable[Iterable[str]]) -> set[str]:
    return {p.lower() for group in groups for p in group if "{" not in p and len(p) > 3}


def _doc(texts: Iterable[str]) -> Indexed:
    return index("\n".join(texts))


@cache
def _corpus() -> tuple[tuple[Indexed, ...], frozenset[str]]:
    """The mail of every situation (one document each) and every fixed task's ticket, and the
    fact phrasings they use: what each is about, and what a reply to it must say, less the
    ways support answers any email ("passed it on", "review", "get back to you": phrasings
    that the replies of several situations share)."""
    docs: list[Indexed] = []
    topics: set[str] = set()
    answers: dict[str, int] = {}
    for s in load_situations():
        texts = [t for f in s.families for t in (*f.subjects, *f.bodies)]
        if s.reveal:
            texts.extend(s.reveal.bodies)
        docs.append(_doc(texts))
        topics |= _phrasings(s.handling.summary_facts)
        for p in _phrasings(s.handling.reply_facts or ()):
            answers[p] = answers.get(p, 0) + 1
    for task_id in fixed_task_ids():
        for ticket in load_task(task_id).tickets:
            docs.append(_doc([ticket.subject, ticket.body, *(m.body for m in ticket.thread)]))
            topics |= _phrasings(ticket.truth.summary_facts)
            spec = ticket.truth.reply
            for p in _phrasings(spec.required_facts if spec else ()):
                answers[p] = answers.get(p, 0) + 1
    specific_answers = {p for p, n in answers.items() if n < SHARED_ANSWER}
    return tuple(docs), frozenset(topics | specific_answers)


@cache
def _stem_shares() -> dict[str, float]:
    """In what share of the corpus's documents each stem occurs."""
    docs, _ = _corpus()
    counts: dict[str, int] = {}
    for d in docs:
        for s in d.stem_at:
            counts[s] = counts.get(s, 0) + 1
    return {s: n / len(docs) for s, n in counts.items()}


def is_rare_stem(word_stem: str) -> bool:
    """Whether a word belongs to few emails ("authenticator", "subpoena"): a detail, where
    "account", "today" or "maybe" are everyday language."""
    return _stem_shares().get(word_stem, 0.0) < COMMON_SHARE


@cache
def is_common(term: str) -> bool:
    """Whether a phrasing's words occur together in the mail of many situations."""
    docs, _ = _corpus()
    p = phrase(term)
    share = sum(1 for d in docs if covered_by(p, d)) / len(docs)
    return share >= COMMON_SHARE


def _indexable(terms: Iterable[str]) -> frozenset[str]:
    return frozenset(t for t in terms if is_distinctive(t) and not is_common(t))


class StuffingTerms:
    """Phrasings that belong to some ticket's facts, indexed by how their first word starts so
    that a text is only checked against the few phrasings it could contain."""

    KEY = 3

    def __init__(
        self,
        terms: frozenset[str],
        base: StuffingTerms | None = None,
        people: dict[str, str] | None = None,
    ) -> None:
        """``base`` is a shared index (built once); ``terms`` are added on top; ``people`` are
        the scenario's senders (normalised name -> ticket id): naming one to another customer
        discloses their mail."""
        self.base = base
        self.people = people or {}
        self.own = terms - base.terms if base else terms
        self._by_key: dict[str, list[Phrase]] = {}
        for term in self.own:
            p = phrase(term)
            if p.plain:  # keyed as texts are read: "co-marketing" by "co", "2,000" by "2"
                self._by_key.setdefault(p.plain.split()[0][: self.KEY], []).append(p)

    @property
    def terms(self) -> frozenset[str]:
        """Every indexed phrase (built on demand: sessions keep only their own)."""
        return self.own | self.base.terms if self.base else self.own

    def found_in(self, text: str | Indexed) -> set[str]:
        """Every indexed phrasing the text states."""
        indexed = index(text) if isinstance(text, str) else text
        keys = {t[: self.KEY] for t in indexed.tokens} | {s[: self.KEY] for s in indexed.stems}
        by_key = self._by_key
        found = {p.text for key in keys if key in by_key for p in by_key[key] if states(indexed, p)}
        return found | self.base.found_in(indexed) if self.base else found


@cache
def _shared_index() -> StuffingTerms:
    """The index every scenario shares: the fact phrasings of every fixed task and situation,
    whatever the org (another org's facts are as foreign as a neighbour's; an org's queue and
    tag names are its vocabulary, never stuffing)."""
    return StuffingTerms(_indexable(_corpus()[1]))


def _scenario_terms(scenario: Scenario) -> StuffingTerms:
    """The shared index, and the topics of this scenario's own tickets (a pack's, say)."""
    own: set[str] = set()
    for ticket in scenario.tickets:
        own |= _phrasings(ticket.truth.summary_facts)
    people = {
        normalise(t.customer.name): t.id
        for t in scenario.tickets
        if len(t.customer.name.split()) >= 2  # a person's full name, not "Billing"
    }
    return StuffingTerms(_indexable(own), base=_shared_index(), people=people)


stuffing_terms_for = ObjectMemo(_scenario_terms)


@cache
def first_names() -> frozenset[str]:
    """The first names the generator gives people (lower case): a capitalised word after one
    is a person's surname."""
    return frozenset(
        n.lower() for n in (*load_entities().first_names, *load_entities_v2().first_names)
    )
