"""Storm War's computer player: `bot(view, actions, rng)` sees only its own seat's
view and the actions on offer, and picks a move a student would recognise.

Two levels (the `computer_level` option):

* easy: builds its Jobsite, challenges only with a lead of 2 on the table as it
  is, helps its own failing challenge with the cards in hand, and never plays
  Chaos against anyone else nor games the donations.
* standard: challenges as soon as its Jobsite plus the helping cards in its hand
  can win; shields a thin challenge with Hero Block; spoils a rival's winning
  challenge with the cheapest card that does it (a shielded rival gets the
  cheapest card first, as bait); cancels the card that decides a challenge with
  Hero Block; slows down whoever leads (skipped turns, missed draws, lost cards);
  donates to a challenge that fails anyway (two free cards, the BMP comes back);
  draws cards when a card offers them; and covers its own spoiler with a card
  that is useless to it, so a Hero Block cancels that one instead.

Every estimate reads public card text (content) and the public view: the
challenger's margin is its defense minus the risk, plus what the live cards on
the Respond stack will do once everyone has passed.
"""
from __future__ import annotations

from . import content
from .content import BASE_LIMITS

SECTIONS = ("bmp", "chaos", "mentor", "tools")
THIN_LEAD = 3          # a challenge this close is worth a Hero Block shield in Management
TEMPO_OPS = ("skip_turn", "miss_draw")


# --------------------------------------------------------------------------
# Reading the view

def _effects(key: str) -> list[dict]:
    return content.card(key).get("effects", [])


def _ops(key: str) -> set[str]:
    return {e["op"] for e in _effects(key)}


def _site(public: dict, seat: int) -> dict:
    return public["players"][seat]["jobsite"]


def _site_cards(public: dict, seat: int) -> list[dict]:
    j = _site(public, seat)
    return [c for sec in SECTIONS for c in j[sec]]


def _find(public: dict, cid: str) -> tuple[int, str, dict] | None:
    """(owner, section, card) of a face-up Jobsite card."""
    for p in public["players"]:
        for sec in SECTIONS:
            for c in p["jobsite"][sec]:
                if c["id"] == cid:
                    return p["seat"], sec, c
    return None


def _limits_without(cards: list[dict]) -> dict:
    """A Jobsite's section limits from the capacity cards that stay on it."""
    limits = dict(BASE_LIMITS)
    for c in cards:
        for e in _effects(c["key"]):
            if e["op"] == "capacity":
                limits[e["section"]] = max(limits[e["section"]], e["limit"])
            elif e["op"] == "team_up":
                limits["mentor"] = max(limits["mentor"], 2)
    return limits


def _removal_loss(public: dict, seat: int, leaving: set[str], risk: str) -> int:
    """Defense in `risk` that `seat` loses when the cards `leaving` go: the cards
    themselves, a Tool riding a leaving Mentor, and the weakest excess cards the
    owner must discard once a capacity bonus among them has gone."""
    j = _site(public, seat)
    leaving = set(leaving) | {slot["id"] for slot in j["tools"] if slot["on"] in leaving}
    gone = [c for c in _site_cards(public, seat) if c["id"] in leaving]
    staying = [c for c in _site_cards(public, seat) if c["id"] not in leaving]
    loss = sum(c.get("defense", {}).get(risk, 0) for c in gone)
    limits = _limits_without(staying)
    for sec in SECTIONS:
        left = sorted((c.get("defense", {}).get(risk, 0) for c in j[sec] if c["id"] not in leaving))
        loss += sum(left[:max(0, len(left) - limits[sec])])
    return loss


def _swing(public: dict, key: str, choices: dict, player: int) -> int:
    """How much a one-time card moves the open challenge's margin once it resolves
    (+ helps the challenger, - hurts), read from the card's printed effects."""
    ch = public["challenge"]
    challenger, risk = ch["seat"], ch["risk"]
    target = choices.get("target", challenger)
    total = 0
    for e in _effects(key):
        op = e["op"]
        if op == "defense":
            helped = challenger if e["target"] == "challenger" else player
            if helped == challenger and choices.get("risk", e["risk"]) == risk:
                total += e["amount"]
        elif op == "risk":
            hit = risk if e["risk"] == "challenged" else choices.get("risk", e["risk"])
            if hit == risk:
                total -= e["amount"]
        elif op == "perfect":
            owner = choices.get("jobsite")
            if owner is not None:
                total += max((c["defense"].get(risk, 0) for c in _site(public, owner)["bmp"]), default=0)
        elif op in ("remove", "overbudget") and target == challenger:
            picked = {x for x in (choices.get("pick"), choices.get("tool"), choices.get("mentor")) if x}
            total -= _removal_loss(public, challenger, picked, risk)
        elif op == "discard" and e["from"] == "bmp" and e["who"] == "each_other" and player != challenger:
            # The challenger gives up the BMP worth least to them (at best a 0).
            total -= min((c["defense"].get(risk, 0) for c in _site(public, challenger)["bmp"]), default=0)
    return total


def _margin(public: dict) -> int:
    """The challenger's defense minus the risk, counting the live cards on the stack."""
    ch = public["challenge"]
    margin = ch["defense"] - ch["risk_value"]
    for x in ch["stack"]:
        if not x["cancelled"]:
            margin += _swing(public, x["key"], x["choices"], x["seat"])
    return margin


def _leaders(public: dict, me: int) -> list[int]:
    """The rivals with the most Environments, when they have at least as many as me."""
    claimed = {p["seat"]: len(p["claimed"]) for p in public["players"]}
    best = max(claimed[p] for p in claimed if p != me)
    return [p for p in claimed if p != me and claimed[p] == best and best >= claimed[me]]


# --------------------------------------------------------------------------
# The move

def bot(seen: dict, offered: list[dict], rng) -> dict | None:
    if not offered:
        return None
    public, private = seen["public"], seen["private"]
    me = private["seat"]
    by_type: dict[str, list[dict]] = {}
    for a in offered:
        by_type.setdefault(a["type"], []).append(a)
    hand = {c["id"]: c for c in private.get("hand", [])}
    if "choose" in by_type:
        # Give up the card worth least (its total defense; chaos cards count 2).
        def worth(a):
            c = hand.get(a["card"]) or (_find(public, a["card"]) or (None, None, {}))[2]
            return (sum(c.get("defense", {}).values()) if "defense" in c else 2, a["card"])
        return min(by_type["choose"], key=worth)
    standard = public["options"]["computer_level"] != "easy"
    if public["phase"] == "respond" and "pass" in by_type:
        return _respond(public, by_type, hand, me, standard)
    return _manage(public, by_type, hand, me, standard, offered)


def _help_in_hand(public: dict, hand: dict, me: int, risk: str) -> int:
    """What the helping one-time cards in hand would add to my own challenge of `risk`."""
    total = 0
    for c in hand.values():
        if c["type"] != "chaos":
            continue
        best = 0
        for e in _effects(c["key"]):
            if e["op"] == "defense" and e["amount"] > 0 and e["risk"] in (risk, "choose"):
                best += e["amount"]
            elif e["op"] == "risk" and e["amount"] < 0 and e["risk"] in (risk, "challenged", "choose"):
                best -= e["amount"]
            elif e["op"] == "perfect":
                best += max((b["defense"].get(risk, 0) for p in public["players"]
                             for b in p["jobsite"]["bmp"]), default=0)
        total += best
    return total


def _manage(public: dict, by_type: dict, hand: dict, me: int, standard: bool, offered: list[dict]) -> dict:
    for kind in ("apply", "equip"):
        if kind in by_type:
            return max(by_type[kind], key=lambda a: (sum(hand[a["card"]].get("defense", {}).values()), a["card"]))
    if "sue" in by_type:
        return by_type["sue"][0]
    if "degrader" in by_type and not public["demo"]:
        return by_type["degrader"][0]
    if "upgrade" in by_type:
        mine = _site(public, me)

        def gain(a):
            out = next((c for sec in SECTIONS for c in mine[sec] if c["id"] == a["out"]), {})
            if out and _ops(out["key"]) & {"capacity", "team_up"}:
                return -1     # its bonus holds the section open: swapping it out would cost cards
            return sum(hand[a["card"]].get("defense", {}).values()) - sum(out.get("defense", {}).values())
        best = max(by_type["upgrade"], key=gain)
        if gain(best) > 0:
            return best
    if "challenge" in by_type:
        defense = _site(public, me)["defense"]
        placed = public["degrader"] is not None and public["degrader"]["by"] == me
        risks = public["environment"]["risks"] if placed else public["effective_risks"]
        margin = {a["risk"]: defense[a["risk"]] - risks[a["risk"]] for a in by_type["challenge"]}
        # Standard counts the helping cards in its hand; easy waits for a lead of 2 on the table.
        helped = {r: m + (_help_in_hand(public, hand, me, r) if standard else 0) for r, m in margin.items()}
        best = max(by_type["challenge"], key=lambda a: (helped[a["risk"]], margin[a["risk"]], a["risk"]))
        if helped[best["risk"]] >= (0 if standard else 2):
            if standard and "shield" in by_type and not public["demo"] and helped[best["risk"]] < THIN_LEAD:
                return by_type["shield"][0]     # a thin lead: the first spoiler against it is cancelled
            return best
    return (by_type.get("skip") or offered)[0]


def _respond(public: dict, by_type: dict, hand: dict, me: int, standard: bool) -> dict:
    ch = public["challenge"]
    margin = _margin(public)
    plays = by_type.get("play", [])
    passing = by_type["pass"][0]

    def swing(a):
        return _swing(public, hand[a["card"]]["key"], a, me)

    if ch["seat"] == me:
        if margin < 0:
            block = _hero_block(public, plays, hand, lambda x: x < 0)
            if block and margin - block[1] >= 0:
                return block[0]
            helpful = [a for a in plays if swing(a) > 0]
            enough = [a for a in helpful if margin + swing(a) >= 0]
            if enough:                       # the smallest card that wins it, the rest kept
                return min(enough, key=lambda a: (swing(a), a["card"]))
            if helpful:
                return max(helpful, key=lambda a: (swing(a), a["card"]))
        return (_extras(public, plays, hand, me) if standard and not public["demo"] else None) or passing
    if public["demo"] or not standard:
        return passing   # the practice rival and the easy rival never attack a challenge nor game the donations
    if margin >= 0:
        spoil = _spoil(public, plays, hand, me, margin)
        if spoil:
            return spoil
    else:
        decoy = _decoy(public, plays, hand, me)
        if decoy:
            return decoy
        donations = by_type.get("donate", [])   # a failing challenge hands the BMP back: 2 free cards
        if donations:
            def given(a):
                found = _find(public, a["card"])
                return found[2].get("defense", {}).get(ch["risk"], 0) if found else 0
            cheapest = min(donations, key=lambda a: (given(a), a["card"]))
            if margin + given(cheapest) < 0:
                return cheapest
    return _extras(public, plays, hand, me) or passing


def _hero_block(public: dict, plays: list[dict], hand: dict, wanted) -> tuple[dict, int] | None:
    """Hero Block and the swing of the card it would cancel (the last live one that is
    not a Hero Block), when that swing is one `wanted`."""
    block = next((a for a in plays if "block" in _ops(hand[a["card"]]["key"])), None)
    if block is None:
        return None
    live = [x for x in public["challenge"]["stack"] if not x["cancelled"] and "block" not in _ops(x["key"])]
    if not live:
        return None
    last = _swing(public, live[-1]["key"], live[-1]["choices"], live[-1]["seat"])
    return (block, last) if wanted(last) else None


def _spoil(public: dict, plays: list[dict], hand: dict, me: int, margin: int) -> dict | None:
    """A rival's challenge would succeed: the cheapest card that makes it fail, or the
    strongest one when no single card does (the next may finish the job)."""
    block = _hero_block(public, plays, hand, lambda x: x > margin)
    if block:
        return block[0]                      # cancelling their helping card is enough
    hostile = [(a, _swing(public, hand[a["card"]]["key"], a, me)) for a in plays]
    hostile = [(a, s) for a, s in hostile if s < 0]
    if not hostile:
        return None
    if public["players"][public["challenge"]["seat"]]["shield"]:
        # Their Hero Block cancels the first card against them: bait it with the weakest.
        return max(hostile, key=lambda x: (x[1], x[0]["card"]))[0]
    enough = [(a, s) for a, s in hostile if margin + s < 0]
    if enough:
        return max(enough, key=lambda x: (x[1], x[0]["card"]))[0]
    return min(hostile, key=lambda x: (x[1], x[0]["card"]))[0]


def _decoy(public: dict, plays: list[dict], hand: dict, me: int) -> dict | None:
    """My spoiler is the last live card on the stack: cover it with a card that does
    nothing for me here (a "your Jobsite" boost while someone else challenges), so
    a Hero Block played now cancels the decoy and not the spoiler."""
    ch = public["challenge"]
    live = [x for x in ch["stack"] if not x["cancelled"]]
    if not live or live[-1]["seat"] != me or _swing(public, live[-1]["key"], live[-1]["choices"], me) >= 0:
        return None
    decoys = [a for a in plays if _ops(hand[a["card"]]["key"]) == {"defense"}
              and all(e["target"] == "self" for e in _effects(hand[a["card"]]["key"]))]
    return min(decoys, key=lambda a: a["card"]) if decoys else None


def _extras(public: dict, plays: list[dict], hand: dict, me: int) -> dict | None:
    """Plays that do not decide this challenge: free cards, and slowing the leader."""
    ch = public["challenge"]
    players = public["players"]
    leaders = _leaders(public, me)
    challenger = ch["seat"]
    closing = challenger != me and _margin(public) >= 0   # a rival is about to claim an Environment
    # The leaders first: a card that may pick its target hits whoever is ahead.
    for a in sorted(plays, key=lambda a: (a.get("target", challenger) not in leaders, a["card"])):
        key = hand[a["card"]]["key"]
        ops = _ops(key)
        target = a.get("target", challenger)
        effects = _effects(key)
        if ops == {"draw"}:
            each = any(e["who"] == "each" for e in effects)
            # Drawing for everyone helps most the trainee shortest of cards.
            if not each or players[me]["hand"] <= min(p["hand"] for p in players):
                return a
        elif ops <= set(TEMPO_OPS) and target != me and (target in leaders or (closing and target == challenger)):
            if "miss_draw" in ops and players[target]["miss_draw"]:
                continue                      # one missed draw is pending already: it would not stack
            return a
        elif ops == {"discard"}:
            e = effects[0]
            if e["who"] == "challenger" and challenger != me and (challenger in leaders or closing):
                return a                      # the challenger loses a card from hand
            if e["who"] == "each_other" and any(p["jobsite"]["bmp"] for p in players if p["seat"] != me):
                return a                      # every rival loses a BMP
        elif ops == {"remove"} and target != me and target != challenger and target in leaders:
            # A capacity card whose loss forces the leader to discard more is worth a card.
            pick = _find(public, a["pick"])
            if pick and _ops(pick[2]["key"]) & {"capacity", "team_up"} and \
                    _removal_loss_cards(public, target, {a["pick"]}) > 1:
                return a
    return None


def _removal_loss_cards(public: dict, seat: int, leaving: set[str]) -> int:
    """How many cards `seat` loses when `leaving` goes (itself, riding Tools, excess)."""
    j = _site(public, seat)
    leaving = set(leaving) | {slot["id"] for slot in j["tools"] if slot["on"] in leaving}
    staying = [c for c in _site_cards(public, seat) if c["id"] not in leaving]
    limits = _limits_without(staying)
    return len(leaving) + sum(max(0, len([c for c in j[sec] if c["id"] not in leaving]) - limits[sec])
                              for sec in SECTIONS)

