"""Shortcuts that are not writing: pasting the email, lists of terms, fishing with many
phrasings of one point or many teams, and words that belong to other emails.

Each check says which words gave it away, so that a zero can be acted on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from inbox_triage.domain import Ticket
from inbox_triage.domain.text import (
    FUNCTION_WORDS,
    copied_ngrams,
    ngrams,
    normalise,
    sentences,
    word_coverage,
    words,
)
from inbox_triage.grading.context import Seen, seen_for
from inbox_triage.grading.lexicon import Indexed, Phrase, index, phrase, states
from inbox_triage.grading.memo import ObjectMemo
from inbox_triage.grading.stuffing import StuffingTerms, fact_groups, first_names

PASTE_THRESHOLD = 0.5
MIN_COPIED_RUNS = 4
COVERAGE_MIN_WORDS = 12
COVERAGE_LIMIT = 0.9
FOREIGN_TERMS_LIMIT = 5
SUMMARY_FOREIGN_TERMS_LIMIT = 4
WORDS_PER_FOREIGN_TERM = 12
SYNONYM_LIMIT = 4
CHOICES_LIMIT = 4  # naming this many teams or categories in one text is fishing
LIST_ITEMS = 5  # a run of this many one- or two-word items ...
LIST_SHARE = 0.6  # ... making up this share of the words in a run of LONG_RUN, or ...
LONG_RUN = 7
ALL_LIST_SHARE = 0.8  # ... this share in any runs, is a list of terms, not prose
STRUNG_ITEMS = 9  # so is this many items in lists of three or more, whatever surrounds them
SYNONYM_WINDOW = 12  # phrasings of one point this close together are fished, not written
ALIEN_IDS = 2  # ids or amounts that are not in the email: the text is about another one
QUOTED = 4  # words quoted in an explanation, at most


def as_written(text: Indexed, term: str) -> str:
    """The text's own words where it states an indexed phrasing (what a note may quote: the
    grader's phrasings of other emails stay with the grader)."""
    p = phrase(term)
    if not p.content:
        return term
    at = sorted(text.positions(*p.content[0]))
    if not at:
        return term
    return " ".join(text.tokens[at[0] : at[0] + len(p.plain.split())])


def _short(term: str, limit: int = 30) -> str:
    return term if len(term) <= limit else term[: limit - 3] + "..."


def quote(terms: Iterable[str], text: str = "") -> str:
    """A few of the words that caused a score, for a person to act on: in the order the text
    uses them."""
    lowered = text.lower()

    def place(term: str) -> tuple[int, str]:
        at = lowered.find(term.split()[0][:4])
        return (at if at >= 0 else len(lowered), term)

    items = sorted({_short(str(t)) for t in terms}, key=place)
    shown = ", ".join(f"'{t}'" for t in items[:QUOTED])
    return shown + (", ..." if len(items) > QUOTED else "")


def is_copied(text: str, ticket: Ticket, context: Seen | None = None) -> bool:
    """Pasted (most word triples appear in the customer's text) or lightly edited (nearly every
    content word of a longer text comes from it, as when every third word is dropped)."""
    source = (context or seen_for(ticket)).customer
    copied, total = copied_ngrams(text, source)
    # A short text may share a product name or two with the email; a copy shares many runs.
    if total and copied / total >= PASTE_THRESHOLD and copied >= MIN_COPIED_RUNS:
        return True
    if len(words(text)) >= COVERAGE_MIN_WORDS and word_coverage(text, source) >= COVERAGE_LIMIT:
        return True
    return _echoes(text, source)


# Whose words they are does not make them new: "my card shows two payments" told back as "your
# card shows two payments" is the customer's sentence.
_PERSON = {w: "·" for w in "i me my mine myself we us our ours you your yours yourself".split()}
ECHO_SENTENCE = 0.6  # a sentence whose word triples are mostly the customer's is theirs ...
ECHO_SHARE = 0.5  # ... and a text made of such sentences for this share of its words echoes
ECHO_MIN_WORDS = 12


def _folded(text: str) -> list[str]:
    return [_PERSON.get(w, w) for w in words(text)]


def _echoes(text: str, source: str) -> bool:
    """Whether most of a text is the customer's own sentences told back to them."""
    theirs = ngrams(_folded(source), 3)
    echoed = total = 0
    for sentence in sentences(text):
        mine = _folded(sentence)
        total += len(mine)
        triples = ngrams(mine, 3)
        if triples and len(triples & theirs) / len(triples) >= ECHO_SENTENCE:
            echoed += len(mine)
    return echoed >= ECHO_MIN_WORDS and echoed >= ECHO_SHARE * total


_ITEM_SPLIT = re.compile(r"[,;/|•\n]+|\s+(?:and|or)\s+|\s+-\s+")
_SENTENCE_END = re.compile(r"[.!?]+(?:\s+|$)")


_HYPHEN_CHAIN = re.compile(r"\w+(?:-\w+){3,}")


def _runs(text: str) -> list[list[str]]:
    """The runs of short items (three words at most) in a text's lists, sentence by sentence
    ("subpoena-court-order-deadline" is a list too)."""
    text = _HYPHEN_CHAIN.sub(lambda m: m.group().replace("-", ", "), text)
    runs: list[list[str]] = []
    for sentence in _SENTENCE_END.split(text):
        run: list[str] = []
        for item in _ITEM_SPLIT.split(sentence):
            tokens = words(item)
            if not tokens:
                continue
            if len(tokens) <= 3 and not all(t in FUNCTION_WORDS for t in tokens):
                run.append(" ".join(tokens))
            else:
                runs.append(run)
                run = []
        runs.append(run)
    return [r for r in runs if r]


def _spaced(match: re.Match[str]) -> str:
    return match.group().replace("-", " ")


def listed_terms(text: str, strung: bool = True) -> list[str]:
    """The items of a text that is a list of terms rather than writing, if it is one: mostly
    short items ("account, hacked, locked, urgent, security"), or many of them strung
    through the prose ("this bug, defect, glitch, error, fault ..."). A list inside prose
    ("usage logs, support emails, retention periods") is how people write."""
    runs = [r for r in _runs(text) if len(r) >= 3]
    items = [item for r in runs for item in r]
    listed = sum(len(item.split()) for item in items)
    # terse notes ("Double charge; Kenji Costa, VIP; card ending 5899") are lists too, but in
    # short runs around longer items
    share = listed / max(1, len(words(_HYPHEN_CHAIN.sub(_spaced, text))))
    longest = max((len(r) for r in runs), default=0)
    if len(items) >= LIST_ITEMS and (
        share >= ALL_LIST_SHARE or (share >= LIST_SHARE and longest >= LONG_RUN)
    ):
        return items
    return items if strung and len(items) >= STRUNG_ITEMS else []


def foreign_terms(text: Indexed, stuffing_terms: StuffingTerms, context: Seen) -> set[str]:
    """The indexed phrasings the text states that nothing about this email accounts for."""
    found = stuffing_terms.found_in(text)
    foreign = {t for t in found if not context.related(t)}
    # "invoice number" and "invoice" are one word from elsewhere, not two; so are "leave" and
    # "leaving"
    longest = {t for t in foreign if not any(o != t and o.startswith(t) for o in foreign)}
    stems = {t: phrase(t).stemmed for t in longest}

    def variant(t: str, o: str) -> bool:  # t is another form of o ("erasure" of "erase")
        a, b = stems[t], stems[o]
        return o != t and a.startswith(b) and (len(b) < len(a) or o < t)

    return {t for t in longest if not any(variant(t, o) for o in longest)}


_PREFIX = re.compile(r"^(?:(?:re|fwd?|aw|wg)\s*:\s*)+", re.IGNORECASE)
SUBJECT_WORDS = 3  # a subject this long, pasted into a text, states nothing of the writer's


def _subject_of(ticket: Ticket) -> str:
    return normalise(_PREFIX.sub("", ticket.subject)).strip()


def without_subject(text: str, ticket: Ticket) -> str:
    """The text less the email's subject pasted into it: what the subject's words say, a text
    that repeats them has not said ("Refund request: unwanted renewal: customer disputes a
    charge ..." states no more than the stock text after it)."""
    subject = _subject_of(ticket)
    if len(subject.split()) < SUBJECT_WORDS:
        return text
    plain = normalise(text)
    return plain.replace(f" {subject} ", " ") if f" {subject} " in plain else text


def reorders_subject(text: str, ticket: Ticket) -> bool:
    """Whether a text is the subject's words in another order ("renewal unwanted request
    refund"): not a sentence, and nothing the writer said."""
    subject = _subject_of(ticket).split()
    mine = normalise(text).split()
    if len(mine) < SUBJECT_WORDS or f" {' '.join(mine)} " in f" {' '.join(subject)} ":
        return False
    return sorted(mine) == sorted(subject) or (
        len(mine) >= SUBJECT_WORDS and set(mine) <= set(subject) and mine != subject[: len(mine)]
    )


def _first_positions(text: Indexed, p: str) -> list[int]:
    """Where a phrasing's first word occurs (by stem or as a prefix)."""
    first = phrase(p)
    word = first.plain.split()[0]
    word_stem = first.stemmed.split()[0]
    return sorted(set(text.positions(word, word_stem)))


def _contains(longer: str, shorter: str) -> bool:
    """Whether one phrasing says another and more ("reset your two-factor", "reset two-factor")."""
    a, b = phrase(longer), phrase(shorter)
    return {s for _, s in b.content} < {s for _, s in a.content}


def _fishable_of(ticket: Ticket) -> tuple[tuple[Phrase, ...], ...]:
    """Each fact group's phrasings, for the groups with enough distinct ones to fish with; an
    id or a figure ("ACC-66410", "3 days") is a fact of its own, not a phrasing."""
    groups = (
        tuple(phrase(p.lower()) for p in g if not any(ch.isdigit() for ch in p))
        for g in fact_groups(ticket)
    )
    return tuple(g for g in groups if len({p.stemmed for p in g}) >= SYNONYM_LIMIT)


_fishable = ObjectMemo(_fishable_of)


def _synonyms(text: Indexed, ticket: Ticket) -> set[str]:
    """Four or more phrasings of one point close together, each in words of its own ("hacked,
    compromised, takeover, hijacked"), is fishing; the same words spread over a long,
    specific reply are not."""
    for group in _fishable(ticket):
        distinct = {p.text for p in group if states(text, p)}
        # a phrasing found inside a longer one ("lock" in "locked") is the same point
        roots = {
            p
            for p in distinct
            if not any(o != p and (o.startswith(p) or _contains(o, p)) for o in distinct)
        }
        if len({phrase(p).stemmed for p in roots}) < SYNONYM_LIMIT:
            continue
        hits = sorted((i, p) for p in roots for i in _first_positions(text, p))
        for i, (start, _) in enumerate(hits):
            near = [(pos, p) for pos, p in hits[i:] if pos < start + SYNONYM_WINDOW]
            if len({pos for pos, _ in near}) >= SYNONYM_LIMIT and len({p for _, p in near}) >= (
                SYNONYM_LIMIT
            ):
                return {p for _, p in near}
    return set()


def _choices(text: Indexed, context: Seen) -> set[str]:
    """Which of the org's teams and categories the text names."""
    return {c for c in context.choices if states(text, phrase(c))}


_FULL_NAME = re.compile(r"\b([A-Z][a-z]+) ([A-Z][a-z'-]+)\b")


def _other_customers(
    raw: str, text: Indexed, ticket: Ticket, terms: StuffingTerms | None, context: Seen
) -> list[str]:
    """People a text names that this email does not: the inbox's other senders, or anyone
    named in full ("Chidi Obi at Vireo Health had the same trouble"). Telling one customer
    about another's mail discloses it."""
    people = terms.people if terms is not None else {}
    named = [
        name.strip()
        for name, owner in people.items()
        if owner != ticket.id and name in text.plain and name not in context.vocabulary.plain
    ]
    firsts = first_names()
    named += [
        first + " " + last.removesuffix("'s")
        for first, last in _FULL_NAME.findall(raw.replace("\u2019", "'"))
        if first.lower() in firsts
    ]
    return [n for n in named if normalise(n).rstrip() not in context.seen.plain]


def shortcut(
    text: str, ticket: Ticket, stuffing_terms: StuffingTerms | None, context: Seen, what: str
) -> tuple[str, str] | None:
    """Why a text is a shortcut rather than writing, if it is one (the checks summaries and
    replies share)."""
    if is_copied(text, ticket, context):
        doing = "summarising" if what == "summary" else "answering"
        return "pasted", f"{what} pastes the customer's message instead of {doing} it"
    listed = listed_terms(text, strung=what == "reply")
    if listed:
        return "keyword list", f"{what} is a list of terms, not sentences ({quote(listed, text)})"
    indexed = index(text)
    synonyms = _synonyms(indexed, ticket)
    if synonyms:
        shown = {as_written(indexed, t) for t in synonyms}
        return "synonyms", f"{what} lists many phrasings of one point ({quote(shown, text)})"
    choices = _choices(indexed, context)
    if len(choices) >= CHOICES_LIMIT:
        return (
            "teams",
            f"{what} names {len(choices)} teams or categories at once ({quote(choices, text)})",
        )
    alien = context.alien_ids(text)
    if len(alien) >= ALIEN_IDS or (alien and not context.details_in(indexed)):
        return (
            "another email",
            f"{what} is about another email: {quote(alien, text)} are not in this one",
        )
    others = _other_customers(text, indexed, ticket, stuffing_terms, context)
    if others:
        return "another customer", f"{what} names another customer ({quote(others, text)})"
    if stuffing_terms is not None:
        foreign = foreign_terms(indexed, stuffing_terms, context)
        base = SUMMARY_FOREIGN_TERMS_LIMIT if what == "summary" else FOREIGN_TERMS_LIMIT
        # a long, specific text touches on more in passing than a short one
        limit = max(base, len(indexed.tokens) // WORDS_PER_FOREIGN_TERM)
        if len(foreign) >= limit:
            return (
                "stuffed",
                f"{what} has {len(foreign)} terms from other emails "
                f"({quote({as_written(indexed, t) for t in foreign}, text)})",
            )
    return None
