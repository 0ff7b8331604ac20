"""deploy/: the systemd units pass `systemd-analyze verify`, and the Dockerfile builds what exists and
installs, in the image it runs in, the package of every C library the binary links."""

import re
from pathlib import Path
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


def dockerfile_stages():
    """The Dockerfile's stages, each as its text from one FROM to the next."""
    text = (REPO_ROOT / "deploy" / "Dockerfile").read_text().replace("\\\n", " ")
    return re.split(r"^FROM ", text, flags=re.MULTILINE)[1:]


def installed_by(stage):
    """The packages a stage's `apt-get install` commands name."""
    return {word for line in stage.splitlines() if "apt-get install" in line
            for word in line.split("apt-get install", 1)[1].split("&&")[0].split() if not word.startswith("-")}


@pytest.mark.skipif(shutil.which("dpkg") is None or shutil.which("ldd") is None, reason="needs dpkg and ldd")
def test_the_image_installs_the_package_of_every_c_library_the_binary_links():
    # The libraries the system-library modules link (Sources/C*/module.modulemap), as the binary resolves them.
    linked = {name for path in (REPO_ROOT / "Sources").glob("C*/module.modulemap")
              for name in re.findall(r'link "([^"]+)"', path.read_text())}
    assert {"websockets", "hiredis", "crypto", "argon2"} <= linked
    resolved = dict(re.findall(r"^\s*(lib\S+?)\.so\S* => (\S+)", subprocess.run(["ldd", str(herald_binary())], capture_output=True,
                                                                               text=True, check=True).stdout, flags=re.MULTILINE))
    build, run = dockerfile_stages()[0], dockerfile_stages()[-1]

    def package_of(path):
        found = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True).stdout
        if not found and not path.startswith("/usr/"):  # /lib of a merged /usr
            found = subprocess.run(["dpkg", "-S", "/usr" + path], capture_output=True, text=True).stdout
        return found.split(":")[0]

    for name in sorted(linked) + ["curl"]:
        path = resolved.get("lib" + name)
        assert path, f"the binary does not link lib{name}: {sorted(resolved)}"
        package = package_of(path)
        assert package in installed_by(run), f"lib{name} comes from {package}, which the image it runs in does not install"
        if name != "curl":
            # The unversioned lib*.so the linker finds belongs to the -dev package, which brings the headers.
            development = package_of(str(Path(path).parent / f"lib{name}.so"))
            assert development in installed_by(build), f"the build stage does not install {development} (lib{name})"
