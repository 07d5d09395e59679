"""The report's plots, drawn with matplotlib as SVG text to inline in the HTML page.

SVG output is made deterministic (fixed id salt, no date) so that the same dataset gives the
same report, and text stays text (smaller, and searchable in the page).
"""

from __future__ import annotations

import html
import io
import re

import matplotlib

matplotlib.use("Agg")  # no display: the report is written, never shown

import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402

_STYLE = {"svg.hashsalt": "wsim", "svg.fonttype": "none", "font.size": 9, "axes.spines.top": False,
          "axes.spines.right": False}
_ROW_INCHES = 0.22
_WIDTH = 7.5
_MAIN = "#1f4e79"
_SECOND = "#c0504d"
_HOVER = "wsim-hover-"  # the gid of a row's hover target, replaced by its <title> in the SVG text


def _svg(fig, titles: list | None = None) -> str:
    """The figure as SVG text to inline; `titles`: the hover text of each row's target (_rows_svg)."""
    out = io.StringIO()
    fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = out.getvalue()
    text = text[text.index("<svg"):]  # the XML prolog and doctype do not belong inside HTML
    # the RDF block names vocabularies by URL; the page promises no external reference at all
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    if titles is None:
        return text
    # a browser shows an SVG group's first <title> child while the pointer is over the group
    return re.sub(rf'<g id="{_HOVER}(\d+)">',
                  lambda m: f'<g class="hover"><title>{html.escape(titles[int(m.group(1))])}</title>', text)


def _rows_svg(fig, ax, y, titles: list | None) -> str:
    """A figure of rows at heights `y` as SVG text, each row with its hover text `titles` (if
    given) on an invisible line across the plot's whole width: an SVG stroke of opacity 0 still
    takes the pointer (pointer-events: visiblePainted). Drawn last, once the limits are final."""
    if titles is not None:
        for i, yi in enumerate(y):
            ax.plot(ax.get_xlim(), [yi, yi], lw=14, alpha=0, solid_capstyle="butt", gid=f"{_HOVER}{i}",
                    scalex=False, scaley=False)
    return _svg(fig, titles)


def _arms(value, low, high) -> list:
    """Error-bar lengths below and above each value, never negative (an interval computed
    apart from its estimate may miss it by a rounding error)."""
    return [np.maximum(value - low, 0.0), np.maximum(high - value, 0.0)]


def _rows_figure(n: int):
    return plt.subplots(figsize=(_WIDTH, 0.9 + _ROW_INCHES * max(n, 1)))


def forest(labels: list, value, low, high, xlabel: str, reference: float | None = None,
           reference_label: str = "", band: tuple | None = None, band_label: str = "",
           titles: list | None = None) -> str:
    """Estimates with their 95% intervals, one row per label (top to bottom in the given
    order), with an optional vertical reference line (e.g. the fair share 1/N), an optional
    shaded band (low, high) (e.g. what is fair enough) and each row's hover text `titles`."""
    with plt.rc_context(_STYLE):
        fig, ax = _rows_figure(len(labels))
        y = np.arange(len(labels))[::-1]
        value, low, high = (np.asarray(a, dtype=float) for a in (value, low, high))
        if band is not None:
            ax.axvspan(*band, color="#4f8a3c", alpha=0.12, lw=0, label=band_label or None)
        ax.errorbar(value, y, xerr=_arms(value, low, high), fmt="o", color=_MAIN, ms=3.5, capsize=2, lw=1)
        if reference is not None:
            ax.axvline(reference, color=_SECOND, ls="--", lw=1, label=reference_label or None)
        if reference_label or band_label:
            ax.legend(loc="lower right", frameon=False)
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.7, len(labels) - 0.3)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", lw=0.4, alpha=0.5)
        return _rows_svg(fig, ax, y, titles)


def stacked(labels: list, parts: dict, xlabel: str, titles: list | None = None) -> str:
    """Horizontal stacked bars: for each label, the parts {name: values} laid end to end
    (mean points by category), with each row's hover text `titles`."""
    with plt.rc_context(_STYLE):
        fig, ax = _rows_figure(len(labels))
        y = np.arange(len(labels))[::-1]
        left = np.zeros(len(labels))
        colours = plt.get_cmap("tab10").colors
        for i, (name, values) in enumerate(parts.items()):
            values = np.asarray(values, dtype=float)
            ax.barh(y, values, left=left, color=colours[i % len(colours)], label=name, height=0.7)
            left += values
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.7, len(labels) - 0.3)
        ax.set_xlabel(xlabel)
        ax.legend(ncols=min(len(parts), 7), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
        return _rows_svg(fig, ax, y, titles)


def paired(labels: list, diff, low, high, low_independent, high_independent, xlabel: str,
           titles: list | None = None) -> str:
    """Paired differences with two intervals per row: the paired design's (thick) and the one
    two independent runs would give (thin, below), so the gain in precision shows; `titles`:
    each row's hover text."""
    with plt.rc_context(_STYLE):
        fig, ax = _rows_figure(len(labels))
        y = np.arange(len(labels))[::-1].astype(float)
        diff, low, high, low_i, high_i = (np.asarray(a, dtype=float)
                                          for a in (diff, low, high, low_independent, high_independent))
        ax.errorbar(diff, y - 0.2, xerr=_arms(diff, low_i, high_i), fmt="none", ecolor="#999999", lw=0.8,
                    capsize=2, label="two independent runs")
        ax.errorbar(diff, y + 0.1, xerr=_arms(diff, low, high), fmt="o", color=_MAIN, ms=3.5, lw=1.6,
                    capsize=2, label="paired (same games)")
        ax.axvline(0, color="#444444", lw=0.8)
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.7, len(labels) - 0.3)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", lw=0.4, alpha=0.5)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2, frameon=False)
        return _rows_svg(fig, ax, y, titles)


_SERIES = ("#1f4e79", "#c0504d", "#4f8a3c", "#8064a2", "#e36c09", "#4bacc6", "#7f7f7f", "#b8860b")


def forest_groups(labels: list, series: list, xlabel: str, reference=None, notes: list | None = None,
                  titles: list | None = None) -> str:
    """Several estimates per row, each with its 95% interval: `series` is a list of (name,
    value, low, high), one marker per series in each row (NaN: none), `reference` a vertical
    line (a number, or one per row: drawn as a short tick on each), `notes` a text at the right
    of each row (e.g. its verdict), `titles` each row's hover text."""
    with plt.rc_context(_STYLE):
        fig, ax = _rows_figure(len(labels) * max(1, len(series)) / 2.5)
        y = np.arange(len(labels))[::-1].astype(float)
        step = 0.7 / max(len(series), 1)
        for i, (name, value, low, high) in enumerate(series):
            value, low, high = (np.asarray(a, dtype=float) for a in (value, low, high))
            yy = y + 0.35 - step / 2 - i * step
            ax.errorbar(value, yy, xerr=_arms(value, low, high), fmt="o", ms=3, capsize=1.5, lw=0.9,
                        color=_SERIES[i % len(_SERIES)], label=name)
        if np.ndim(reference) == 0 and reference is not None:
            ax.axvline(float(reference), color="#999999", ls="--", lw=0.8)
        elif reference is not None:
            for yi, ref in zip(y, reference):
                ax.plot([ref, ref], [yi - 0.4, yi + 0.4], color="#999999", ls="--", lw=0.8)
        if notes:
            for yi, note in zip(y, notes):
                ax.text(1.01, yi, note, transform=ax.get_yaxis_transform(), va="center", fontsize=8)
        ax.set_yticks(y, labels)
        ax.set_ylim(-0.7, len(labels) - 0.3)
        ax.set_xlabel(xlabel)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(len(series), 6), frameon=False)
        ax.grid(axis="x", lw=0.4, alpha=0.5)
        return _rows_svg(fig, ax, y, titles)
