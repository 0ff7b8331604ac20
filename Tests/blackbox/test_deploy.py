"""deploy/: the systemd units pass `systemd-analyze verify`, and the Dockerfile builds what exists."""

import re
import shutil
import subprocess

import pytest

from testkit import REPO_ROOT, herald_binary


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not on this machine")
def test_systemd_unit_verifies(tmp_path):
    unit = (REPO_ROOT / "deploy" / "herald.service").read_text()
    assert "/usr/local/bin/herald" in unit
    # Point ExecStart at the binary just built: verify checks that it exists and is executable.
    (tmp_path / "herald.service").write_text(unit.replace("/usr/local/bin/herald", str(herald_binary())))
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "herald.service")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    for setting in ("NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
                    "RestrictAddressFamilies=", "Restart=on-failure", "KillSignal=SIGTERM", "StateDirectory=herald"):
        assert setting in unit, setting


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not on this machine")
def test_worker_unit_verifies(tmp_path):
    unit = (REPO_ROOT / "deploy" / "herald-work.service").read_text()
    (tmp_path / "herald-work.service").write_text(unit.replace("/usr/local/bin/herald", str(herald_binary())))
    result = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "herald-work.service")], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    for setting in ("NoNewPrivileges=yes", "ProtectSystem=strict", "KillSignal=SIGTERM", "Restart=on-failure"):
        assert setting in unit, setting
    # Its flags are `herald work`'s.
    help_text = subprocess.run([str(herald_binary()), "work", "--help"], capture_output=True, text=True).stdout
    start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    for flag in set(re.findall(r"(--[a-z-]+)", start)):
        assert flag in help_text, f"herald-work.service uses {flag}, which `herald work --help` does not list"


def test_unit_and_dockerfile_use_flags_the_binary_has():
    help_text = subprocess.run([str(herald_binary()), "serve", "--help"], capture_output=True, text=True).stdout
    for name in ("herald.service", "Dockerfile"):
        # The lines that start herald: ExecStart= in the unit, ENTRYPOINT in the image.
        lines = [line for line in (REPO_ROOT / "deploy" / name).read_text().splitlines()
                 if line.startswith(("ExecStart=", "ENTRYPOINT"))]
        assert lines, name
        for flag in set(re.findall(r"(--[a-z-]+)", "\n".join(lines))):
            assert flag in help_text, f"{name} uses {flag}, which `herald serve --help` does not list"
    dockerfile = (REPO_ROOT / "deploy" / "Dockerfile").read_text()
    assert "USER herald" in dockerfile and "HEALTHCHECK" in dockerfile and "/healthz" in dockerfile
