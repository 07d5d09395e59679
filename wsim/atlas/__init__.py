"""The balance atlas (issue 58): the whole base game's balance at every player count, as a static site."""
