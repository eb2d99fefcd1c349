"""Topic vocabularies and the sentences, headlines and comments written from them.

Articles are drawn from per-topic vocabularies poured into English sentence
patterns rich in function words, so the text is topical (Naive Bayes can
learn the category) and reads as prose to stop-word based classifiers.
Comments, related links and sponsored links are written from the same
vocabularies (:mod:`.noise`), which makes them hard noise.
"""

from __future__ import annotations

import random
import re

# ---------------------------------------------------------------------------- vocabulary
# Per topic: countable nouns, regular verbs (inflected by rule), adjectives, roles
# and organisations. Only regular verbs and plurals, so the rules stay simple.
_VOCAB = {
    "sports": {
        "N": "match season team league player goal title injury contract stadium tournament final "
        "squad transfer trophy championship victory defeat referee medal race record club "
        "fan game coach striker defender keeper point".split(),
        "V": "defeat train score sign injure celebrate qualify dominate announce replace release "
        "suspend host clinch extend".split(),
        "A": "decisive unbeaten young experienced dramatic late defensive attacking crucial "
        "disappointing impressive physical narrow historic".split(),
        "R": "coach manager captain striker goalkeeper analyst midfielder".split(),
        "O": [
            "the Premier League",
            "FIFA",
            "the Olympic committee",
            "the national team",
            "City Rovers",
            "the players' union",
            "United",
        ],
    },
    "politics": {
        "N": "election vote minister parliament bill policy campaign party senator reform budget "
        "tax law coalition candidate debate poll majority government committee amendment "
        "ballot voter mayor treaty lawmaker district region".split(),
        "V": "approve propose reject debate support criticize announce delay pass block review "
        "negotiate elect accuse challenge".split(),
        "A": "controversial conservative liberal federal political electoral unpopular bipartisan "
        "constitutional local national public fragile".split(),
        "R": "senator minister official lawmaker governor mayor adviser".split(),
        "O": [
            "the Senate",
            "the Labour Party",
            "the electoral commission",
            "the Supreme Court",
            "the finance ministry",
            "the opposition",
            "the city council",
        ],
    },
    "technology": {
        "N": "smartphone app user device chip network startup algorithm update server platform "
        "developer cloud battery screen browser robot feature engineer laptop processor "
        "hacker version password camera sensor tablet".split(),
        "V": "launch release develop install upgrade encrypt design test deploy download "
        "integrate connect update".split(),
        "A": "digital wireless open mobile faster secure artificial encrypted online powerful "
        "cheaper smart experimental".split(),
        "R": "engineer developer researcher founder analyst designer".split(),
        "O": [
            "Google",
            "Apple",
            "Microsoft",
            "Samsung",
            "a Berlin startup",
            "the open source community",
            "Intel",
        ],
    },
    "health": {
        "N": "patient doctor hospital vaccine disease treatment study symptom nurse clinic virus "
        "infection drug therapy cancer surgery trial researcher diagnosis risk dose outbreak "
        "pharmacy allergy vitamin injury".split(),
        "V": "treat diagnose prescribe recommend test infect vaccinate monitor reduce prevent "
        "improve cure recover screen".split(),
        "A": "chronic medical clinical healthy severe mild mental early contagious elderly "
        "preventive effective".split(),
        "R": "doctor nurse surgeon researcher epidemiologist pharmacist".split(),
        "O": [
            "the World Health Organization",
            "the health ministry",
            "the university hospital",
            "the national institute",
            "a team of doctors",
            "the medical council",
        ],
    },
    "business": {
        "N": "company market share investor profit bank price stock economy loss deal merger "
        "customer supplier quarter retailer factory shareholder dividend export salary "
        "contract brand startup sale wage".split(),
        "V": "invest acquire report raise merge announce expect export reduce borrow hire "
        "restructure list trade value".split(),
        "A": "quarterly annual global financial economic volatile profitable struggling strong "
        "weak fiscal cautious".split(),
        "R": "economist analyst executive investor banker trader".split(),
        "O": [
            "the central bank",
            "Wall Street",
            "the stock exchange",
            "the IMF",
            "the chamber of commerce",
            "a hedge fund",
        ],
    },
    "travel": {
        "N": "hotel flight beach airport tourist passenger island resort museum tour destination "
        "guide cruise holiday passport visa ticket village mountain trail restaurant "
        "festival route coast ferry traveler".split(),
        "V": "visit explore book delay board arrive land recommend discover reopen welcome "
        "reserve renovate".split(),
        "A": "scenic crowded remote sunny historic popular cheap luxurious quiet tropical coastal "
        "famous affordable".split(),
        "R": "guide pilot traveler hotelier blogger agent".split(),
        "O": [
            "the tourism board",
            "the national airline",
            "the airport authority",
            "UNESCO",
            "a budget airline",
            "the cruise operator",
        ],
    },
    "science": {
        "N": "scientist experiment planet telescope species discovery theory laboratory galaxy "
        "fossil molecule gene cell orbit sample ocean satellite physicist spacecraft particle "
        "temperature mission astronomer dinosaur volcano asteroid".split(),
        "V": "discover observe measure detect analyze publish confirm launch explore predict "
        "identify examine simulate".split(),
        "A": "ancient distant microscopic genetic rare unexpected chemical solar frozen remarkable "
        "theoretical".split(),
        "R": "scientist physicist astronomer biologist geologist chemist".split(),
        "O": [
            "NASA",
            "the European Space Agency",
            "a team at Oxford",
            "the Max Planck Institute",
            "the national observatory",
            "a research consortium",
        ],
    },
    "food": {
        "N": "recipe chef restaurant dish flavor ingredient kitchen menu dessert vegetable soup "
        "salad oven spice meal farmer market diner bakery cake sandwich bottle cookbook "
        "potato onion".split(),
        "V": "cook bake roast serve taste season prepare grill mix order combine slice".split(),
        "A": "fresh spicy crispy sweet savory delicious seasonal homemade organic traditional "
        "rich simple".split(),
        "R": "chef baker critic farmer owner sommelier".split(),
        "O": [
            "the Michelin Guide",
            "the farmers' market",
            "a Parisian bistro",
            "the food festival",
            "a family bakery",
        ],
    },
}
TOPICS = tuple(_VOCAB)

_FIRST = (
    "Anna José Zoë Liam Priya Kenji Maria Omar Chloé Lukas Fatima Ethan Søren Grace "
    "Mateo Aisha Noah Renée Tomás Hannah Ravi Ingrid Samuel Mei"
).split()
_LAST = (
    "Okafor García Müller Chen Novak Patel Rossi Dubois Kowalski Silva Jensen Murphy "
    "Tanaka Haddad Lindqvist Moreau Brennan Schmidt Costa Nakamura Walsh Ibrahim"
).split()
_CITIES = (
    "Lisbon Toronto Nairobi Osaka Melbourne Denver Glasgow Lyon Seville Bergen Austin "
    "Kraków Dublin Porto Seattle Mumbai Valencia Boston Hamburg Auckland"
).split()
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()

_SENTENCES = (
    (
        "The {A} {N} was {Vd} by {P}, who said that the {Ns} would {V} the {N} before the end of the "
        "year."
    ),
    "According to {P}, the {Rs} in {C} have {Vd} more than {num} {Ns} since {month}.",
    "In a statement on {day}, {O} said it would {V} its {A} {N} to meet the {A} demand.",
    "Many {Rs} believe that the {N} is not as {A} as it seems, but others are less sure.",
    "{P}, {aR} at {O}, {Vd} the {N} and warned that it could {V} the {Ns} of {num} {Ns}.",
    (
        "It is the first time that {aN} has been {Vd} in {C}, and the {Rs} are still waiting for "
        "answers."
    ),
    '"We are very {A} about the {N}," said {P}, adding that the {Ns} will be {Vd} next {month}.',
    (
        "There were {num} {Ns} at the {N} on {day}, which is more than in any of the past {small} "
        "years."
    ),
    "However, the {N} of the {N} remains {A}, and it is not yet clear when the {Ns} will {V} it.",
    "The {Rs} who {Vd} the {N} say they have no plans to {V} it again, at least for now.",
    "Since then, {O} has {Vd} {num} {A} {Ns}, most of them in {C} and {C}.",
    "For {Rs} like {P}, {aA} {N} is a reason to {V} the {N} with more care.",
    "What happens next will depend on whether the {Rs} can {V} the {N} before {month}.",
    "This is why the {R} has asked the {Rs} to {V} their {Ns} as soon as possible.",
    (
        "Some of the {Rs} that we spoke to were {A}; others told us that they had {Vd} the {N} on "
        "their own."
    ),
    "If the {N} is {Vd} in time, it will be one of the most {A} {Ns} that {C} has seen.",
    "Even so, {P} thinks that the {A} {Ns} are only part of the story.",
    "The {R} did not say how much the {N} would cost, but {O} {Vd} it in {month}.",
)
_HEADLINES = (
    "{O} {Vz} {A} {N} in {C}",
    "{P} {Vz} {Ns} after {A} {N}",
    "Why the {A} {N} could {V} {Ns} in {C}",
    "{A} {Ns} {V} the {N} as {Ns} wait",
    "How {C} {Vd} its {A} {N}",
    "{num} {Ns} that {Vd} the {N} this year",
    "{A} {N} {Vz} {Ns} across {C}",
)
_COMMENTS = (
    "I think the {N} is {A}, but nobody wants to talk about it.",
    "Great article! My {N} was {Vd} last {month} too.",
    "This is exactly why I stopped trusting the {Ns}.",
    "Does anyone know when the {N} will be {Vd}? Asking for a friend.",
    "Not sure I agree with this. The {Ns} in {C} have always been {A}.",
    "Thanks for sharing, it was a very {A} read.",
    "Well said. We need more {Ns} like this one.",
    "Same thing happened to us in {C}; the {N} was {Vd} twice!",
)
_CLICKBAIT = (
    "Doctors are stunned by this simple {N} trick",
    "{num} {Ns} you should never buy again",
    "This {A} {N} is taking {C} by storm",
    "People in {C} are switching to this {N}",
    "You won't believe what this {R} found",
    "The {A} {N} everyone is talking about",
)


# ---------------------------------------------------------------------------- words
def _plural(noun: str) -> str:
    if noun.endswith(("s", "sh", "ch", "x", "z")):
        return noun + "es"
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _past(verb: str) -> str:
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def _third(verb: str) -> str:
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _a(word: str) -> str:
    return ("an " if word[0].lower() in "aeiou" else "a ") + word


_SLOT = re.compile(r"\{(\w+)\}")


def _fill(pattern: str, topic: str, rng: random.Random) -> str:
    """One sentence: every ``{slot}`` replaced by a word drawn for the topic."""
    v = _VOCAB[topic]

    def word(m: re.Match) -> str:
        slot = m.group(1)
        if slot == "N":
            return rng.choice(v["N"])
        if slot == "Ns":
            return _plural(rng.choice(v["N"]))
        if slot == "aN":
            return _a(rng.choice(v["N"]))
        if slot == "A":
            return rng.choice(v["A"])
        if slot == "aA":
            return _a(rng.choice(v["A"]))
        if slot == "V":
            return rng.choice(v["V"])
        if slot == "Vd":
            return _past(rng.choice(v["V"]))
        if slot == "Vz":
            return _third(rng.choice(v["V"]))
        if slot == "R":
            return rng.choice(v["R"])
        if slot == "Rs":
            return _plural(rng.choice(v["R"]))
        if slot == "aR":
            return _a(rng.choice(v["R"]))
        if slot == "O":
            return rng.choice(v["O"])
        if slot == "P":
            return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
        if slot == "C":
            return rng.choice(_CITIES)
        if slot == "num":
            n = rng.choice((rng.randint(2, 99), rng.randint(100, 99_000)))
            return f"{n:,}"
        if slot == "small":
            return str(rng.randint(3, 12))
        if slot == "month":
            return rng.choice(_MONTHS)
        if slot == "day":
            return rng.choice(_DAYS)
        raise KeyError(slot)  # a typo in a pattern: fail loudly

    text = _SLOT.sub(word, pattern)
    return text[0].upper() + text[1:]


def _slug(headline: str) -> str:
    """URL slug: the first eight lowercase alphanumeric words, hyphenated."""
    return "-".join(re.findall(r"[a-z0-9]+", headline.lower())[:8])
