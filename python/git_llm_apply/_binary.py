"""Which `git-llm-apply` binary the API runs: the one installed with this package, else PATH."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import List, Optional

EXE = "git-llm-apply" + (".exe" if sys.platform == "win32" else "")


def _installed_with_package() -> List[Path]:
    # A wheel puts the binary in the scripts directory of the scheme it was installed with:
    # the environment's (venv, pipx, uv tool), the user's (pip --user), or `bin/` beside the
    # package for `pip install --target`.
    dirs = [sysconfig.get_path("scripts")]
    user_scheme = f"{os.name}_user"
    if sys.platform == "darwin" and sys._framework:  # type: ignore[attr-defined]
        user_scheme = "osx_framework_user"
    try:
        dirs.append(sysconfig.get_path("scripts", scheme=user_scheme))
    except KeyError:
        pass
    dirs.append(str(Path(__file__).resolve().parents[1] / "bin"))
    return [Path(d) / EXE for d in dirs if d]


def find_binary() -> Optional[str]:
    """The path of the binary to run, or None when there is none."""
    for candidate in _installed_with_package():
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(EXE)
