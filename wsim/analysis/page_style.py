"""The look every report page shares (balance, ablate, survey, rebalance, people): one style sheet,
inlined in each self-contained page. No import beyond the standard library: `wsim people`'s page
runs on the base install."""

PAGE_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 12px; margin: 0.8rem 0; }
th, td { padding: 2px 8px; text-align: right; border-bottom: 1px solid #eee; }
th:first-child, td:first-child { text-align: left; }
.note { background: #f4f6f9; padding: 0.6rem 0.9rem; border-left: 3px solid #1f4e79; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
"""
