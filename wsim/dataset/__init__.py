"""Datasets and output folders: the one writer every command uses (docs/interfaces.md §0, §2).
The files layer: it drives wsim/run/, which writes no file.

write.py     write_dataset: a `wsim simulate` run, planned, played part by part, committed
play.py      play_part: one part of a run played into its Parquet bytes (local and Dask)
folder.py    lock, recovery, atomic files and the atomic replacement of a folder's contents
outfile.py   a single output file (tune's, learn's, the PPO example's): checks, lock, room, atomic commit
parts.py     the Parquet parts of `wsim simulate`: columns, metadata, reading a part's header
columns.py   each column's description, and the schema versions (one per dataset)
manifest.py  the manifest written last, and `wsim check` (and its --describe)
plan.py      what a new, --overwrite or --resume run plays; a dataset's card data
summary.py   the running Summary of a run (printed at its end)
"""
