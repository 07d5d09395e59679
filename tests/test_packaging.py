"""The package as a user installs it: a built wheel holds every subpackage (pyproject's list is
checked in tests/test_layout.py), its data and its type marker, and a clean venv imports every
public name from it."""

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.system
def test_a_wheel_installs_in_a_clean_venv_and_imports_every_public_name(tmp_path):
    # built from a copy: setuptools reuses a source tree's build/ folder, whose stale files would
    # hide a package missing from pyproject's list
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".*", "build", "dist", "results", "*.egg-info",
                                                                  "__pycache__", "*.nbi", "*.nbc"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(tmp_path / "dist")],
                   check=True, capture_output=True, cwd=tmp_path)
    wheel = next((tmp_path / "dist").glob("wsim-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True)
    # the dependencies come from this venv's site-packages on PYTHONPATH (whose .pth files, this
    # checkout's editable install among them, are not read): wsim itself only from the wheel
    code = ("import wsim, wsim.kernels.layout\n"
            "from pathlib import Path\n"
            "assert Path(wsim.__file__).is_relative_to(Path(__import__('sys').prefix)), wsim.__file__\n"
            "names = [getattr(wsim, n) for n in wsim.__all__]\n"
            "from wsim.env import wonders_v1\n"
            "from wsim.tables import load\n"
            "load(None)\n"
            "root = Path(wsim.__file__).parent\n"
            "assert (root / 'py.typed').exists() and (root / 'kernels' / 'layout.pyi').exists()\n"
            "print(len(names))\n")
    run = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=tmp_path,
                         env={"PYTHONPATH": sysconfig.get_paths()["purelib"], "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert int(run.stdout) == len(re.findall(r'"(\w+)": "wsim\.', (ROOT / "wsim" / "__init__.py").read_text())) + 2
