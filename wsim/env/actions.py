"""The environments' shared words: the fixed action space (ActionLayout), their error, the
opponents a learner seat plays against, and the words every front reads from its batched core
(CoreWords)."""

from __future__ import annotations

from wsim import codes
from wsim.errors import WsimError, brief, one_of
from wsim.kernels.policy import BATCHABLE
from wsim.kernels.schema import MAX_OPTIONS

N_ACTIONS_PER_CARD = len(codes.ACTIONS)  # build, build_free, stage, discard
PURCHASE_SLOTS = MAX_OPTIONS  # a (card, action) pair's purchases, the default first
# the policies BatchedEnv.policy_actions asks for a learner seat's pick: a learned seat's model is
# read for a kernel seat, not for a pick
ASKABLE = tuple(name for name in BATCHABLE if name != "learned")


class EnvError(WsimError):
    """An action the environment cannot take, or a bad environment setting."""


def opponent_policies(opponents, count: int, choices) -> list:
    """The policy of each of a learner's `count` opponents, from one name for all or a list of
    `count` names, each one of `choices` or NAME:LABEL of one (a learned label plays the model
    file its LABEL.model names): EnvError naming `opponents` otherwise."""
    if isinstance(opponents, str):
        opponents = [opponents] * count
    if not isinstance(opponents, (list, tuple)) or len(opponents) != count:
        raise EnvError(f"opponents: a policy name, or a list of {count} (one per other seat), got {brief(opponents)}")
    for name in opponents:
        one_of(name.partition(":")[0] if isinstance(name, str) else name, "opponents", choices, EnvError)
    return list(opponents)


class CoreWords:
    """action_to_string, action_from_string and feature_names of a front over a BatchedEnv
    (`self.batched`), which answers them: every front speaks its core's ids and names."""

    def action_to_string(self, action: int) -> str:
        """The words of an action id ("build Lumber Yard", "copy left", "decline", ...), as
        OpenSpiel's action_to_string."""
        return self.batched.action_to_string(action)

    def action_from_string(self, text: str) -> int:
        """The id of action_to_string's words (EnvError for words that name no action)."""
        return self.batched.action_from_string(text)

    def feature_names(self) -> list:
        """The name of every entry of the observation vector, in order (kernels/observe.py)."""
        return self.batched.feature_names()


class ActionLayout:
    """The fixed action space: one id per (card name, action, purchase slot), then the stage-3
    neighbours, a discard build's card by name, and the decline.

        id = (name * 4 + action) * PURCHASE_SLOTS + purchase     turn moves and 7th cards
        moves_end + 0 / + 1                                      stage-3 neighbour left / right
        copy_end + name                                          a discard build takes that card
        size - 1                                                 decline (a 7th card, a discard build)
    """

    def __init__(self, n_names: int):
        self.n_names = n_names
        self.moves_end = n_names * N_ACTIONS_PER_CARD * PURCHASE_SLOTS
        self.copy_end = self.moves_end + 2
        self.size = self.copy_end + n_names + 1
        self.decline = self.size - 1

    def to_string(self, action: int, names) -> str:
        """The words of an id (names: the building names by name id): "build Lumber Yard",
        "stage Tavern purchase 2", "copy left", "take Library", "decline"."""
        if action < self.moves_end:
            pair, purchase = divmod(action, PURCHASE_SLOTS)
            name, act = divmod(pair, N_ACTIONS_PER_CARD)
            return f"{codes.ACTIONS[act]} {names[name]}" + (f" purchase {purchase}" if purchase else "")
        if action < self.copy_end:
            return "copy left" if action == self.moves_end else "copy right"
        if action < self.decline:
            return f"take {names[action - self.copy_end]}"
        return "decline"

    def from_string(self, text: str, names) -> int:
        """The id of to_string's words (EnvError for words that name no action)."""
        words = text.strip() if isinstance(text, str) else ""
        by_name = {n: i for i, n in enumerate(names)}
        if words in ("copy left", "copy right", "decline"):
            return {"copy left": self.moves_end, "copy right": self.moves_end + 1, "decline": self.decline}[words]
        head, _, rest = words.partition(" ")
        if head == "take" and rest in by_name:
            return self.copy_end + by_name[rest]
        purchase = 0
        card, sep, slot = rest.rpartition(" purchase ")
        if sep and slot.isdigit() and int(slot) < PURCHASE_SLOTS:
            rest, purchase = card, int(slot)
        if head in codes.ACTIONS and rest in by_name:
            return (by_name[rest] * N_ACTIONS_PER_CARD + codes.ACTIONS.index(head)) * PURCHASE_SLOTS + purchase
        raise EnvError(f"action: {brief(text)} names no action (e.g. 'build Lumber Yard', 'discard Tavern', "
                       "'stage Library purchase 1', 'copy left', 'take Baths', 'decline')")
