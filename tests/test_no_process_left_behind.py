"""The suite's own guard (tests/conftest.py): a run that leaves a process behind fails, naming it, and kills it."""

import os
import subprocess
import sys

import pytest

from tests.helpers import REPO
from tests.helpers.processes import HAS_PROC, alive

LEAKING = '''
import subprocess, sys

def test_leaves_an_orphan():
    # A grandchild whose parent leaves at once: init adopts it, as it adopted serve's worker.
    subprocess.run([sys.executable, "-c",
                    "import subprocess, sys; print(subprocess.Popen(['sleep', '600']).pid, flush=True)"])
'''


@pytest.mark.slow
@pytest.mark.skipif(not HAS_PROC, reason="reads /proc")
def test_a_run_that_leaves_a_process_behind_fails(tmp_path):
    (tmp_path / "test_leak.py").write_text(LEAKING)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:randomly", "-p", "no:cacheprovider",
                          "-n", "0", "-q", "-s", str(tmp_path / "test_leak.py")],
                         cwd=REPO, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO), COMPANION_TEST_LEAVE_SECONDS="1"))
    orphan = int(next(line for line in run.stdout.splitlines() if line.strip().isdigit()))
    assert run.returncode != 0
    assert "processes outlived the test run" in run.stdout and f"{orphan}: sleep 600" in run.stdout
    assert not alive(orphan)
