"""Datasets and output folders: the one writer every command uses (docs/interfaces.md §0, §2).

folder.py    lock, recovery, atomic files and the atomic replacement of a folder's contents
parts.py     the Parquet parts of `wsim simulate`: columns, metadata, reading a part's header
manifest.py  the manifest written last, and `wsim check`
"""
