"""The `wsim` console script: signal handlers first, then the click application.

Installed before anything heavy is imported, so that Ctrl-C, SIGTERM and SIGHUP at any moment
from here on end the command with 130, 143 and 129 (never click's "Aborted!" and status 1), and
a closed stdout pipe (`wsim replay ... | head`) ends it quietly with 141, as for `cat`.
"""

import os
import sys

from wsim import signals

signals.install(held=True)  # first: a signal from here on is held until main() can map it


def _quiet_stdout():
    """Point stdout at /dev/null so that Python's final flush into the closed pipe stays silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv=None) -> int:
    """Run `wsim ARGV`; returns the exit status (see wsim.cli.app for what each status means)."""
    try:
        signals.install()  # again, for a second call in one process (tests), then
        signals.release()  # the signals held since the import are acted on here, inside the try
        from wsim.cli.app import PipeClosed, main as app
        import click

        try:
            result = app.main(args=argv, prog_name="wsim", standalone_mode=False)
        except click.exceptions.Abort as e:
            # click's name for a KeyboardInterrupt while parsing, but also for any EOFError, which
            # is no interrupt: an EOFError no command mapped is a bug of wsim, shown as one
            if isinstance(e.__cause__, EOFError):
                raise e.__cause__ from None
            signals.swallowed()
            sys.stderr.write("\ninterrupted\n")
            return 130
        except click.ClickException as e:
            e.show()
            return e.exit_code
        except PipeClosed:
            _quiet_stdout()
            return 141
        late = signals.swallowed()  # a signal lost inside a C callback still ends with its status
        if late is not None:
            return 128 + late
        return result if isinstance(result, int) else 0
    except (KeyboardInterrupt, signals.Terminated, Exception) as e:
        # before the group maps them (its import, say): a signal, dressed or not (signals.behind)
        signum = signals.behind(e)
        if signum is None:
            raise
        sys.stderr.write(f"\n{signals.stop_text(signum)}\n")
        return 128 + signum


def run():
    """Console-script target: exit with main()'s status."""
    sys.exit(main())
