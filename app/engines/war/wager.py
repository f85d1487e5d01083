"""Wager Battle: fictional chips on top of War's battles (modes `wager` and
`power_wager`). engine.py stays the battle core and calls the `Wager` variant
at the end of this module at a few hooks (variant.py); everything about chips
lives in this module.

The state of a wager game has one extra key, `wager` (a Classic state never
has it):

    chips    [per seat] bankroll, never below zero
    pot      the chip pot (antes, raises and calls of this battle, plus chips
             carried over with a pot nobody won)
    paid     [per seat] chips put into the chip pot during this battle
    stakes   [per seat] plain Double Stakes left (one per match in `wager`;
             none in `power_wager`, where the Double Stakes power doubles)
    doubled  [per seat] this battle's raise doubled by the Double Stakes power
             (power_wager; see `double_stakes`, the hook powers.py calls)
    folded   seats that folded in this battle (they left its war)
    opener   the seat that opened the previous war stage's betting (or None)
    bet      None, or the betting of the current war stage:
             {"order", "queue", "in", "raise", "moves"}: the betting order,
             who still has to act (queue[0] acts now), who is still in,
             None or {"seat", "amount", "double"}, and moves made so far

Conservation: sum(chips) + pot is the same from the first state to the end.

Betting in a war stage: the tied players who can put up their war cards bet
*before* committing them, one at a time in `order` (see `_betting_order`).
With no raise yet a player may check, raise or fold; once someone has raised
(one raise per stage) every other player still in must call or fold. When
the queue is empty the players still in put up their cards as usual; when
all but one have folded, that one takes the cards and the chips.
"""
from __future__ import annotations

from ..contract import label, log, prompt
from .core import active, commit, fail, is_out, is_seat, knock_out, name, names
from .rulings import rule
from .variant import BattleCore, Variant
from ..text import N_, NP_

MODES = ("wager", "power_wager")
ANTE = 10                       # fixed by the rule sheet ("Every player antes 10")
# Action kinds and their fields (engine.MOVE_FIELDS merges these).
FIELDS = {"check": {"type"}, "call": {"type"}, "fold": {"type"}, "raise": {"type", "double"}}
LOG_KINDS = ("ante", "bet", "chips")


def _chips(n: int) -> str:
    return NP_("{n} chip", "{n} chips", n).format(n=n)


# --------------------------------------------------------------------------
# The battle's hooks (called through `Wager` below)

def setup(s: dict) -> None:
    """A new wager game's chips (called before the first battle's ante)."""
    n = len(s["names"])
    bankroll = s["options"]["bankroll"]
    s["wager"] = {
        "chips": [bankroll] * n,
        "pot": 0,
        "paid": [0] * n,
        "stakes": [1 if s["options"]["mode"] == "wager" else 0] * n,
        "doubled": [False] * n,
        "folded": [],
        "opener": None,
        "bet": None,
    }


def copy(w: dict) -> dict:
    """A deep copy of the `wager` part of a state (for engine.copy_state)."""
    out = dict(w)
    for key in ("chips", "paid", "stakes", "doubled", "folded"):
        out[key] = list(w[key])
    bet = w["bet"]
    if bet is not None:
        out["bet"] = {"order": list(bet["order"]), "queue": list(bet["queue"]), "in": list(bet["in"]),
                      "raise": None if bet["raise"] is None else dict(bet["raise"]), "moves": bet["moves"]}
    return out


def betting(s: dict) -> bool:
    """A war stage's betting is under way (nobody owes a reveal meanwhile)."""
    return "wager" in s and s["wager"]["bet"] is not None


def start_battle(s: dict, battle_core: BattleCore) -> list[dict]:
    """Every player still in antes 10 chips into the chip pot. A player who
    cannot is bankrupt: out of the game, their chips and every card they hold
    go into this battle's pots (face down) for its winner. If nobody still in
    can pay the ante, nobody pays it this battle."""
    w = s["wager"]
    n = len(s["names"])
    w["paid"], w["doubled"], w["folded"], w["bet"] = [0] * n, [False] * n, [], None
    still_in = active(s)
    can = [p for p in still_in if w["chips"][p] >= ANTE]
    battle = s["battle"]
    if not can:
        return [rule("war.wager_nobody_can_ante", battle=battle, seats=still_in,
                     chips=[w["chips"][p] for p in still_in]),
                log("ante", N_("Nobody still in has {stake} for the ante, so nobody antes this battle.").format(stake=_chips(ANTE)),
                    battle=battle, seats=[], amount=0, pot=w["pot"])]
    for p in can:
        _pay(s, p, ANTE)
    text = (N_("Everyone antes {stake}: the chip pot holds {pot}.") if len(can) == len(still_in) else
            N_("{names} antes {stake}: the chip pot holds {pot}."))
    entries = [log("ante", text.format(names=names(s, can), stake=_chips(ANTE), pot=_chips(w["pot"])),
                   battle=battle, seats=can, amount=ANTE, pot=w["pot"])]
    if battle > 1 and "war.wager_ante" not in s["noted"]:   # (the first battle's log is the deal)
        s["noted"].append("war.wager_ante")
        entries.insert(0, rule("war.wager_ante", battle=battle, bankroll=s["options"]["bankroll"], ante=ANTE))
    broke = [p for p in still_in if p not in can]
    if not broke:
        return entries
    for p in broke:
        given = len(s["decks"][p])
        left = w["chips"][p]
        _pay(s, p, left)
        while s["decks"][p]:
            commit(s, p, s["decks"][p].pop(0), down=True)
        entries.append(log("out", N_("{name} cannot pay the ante and is bankrupt: out of the game. "
                                     "Their {n} cards and {stake} go into the pot.").format(
                                         name=name(s, p), n=given, stake=_chips(left)),
                           battle=battle, seat=p, committed=given, chips=left, bankrupt=True))
        entries.append(rule("war.wager_bankrupt", battle=battle, seat=p, cards=given, chips=left))
    entries += knock_out(s, broke)
    s["participants"] = active(s)
    if len(s["participants"]) == 1:
        return entries + battle_core.take_pot(s, s["participants"][0]) + battle_core.end_game(s, "elimination")
    return entries


def open_betting(s: dict, tied: list[int]) -> list[dict]:
    """A war stage starts among `tied` (two or more who can put up their
    cards): they bet first, in the order `_betting_order` gives."""
    w = s["wager"]
    order = _betting_order(s, tied)
    w["opener"] = order[0]
    w["bet"] = {"order": order, "queue": list(order), "in": list(order), "raise": None, "moves": 0}
    entries = []
    if "war.wager_turn_order" not in s["noted"]:
        s["noted"].append("war.wager_turn_order")
        entries.append(rule("war.wager_turn_order", battle=s["battle"], stage=s["stage"], order=order))
    entries.append(log("bet", N_("Before the war cards go down, {names} bet, in that order: {name} first.").format(
                           names=names(s, order), name=name(s, order[0])),
                       battle=s["battle"], stage=s["stage"], order=order))
    return entries


def before_reveal(s: dict, seat: int) -> None:
    """A reveal during betting is refused: the bets come first."""
    bet = s["wager"]["bet"]
    if bet is not None:
        who = bet["queue"][0]
        if seat == who:
            fail("not_your_turn", N_("Bet first: check, call, raise or fold before your war cards go down."))
        fail("not_your_turn", N_("Wait: {name} is betting before the war cards go down.").format(name=name(s, who)))


def take_chips(s: dict, winner: int) -> list[dict]:
    """The battle's winner takes the chip pot (carried chips included)."""
    w = s["wager"]
    won, w["pot"] = w["pot"], 0
    w["chips"][winner] += won
    w["paid"] = [0] * len(s["names"])
    if not won:
        return []
    return [log("chips", N_("{name} wins {stake}.").format(name=name(s, winner), stake=_chips(won)), battle=s["battle"], seat=winner, amount=won)]


def carry(s: dict) -> list[dict]:
    """Nobody won the cards: the chip pot stays with them for the next battle."""
    w = s["wager"]
    if not w["pot"]:
        return []
    return [rule("war.wager_chips_carry", battle=s["battle"], chips=w["pot"]),
            log("carry", N_("The {stake} in the chip pot stay for the next battle too.").format(stake=_chips(w["pot"])),
                battle=s["battle"], chips=w["pot"])]


def time_up(s: dict, still_in: list[int]) -> list[dict]:
    """The clock ran out mid-battle: the chips the players still in put in
    during this battle go back to them; carried chips and the chips of a
    player knocked out in this battle stay in the pot, for nobody."""
    w = s["wager"]
    back = [w["paid"][p] if p in still_in else 0 for p in range(len(s["names"]))]
    for p, amount in enumerate(back):
        w["chips"][p] += amount
        w["pot"] -= amount
    w["paid"], w["bet"] = [0] * len(s["names"]), None
    return [rule("war.wager_time_up", battle=s["battle"], seats=still_in,
                 returned=[back[p] for p in still_in], left=w["pot"])]


def end(s: dict, res: dict) -> list[dict]:
    """The result's scores are the chips each player ends with (the match
    length still decides who wins, by cards or points)."""
    w = s["wager"]
    w["bet"] = None
    res["scores"] = list(w["chips"])
    return [rule("war.wager_result", battle=s["battle"], chips=list(w["chips"]), pot=w["pot"])]


def double_stakes(s: dict, seat: int) -> None:
    """The hook for Power War's Double Stakes power in `power_wager`: from now
    to the end of this battle, `seat`'s raise is doubled (powers.py calls this
    when the power resolves)."""
    s["wager"]["doubled"][seat] = True


# --------------------------------------------------------------------------
# Betting

def _pay(s: dict, seat: int, amount: int) -> None:
    w = s["wager"]
    assert 0 <= amount <= w["chips"][seat]
    w["chips"][seat] -= amount
    w["pot"] += amount
    w["paid"][seat] += amount


def _betting_order(s: dict, tied: list[int]) -> list[int]:
    """The tied players in seat order, starting with the first one after the
    seat that opened the previous war stage's betting (going round the table);
    the match's first betting starts with the lowest seat."""
    opener = s["wager"]["opener"]
    ordered = sorted(tied)
    if opener is None:
        return ordered
    after = [p for p in ordered if p > opener]
    return after + [p for p in ordered if p <= opener]


def cap(s: dict) -> int:
    """The most a raise may be: every player still in this stage's betting can call it."""
    bet = s["wager"]["bet"]
    return min(s["wager"]["chips"][p] for p in bet["in"])


def raise_size(s: dict, seat: int, doubled: bool) -> int:
    """The raise `seat` may make now: the configured amount, doubled by Double
    Stakes, cut down to `cap` (0: nobody can raise)."""
    amount = s["options"]["raise_amount"] * (2 if doubled else 1)
    return min(amount, cap(s))


def _raises(s: dict, seat: int) -> list[tuple[bool, int]]:
    """(double, amount) of every raise `seat` may make now (none once someone has raised)."""
    w = s["wager"]
    bet = w["bet"]
    if bet["raise"] is not None or cap(s) == 0:
        return []
    if w["doubled"][seat]:                         # the Double Stakes power (power_wager)
        return [(True, raise_size(s, seat, True))]
    plain = raise_size(s, seat, False)
    out = [(False, plain)]
    doubled = raise_size(s, seat, True)
    if w["stakes"][seat] > 0 and doubled > plain:
        out.append((True, doubled))
    return out


def to_call(s: dict) -> int:
    bet = s["wager"]["bet"]
    return 0 if bet is None or bet["raise"] is None else bet["raise"]["amount"]


def actions(s: dict, seat: int) -> list[dict]:
    """The betting moves of the seat whose turn it is (nobody else has any)."""
    bet = s["wager"]["bet"]
    if bet is None or s["status"] != "playing" or bet["queue"][0] != seat:
        return []
    listed = []
    if bet["raise"] is None:
        listed.append(label({"type": "check"}, N_("Check")))
    else:
        listed.append(label({"type": "call"}, N_("Call {stake}").format(stake=_chips(to_call(s)))))
    for double, amount in _raises(s, seat):
        text = (N_("Raise to {stake} (Double Stakes)") if double else N_("Raise to {stake}")).format(
            stake=_chips(amount))
        listed.append(label({"type": "raise", "double": double}, text))
    listed.append(label({"type": "fold"}, N_("Fold")))
    return listed


def act(s: dict, seat: int, action: dict, battle_core: BattleCore) -> list[dict]:
    """One betting move by `seat` (the action's fields are already checked)."""
    if "wager" not in s:
        fail("illegal", N_("There are no chips in this game."))
    kind = action["type"]
    if kind == "raise" and not isinstance(action["double"], bool):
        fail("illegal", N_("Double Stakes is either used (true) or not (false)."))
    w = s["wager"]
    bet = w["bet"]
    if bet is None:
        fail("not_your_turn", N_("There is nothing to bet on now: players bet only in a war, before its cards go down."))
    if bet["queue"][0] != seat:
        if seat in bet["in"]:
            fail("not_your_turn", N_("It is {name}'s turn to bet.").format(name=name(s, bet["queue"][0])))
        fail("not_your_turn", N_("You are not betting in this war."))
    battle, stage = s["battle"], s["stage"]
    entries = []
    if kind == "check":
        if bet["raise"] is not None:
            fail("illegal", N_("You cannot check after a raise: call {stake} or fold.").format(stake=_chips(to_call(s))))
        entries.append(log("bet", N_("{name} checks.").format(name=name(s, seat)), battle=battle, stage=stage, seat=seat,
                           move="check", amount=0))
        bet["queue"].pop(0)
    elif kind == "call":
        if bet["raise"] is None:
            fail("illegal", N_("There is no raise to call: check instead."))
        amount = to_call(s)
        _pay(s, seat, amount)
        entries.append(log("bet", N_("{name} calls {stake}.").format(name=name(s, seat), stake=_chips(amount)), battle=battle, stage=stage,
                           seat=seat, move="call", amount=amount, pot=w["pot"]))
        bet["queue"].pop(0)
    elif kind == "raise":
        entries += _raise(s, seat, action["double"])
    else:
        entries += _fold(s, seat)
    bet["moves"] += 1
    return entries + _next(s, battle_core)


def _raise(s: dict, seat: int, double: bool) -> list[dict]:
    w = s["wager"]
    bet = w["bet"]
    if bet["raise"] is not None:
        fail("illegal", N_("There has already been a raise in this war: call it or fold."))
    offered = dict(_raises(s, seat))
    if not offered:
        fail("illegal", N_("Nobody can raise now: a player in this war has no chips left to call with."))
    if double not in offered:
        if double:
            fail("illegal", N_("You have no Double Stakes left, or it would not raise any more here."))
        fail("illegal", N_("Your Double Stakes doubles your raise this battle."))
    amount = offered[double]
    wanted = s["options"]["raise_amount"] * (2 if double else 1)
    entries = []
    if double and not w["doubled"][seat]:
        w["stakes"][seat] -= 1
        entries.append(rule("war.wager_double_stakes", battle=s["battle"], stage=s["stage"], seat=seat,
                            amount=amount, left=w["stakes"][seat]))
    if amount < wanted:
        entries.append(rule("war.wager_raise_cap", battle=s["battle"], stage=s["stage"], seat=seat,
                            wanted=wanted, amount=amount, chips=[w["chips"][p] for p in bet["in"]]))
    _pay(s, seat, amount)
    bet["raise"] = {"seat": seat, "amount": amount, "double": double}
    if "war.wager_one_raise" not in s["noted"]:
        s["noted"].append("war.wager_one_raise")
        entries.append(rule("war.wager_one_raise", battle=s["battle"], stage=s["stage"], seat=seat))
    # Everyone else still in answers it, going on round from the raiser.
    at = bet["order"].index(seat)
    round_ = bet["order"][at + 1:] + bet["order"][:at]
    bet["queue"] = [p for p in round_ if p in bet["in"]]
    text = N_("{name} raises to {stake} with Double Stakes.") if double else N_("{name} raises to {stake}.")
    entries.append(log("bet", text.format(name=name(s, seat), stake=_chips(amount)),
                       battle=s["battle"], stage=s["stage"], seat=seat, move="raise", amount=amount,
                       double=double, pot=w["pot"]))
    return entries


def _fold(s: dict, seat: int) -> list[dict]:
    w = s["wager"]
    bet = w["bet"]
    bet["queue"].pop(0)
    bet["in"].remove(seat)
    w["folded"].append(seat)
    cards_in = sum(1 for item in s["pot"] if item["seat"] == seat)
    return [log("bet", N_("{name} folds and leaves the war: their {n} cards in the pot "
                          "and {stake} stay for the winner.").format(name=name(s, seat), n=cards_in,
                                                                     stake=_chips(w["paid"][seat])),
                battle=s["battle"], stage=s["stage"], seat=seat, move="fold", amount=0),
            rule("war.wager_fold", battle=s["battle"], stage=s["stage"], seat=seat, cards=cards_in,
                 chips=w["paid"][seat])]


def _next(s: dict, battle_core: BattleCore) -> list[dict]:
    """After a betting move: all but one folded, betting over, or the next player's turn."""
    w = s["wager"]
    bet = w["bet"]
    battle, stage = s["battle"], s["stage"]
    if len(bet["in"]) == 1:
        winner = bet["in"][0]
        w["bet"] = None
        s["participants"], s["taps"] = [winner], [winner]
        entries = [rule("war.wager_all_fold", battle=battle, stage=stage, seat=winner,
                        folded=list(w["folded"]))]
        return entries + battle_core.take_pot(s, winner) + battle_core.finish_battle(s)
    if bet["queue"]:
        return []
    w["bet"] = None
    s["participants"], s["taps"] = list(bet["in"]), []
    text = N_("Bets are in: {names} put up their war cards.").format(names=names(s, bet["in"]))
    return [log("bet", text, battle=battle, stage=stage, seats=list(bet["in"]), move="done", pot=w["pot"])]


# --------------------------------------------------------------------------
# Views, prompts, timers, auto-play and the computer players

def public(s: dict, pub: dict) -> None:
    """Add the chips to a view's public part (and, while betting, wait for the bettor)."""
    w = s["wager"]
    bet = w["bet"]
    betting_ = None
    if bet is not None and s["status"] == "playing":
        turn = bet["queue"][0]
        betting_ = {"order": list(bet["order"]), "turn": turn, "in": list(bet["in"]),
                    "raise": None if bet["raise"] is None else dict(bet["raise"]),
                    "to_call": to_call(s), "cap": cap(s), "moves": bet["moves"],
                    "answered": [p for p in bet["in"] if p not in bet["queue"]]}
        pub["waiting_for"] = [turn]
    pub["wager"] = {
        "chips": list(w["chips"]),
        "pot": w["pot"],
        "paid": list(w["paid"]),
        "ante": ANTE,
        "raise_amount": s["options"]["raise_amount"],
        "stakes": list(w["stakes"]),
        "doubled": list(w["doubled"]),
        "folded": list(w["folded"]),
        "betting": betting_,
        "level": s["options"]["computer_level"],
    }


def prompt_for(s: dict, viewer) -> dict | None:
    """The prompt while a war stage's betting is under way (None otherwise)."""
    bet = s["wager"]["bet"]
    if bet is None or s["status"] != "playing":
        return None
    turn = bet["queue"][0]
    if is_seat(s, viewer) and is_out(s, viewer):
        return prompt([turn], N_("You are out of the game"))
    if viewer == turn:
        owed = to_call(s)
        speed = s["autoplay"][viewer]
        if speed:
            text = (N_("War! Your bet: call {stake} or fold (auto-play will call or fold for you at speed {speed})")
                    if owed else
                    N_("War! Your bet: check, raise or fold (auto-play will check for you at speed {speed})"))
        else:
            text = N_("War! Your bet: call {stake} or fold") if owed else N_("War! Your bet: check, raise or fold")
        return prompt([turn], text.format(stake=_chips(owed), speed=speed))
    return prompt([turn], N_("War! Waiting for {name} to bet").format(name=name(s, turn)))


def auto_move(s: dict, seat: int) -> dict:
    """What auto-play bets: check when nothing is owed; call when the call
    leaves enough chips for the next ante, otherwise fold. It never raises."""
    owed = to_call(s)
    if not owed:
        return {"type": "check"}
    return {"type": "call"} if s["wager"]["chips"][seat] - owed >= ANTE else {"type": "fold"}


def timers(s: dict, delays: dict) -> list[dict]:
    """An auto-playing seat whose turn it is to bet gets a timer (a new key per move owed)."""
    bet = s["wager"]["bet"]
    if bet is None or s["status"] != "playing":
        return []
    seat = bet["queue"][0]
    speed = s["autoplay"][seat]
    if not speed:
        return []
    return [{"key": f"bet:{seat}:{s['battle']}:{s['stage']}:{bet['moves']}:{speed}", "after": delays[speed],
             "actor": seat, "action": auto_move(s, seat), "pace": True}]


# How often each level bets carelessly on purpose: any listed move (a fold with nothing
# owed, say) instead of its judgement. Hard never does.
SLIPS = {"easy": 0.5, "standard": 0.2, "hard": 0.0}


def bot(view: dict, actions: list[dict], rng) -> dict | None:
    """A computer's bet, from its own view only (public facts: the pots, every
    bankroll, every deck's size, the face-up cards; never a hidden card). A war's
    next cards are unseen by everyone, so a hand's strength is what the view shows:
    its chance in the war (one in the players still in, more when it could survive
    another tie and a rival could not), its chips against the rivals', and the pot.

    Its judgement (`_judge`): never fold with nothing owed; call a raise unless the call
    would leave no ante and the pot is not worth that risk; raise when not already
    well ahead in chips, or when a lost war would leave a rival bankrupt, with Double
    Stakes on a big pot. Easy bets carelessly half the time (any listed move), standard
    one time in five (`SLIPS`), hard never.
    """
    if not any(a["type"] in FIELDS for a in actions):
        return None
    pub = view["public"]
    level = pub.get("options", {}).get("computer_level") or pub["wager"]["level"]
    listed = [a for a in actions if a["type"] in FIELDS]
    if rng.random() < SLIPS.get(level, 0.0):
        return rng.choice(listed)
    return _judge(view, listed)


def _judge(view: dict, listed: list[dict]) -> dict:
    by_type: dict = {}
    for a in listed:
        by_type.setdefault(a["type"], []).append(a)
    pub = view["public"]
    w = pub["wager"]
    bet = w["betting"]
    seat = view["private"]["seat"]
    chips = w["chips"][seat]
    owed = bet["to_call"]
    fold = by_type["fold"][0]
    calm = (by_type.get("check") or by_type.get("call"))[0]
    rivals = [p for p in bet["in"] if p != seat]
    decks = {p["seat"]: p["cards"] for p in pub["players"]}
    mine, depth = decks[seat], min(decks[p] for p in rivals)
    share = 1 / len(bet["in"])
    # Each player still in puts up 4 more cards now: who is then left with fewer than 4
    # cannot survive another tie.
    if depth - 4 < 4 <= mine - 4:
        share = min(1.0, share * 1.6)
    elif mine - 4 < 4 <= depth - 4:
        share *= 0.6
    if owed:
        if chips - owed >= w["ante"]:
            return calm
        # Calling would leave no ante: worth it only when the pot pays for the risk.
        return calm if share * (w["pot"] + owed) >= chips else fold
    raises = sorted(by_type.get("raise", []), key=lambda a: a["double"])
    if not raises:
        return calm
    richest = max(w["chips"][p] for p in rivals)
    poorest = min(w["chips"][p] for p in rivals)
    amount = w["raise_amount"]
    breaks = poorest - amount < w["ante"]           # a lost war would bankrupt a rival
    if chips < 3 * amount or (chips > 1.25 * richest and not breaks) or share < 1 / len(bet["in"]):
        return calm
    doubled = [a for a in raises if a["double"]]
    if doubled and (w["doubled"][seat] or pub["pot_count"] >= 12 or w["pot"] >= 40):
        return doubled[0]
    plain = [a for a in raises if not a["double"]]
    return (plain or doubled)[0]


# --------------------------------------------------------------------------
# The variant: where engine.py's battle calls in

class Wager(Variant):
    """Wager Battle's chips on top of the battle core (modes `wager`, `power_wager`)."""
    moves = FIELDS
    log_kinds = LOG_KINDS
    state_key = "wager"

    def on_deal(self, s: dict, computers: list[int]) -> None:
        if s["options"]["mode"] in MODES:
            setup(s)

    def copy_into(self, source: dict, target: dict) -> None:
        target["wager"] = copy(source["wager"])

    def battle_stakes(self, s: dict) -> list[dict]:
        return start_battle(s, self.battle_core)   # may knock out (bankrupt) or end the game

    def blocks_reveals(self, s: dict) -> bool:
        return s["wager"]["bet"] is not None   # a war stage's bets come before its cards

    def before_reveal(self, s: dict, seat: int) -> None:
        before_reveal(s, seat)

    def on_war(self, s: dict, seats: list[int]) -> list[dict]:
        return open_betting(s, seats)

    def on_carry(self, s: dict) -> list[dict]:
        return carry(s)

    def on_take(self, s: dict, winner: int) -> list[dict]:
        return take_chips(s, winner)

    def on_time_up(self, s: dict, still_in: list[int]) -> list[dict]:
        return time_up(s, still_in)

    def on_end(self, s: dict, result: dict) -> list[dict]:
        return end(s, result)

    def apply(self, s: dict, seat: int, action: dict) -> list[dict]:
        return act(s, seat, action, self.battle_core)

    def actions(self, s: dict, seat: int) -> list[dict]:
        return actions(s, seat)

    def prompt(self, s: dict, viewer) -> dict | None:
        return prompt_for(s, viewer)

    def public(self, s: dict, pub: dict) -> None:
        public(s, pub)

    def autoplay_timers(self, s: dict, delays: dict) -> list[dict]:
        return timers(s, delays)

    def bot(self, view: dict, actions: list[dict], rng) -> dict | None:
        if not any(action.get("type") in FIELDS for action in actions):
            return None
        return bot(view, actions, rng)
