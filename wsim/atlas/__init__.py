"""The balance atlas (`wsim atlas`): the whole base game's balance at every player count, as one static site."""
