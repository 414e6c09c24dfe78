"""A content linter for generated mail: reads every text an agent can see, as a support lead
would, for the marks of machine-made mail.

It knows nothing of how the generator composes mail: it reads scenarios (any source) and
reports what a reader would trip over: a slot left unfilled, a mail signed twice, a forward
sent from the forwarded person's own address, a company domain cut mid-word, a sentence said
twice, a sender shown as something they are not, a product with a feature or a failure its
kind cannot have, a time that contradicts its words, our acknowledgement repeated or sent
where support never was, a sample name or specimen number, an official on webmail, a sender
greeting themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from inbox_triage.domain import Scenario, Ticket
from inbox_triage.scenarios.generator.data import load_entities, load_entities_v2

KINDS = (
    "unfilled_slot",
    "double_signature",
    "misnamed_forward",
    "cut_domain",
    "duplicated_sentence",
    "role_contradiction",
    "tier_contradiction",
    "product_misfit",
    "time_contradiction",
    "repeated_acknowledgement",
    "spliced_greeting",
    "answer_contradiction",
    "stock_identifier",
    "official_from_webmail",
    "self_greeting",
)
_UNFILLED = re.compile(r"\{[a-z_0-9]*\}|\[[^\[\]\n]*\|[^\[\]\n]*\]")
_SIGN_OFF = re.compile(
    r"^(thanks|thank you|many thanks|thanks again|cheers|regards|best|best regards|kind regards|"
    r"warm regards|warmly|sincerely|yours sincerely|yours faithfully|all the best|--)"
    r"[ ,.!]*(\w+[ ,.!]*)?$",
    re.I,
)
_FORWARD = "---------- Forwarded message"
# Readers' finds (issue 32): sample names and specimen numbers no real sender writes, and a
# regulator, police force, law firm or supplier writing from a webmail address.
_STOCK = re.compile(
    r"\b(?:Contoso|Fabrikam|Acme (?:Corp|Inc|Ltd)|John Doe|Jane Doe|Foo Bar)\b|"
    r"\b555[- ]01\d\d\b|\bGB29 ?NWBK\b|\b4111[ -]?1111[ -]?1111[ -]?1111\b"
)
_OFFICIAL = frozenset({"public_body", "lawyer", "vendor"})
_WEBMAIL = frozenset(
    {"gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "gmx.net"}
)
_FROM = re.compile(r"^From: (?P<name>[^<\n]+?) <(?P<addr>[^>\n]+)>", re.M)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_TIME = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_GREETING_SPLICE = re.compile(r"(P\.S\.[^\n]*?|[:;])\s+(Hi|Hello|Hey|Dear)\b[^\n.!?]{0,30},")
_SEATS = re.compile(r"\b(\d[\d,]*) (?:seats|licen[cs]es|users|user licen[cs]es)\b", re.I)
# The most seats each tier's plans carry, and plan names only the top tiers buy.
_TIER_SEATS = {"standard": 15, "premium": 60, "vip": 150}
_TOP_PLANS = re.compile(r"\bEnterprise (plan|tier|seats|licen[cs]es|contract)\b")
# Words only hardware has: a software product cannot be shipped, tracked or cracked.
_DEVICE_WORDS = re.compile(
    r"\b(tracking (number|id|code)|parcel|courier|cracked|shattered|dented|battery|"
    r"power (cable|adapter|supply)|firmware|out of the box|unboxed)\b"
)  # lower case: "The Westmarch Courier" is a newspaper; an export can be "delivered"
# Products of generator v1 that are hardware (its data gave products no kinds).
_HARDWARE_NAMES = re.compile(r"\b(Gateway|Sensor|Dock|Hub|Beacon|Tracker|Camera|Reader|Scanner)\b")
_ROLE_ADDRESSES = ("support@", "no-reply@", "noreply@")


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a reader would trip over, and where to find it again."""

    kind: str
    ticket: str
    where: str
    excerpt: str
    situation: str | None = None
    family: int | None = None
    mode: str | None = None
    split: str | None = None
    seed: int | None = None

    def line(self) -> str:
        at = f"{self.mode}/{self.split} seed {self.seed} {self.ticket}"
        origin = f"{self.situation} family {self.family}" if self.situation else "?"
        return f"{self.kind}: {origin} ({at}, {self.where}): {self.excerpt}"


Found = Callable[..., Finding]


def _clip(text: str, at: int = 0, width: int = 90) -> str:
    start = max(0, at - width // 3)
    return " ".join(text[start : start + width].split())


def _sentences(text: str) -> list[str]:
    """Sentences, read across the line breaks of wrapped text (a blank line ends one; a point
    inside an amount, "$4,278.50", does not)."""
    out = []
    for paragraph in re.split(r"\n\s*\n", text):
        out += [s for s in _SENTENCE_END.split(" ".join(paragraph.split())) if s.strip()]
    return out


def _own_part(body: str) -> str:
    """The writer's own words: before a forwarded message, without quoted lines."""
    own = body.split(_FORWARD, 1)[0]
    return "\n".join(line for line in own.splitlines() if not line.lstrip().startswith(">"))


def _slug_cut(local: str, company: str) -> bool:
    """True when a domain's name is the company's name cut a few letters short of a word's
    end ("brightmoorconsulti" for Brightmoor Consulting); whole words and real short forms
    ("yarrowpharma" for Yarrow Pharmaceuticals) are how companies do name domains."""
    words = [w for w in re.split(r"[^a-z0-9]+", company.lower()) if w]
    if not local or not "".join(words).startswith(local):
        return False
    total = ""
    for word in words:
        if len(total) + len(word) >= len(local):
            kept = len(local) - len(total)
            return 0 < len(word) - kept <= 3 and kept >= 2
        total += word
    return False


def _texts(ticket: Ticket) -> Iterator[tuple[str, str]]:
    yield "subject", ticket.subject
    yield "body", ticket.body
    for i, message in enumerate(ticket.thread):
        yield f"thread[{i}]", message.body
    if ticket.customer_reply is not None:
        yield "customer answer", ticket.customer_reply.body
    if ticket.follow_up:
        yield "follow-up", ticket.follow_up


def lint_ticket(ticket: Ticket, our_domain: str = "northwind.example") -> Iterator[Finding]:
    """Every finding in one ticket (``our_domain``: where support and staff write from)."""

    def found(kind: str, where: str, text: str, at: int = 0) -> Finding:
        return Finding(kind, ticket.id, where, _clip(text, at))

    for where, text in _texts(ticket):
        for match in _UNFILLED.finditer(text):
            yield found("unfilled_slot", where, text, match.start())
        for match in _GREETING_SPLICE.finditer(text):
            yield found("spliced_greeting", where, text, match.start())
        for sentence in _sentences(text):
            times = [int(h) for h, _ in _TIME.findall(sentence)]
            lowered = sentence.lower()
            bad = (
                ("this morning" in lowered and any(h >= 12 for h in times))
                or ("this afternoon" in lowered and any(h < 12 or h >= 19 for h in times))
                or (re.search(r"this evening|tonight", lowered) and any(h < 16 for h in times))
            )
            if bad:
                yield found("time_contradiction", where, sentence)
    own = _own_part(ticket.body)
    sign_offs = [line for line in own.splitlines() if _SIGN_OFF.match(line.strip())]
    if len(sign_offs) > 1:
        yield found("double_signature", "body", " / ".join(sign_offs))
    if _FORWARD in ticket.body:
        header = _FROM.search(ticket.body.split(_FORWARD, 1)[1])
        if header is None:
            yield found("misnamed_forward", "body", "a forward with no From: line")
        elif header["addr"].strip().lower() == ticket.sender.lower():
            yield found(
                "misnamed_forward",
                "body",
                f"forwarded from the writer's own address {ticket.sender}: {header[0]}",
            )
        elif header["name"].strip() != ticket.customer.name:
            yield found(
                "misnamed_forward", "body", f"{header[0]} (customer {ticket.customer.name})"
            )
    domain = ticket.sender.rsplit("@", 1)[-1].lower()
    if ticket.customer.company and _slug_cut(domain.split(".")[0], ticket.customer.company):
        yield found("cut_domain", "sender", f"{ticket.sender} for {ticket.customer.company}")
    for where, text in _texts(ticket):
        for match in _STOCK.finditer(text):
            yield found("stock_identifier", where, text, match.start())
    first = ticket.customer.first_name
    opening = ticket.body.lstrip().split("\n", 1)[0]
    if first and re.match(rf"(?:hi|hello|hey|dear)\s+{re.escape(first)}\b", opening, re.I):
        yield found("self_greeting", "body", f"{ticket.sender} greets {first}")
    if ticket.customer.role in _OFFICIAL and domain in _WEBMAIL:
        yield found("official_from_webmail", "sender", f"{ticket.customer.role}: {ticket.sender}")
    yield from _repeats(ticket, found)
    yield from _roles(ticket, domain, our_domain, found)
    yield from _products(ticket, found)


def _repeats(ticket: Ticket, found: Found) -> Iterator[Finding]:
    seen: dict[str, str] = {}
    first = ticket.customer.first_name.lower()  # a line that signs is not a sentence said twice
    signs = re.compile(rf"\b{re.escape(first)}\b") if first else None
    for where, text in _texts(ticket):
        if where in ("subject", "customer answer", "follow-up"):
            continue
        for sentence in _sentences(_own_part(text) if where == "body" else text):
            key = " ".join(re.findall(r"[a-z0-9']+", sentence.lower()))
            signed = signs is not None and signs.search(key) is not None
            framing = not sentence.rstrip().endswith((".", "!", "?")) or signed
            if len(key.split()) < 5 or framing:
                continue  # greeting or signing the same way twice repeats nothing
            if key in seen:
                yield found("duplicated_sentence", f"{seen[key]} and {where}", sentence)
            seen.setdefault(key, where)
    for i, message in enumerate(ticket.thread):
        if message.body.strip() and message.body.strip() in ticket.body:
            yield found("repeated_acknowledgement", f"thread[{i}] and body", message.body)
    answer = ticket.customer_reply.body if ticket.customer_reply else ""
    sentences = _sentences(answer)
    restated = [s for s in sentences[1:] if re.match(r"\s*(I have attached|I've attached)", s)]
    if restated and any("attach" in s.lower() for s in sentences[: sentences.index(restated[0])]):
        # "Attached is the screenshot. I have attached the photo and the picture": two
        # accounts of what was sent.
        yield found("answer_contradiction", "customer answer", answer)


def _roles(ticket: Ticket, domain: str, our_domain: str, found: Found) -> Iterator[Finding]:
    role = ticket.customer.role
    acks = [m for m in ticket.thread if m.sender.lower().startswith(_ROLE_ADDRESSES)]
    never_reached = ticket.truth.priority == "spam" or role not in (None, "customer")
    if acks and never_reached:
        yield found(
            "repeated_acknowledgement",
            "thread",
            f"support acknowledged {role or 'spam'} mail: {acks[0].body}",
        )
    if domain == our_domain and role in (None, "customer"):
        yield found(
            "role_contradiction",
            "sender",
            f"staff address {ticket.sender} shown as a {ticket.customer.tier} customer",
        )
    in_records = ticket.customer.known_as == "customer"  # an auto-reply from a customer's box
    if (
        role not in (None, "customer")
        and not in_records
        and (ticket.customer.account_id or ticket.customer.tier != "standard")
    ):
        yield found("role_contradiction", "customer", f"a {role} with an account or a tier")
    text = f"{ticket.subject}\n{ticket.body}"
    limit = _TIER_SEATS.get(ticket.customer.tier)
    for match in _SEATS.finditer(text):
        seats = int(match[1].replace(",", ""))
        if limit is not None and seats > limit and role in (None, "customer"):
            yield found(
                "tier_contradiction", "body", f"{ticket.customer.tier} customer with {match[0]}", 0
            )
    top = _TOP_PLANS.search(text)
    if top and role in (None, "customer") and ticket.customer.tier in ("standard", "premium"):
        yield found("tier_contradiction", "body", f"{ticket.customer.tier} customer on an {top[0]}")


def _products(ticket: Ticket, found: Found) -> Iterator[Finding]:
    text = f"{ticket.subject}\n{_own_part(ticket.body)}"
    named = {name for name in _catalogue() if re.search(rf"\b{re.escape(name)}\b", text)}
    if len(named) != 1:
        return
    product = named.pop()
    hardware = _product_kind(product) == "device"
    device_word = _DEVICE_WORDS.search(text)
    if device_word and not hardware:
        yield found("product_misfit", "body", f"{product} (software) with '{device_word[0]}'")
    for feature, kinds in _feature_kinds().items():
        if feature in text and _side(_product_kind(product)) not in kinds:
            yield found("product_misfit", "body", f"{product} with feature {feature}")


@cache
def _catalogue() -> dict[str, str]:
    """Every product name either generator version uses, with its kind (v1's products have
    none: its hardware is told by name)."""
    kinds = {
        p: "device" if _HARDWARE_NAMES.search(p) else "software" for p in load_entities().products
    }
    kinds.update({p.name: p.kind for p in load_entities_v2().products})
    return kinds


def _product_kind(name: str) -> str:
    return _catalogue()[name]


@cache
def _feature_kinds() -> dict[str, set[str]]:
    """Each catalogue feature and the side it belongs to: hardware ("device") or software (any
    other kind; software kinds share features such as sign-in and reports)."""
    out: dict[str, set[str]] = {}
    for product in load_entities_v2().products:
        for feature in product.features:
            out.setdefault(feature, set()).add(_side(product.kind))
    return out


def _side(kind: str) -> str:
    return "device" if kind == "device" else "software"


def lint_scenario(scenario: Scenario) -> Iterator[Finding]:
    """Every ticket's findings, plus the scenario's own lines and addresses used by two people."""
    our_domain = load_entities_v2().our_domain  # where support and staff write from
    for ticket in scenario.tickets:
        yield from lint_ticket(ticket, our_domain)
    lines = scenario.customer_lines
    for name in ("reveals", "follow_ups", "secret_compliance", "reopen"):
        for text in getattr(lines, name):
            for match in _UNFILLED.finditer(text):
                yield Finding(
                    "unfilled_slot", "-", f"customer lines: {name}", _clip(text, match.start())
                )
    names: dict[str, str] = {}
    for ticket in scenario.tickets:
        known = names.setdefault(ticket.customer.email, ticket.customer.name)
        if known != ticket.customer.name:
            yield Finding(
                "role_contradiction",
                ticket.id,
                "customer",
                f"{ticket.customer.email} is both {known} and {ticket.customer.name}",
            )


def summarise(findings: Iterable[Finding]) -> dict[str, int]:
    counts = dict.fromkeys(KINDS, 0)
    for finding in findings:
        counts[finding.kind] = counts.get(finding.kind, 0) + 1
    return counts
