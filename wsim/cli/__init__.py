"""The `wsim` command line. Kept empty: entry.py installs the signal handlers before anything
heavy is imported, and importing it runs this file first."""
