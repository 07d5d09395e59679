"""People in the project: 8,357 human games as a reference, and any population's games beside them
(docs/people.md)."""
