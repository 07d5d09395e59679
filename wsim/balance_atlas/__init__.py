"""The balance atlas (`wsim atlas`, docs/atlas.md): the whole base game's balance at every player count, one static site."""
