"""Locked, audited dependencies: the locks agree with requirements*.txt, and the audit fails on a
known vulnerability that has a fix (scripts/audit_dependencies.py, run by `make audit` and `make test`).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

AUDIT = ROOT / "scripts" / "audit_dependencies.py"
PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==([^\s;\\]+)", re.MULTILINE)


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path: Path) -> dict[str, str]:
    """name -> version of every `name==version` line of a requirements or lock file (not following -r)."""
    return {canonical(name): version for name, version in PIN.findall(path.read_text(encoding="utf-8"))}


def lock_entries(path: Path) -> dict[str, list[str]]:
    """name==version -> its hashes, for every package of a lock file."""
    entries: dict[str, list[str]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", path.read_text(encoding="utf-8")):
        match = PIN.match(block)
        if match:
            entries[f"{canonical(match[1])}=={match[2]}"] = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
    return entries


@pytest.mark.parametrize(("requirements", "lock"), [("requirements.txt", "requirements.lock"),
                                                    ("requirements-test.txt", "requirements-test.lock")])
def test_every_pin_is_in_its_lock_with_hashes(requirements: str, lock: str) -> None:
    wanted = pins(ROOT / requirements) | (pins(ROOT / "requirements.txt") if requirements != "requirements.txt" else {})
    wanted.pop("torch", None)  # installed on its own, from PyTorch's CPU index (requirements-test.txt)
    locked = pins(ROOT / lock)
    stale = {name: (version, locked.get(name)) for name, version in wanted.items() if locked.get(name) != version}
    assert stale == {}, f"{requirements} and {lock} disagree (pinned, locked); run: make lock"
    assert "torch" not in locked
    unhashed = [entry for entry, hashes in lock_entries(ROOT / lock).items() if not hashes]
    assert unhashed == []


def test_the_test_lock_installs_the_site_lock_unchanged() -> None:
    site, test = pins(ROOT / "requirements.lock"), pins(ROOT / "requirements-test.lock")
    assert {name: test.get(name) for name in site} == site


def audit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(AUDIT), *args], capture_output=True, text=True, timeout=300)


def report(tmp_path: Path, data: dict, name: str = "report.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# What pip-audit reports (`-f json`) for jinja2==3.1.2: advisories with fixed releases.
JINJA2_312 = {"dependencies": [
    {"name": "jinja2", "version": "3.1.2", "vulns": [
        {"id": "GHSA-h5c8-rqwp-cp95", "fix_versions": ["3.1.3"], "aliases": ["CVE-2024-22195"]},
        {"id": "GHSA-h75v-3vvj-5mfj", "fix_versions": ["3.1.4"], "aliases": ["CVE-2024-34064"]},
    ]},
    {"name": "markupsafe", "version": "3.0.4", "vulns": []},
], "fixes": []}


def test_a_vulnerability_with_a_fix_fails_the_audit(tmp_path: Path) -> None:
    result = audit("--pip-audit-report", report(tmp_path, JINJA2_312))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "2 known vulnerabilities with a fix in the locked dependencies:",
        "  - python: jinja2 3.1.2: GHSA-h5c8-rqwp-cp95, CVE-2024-22195: fixed in 3.1.3",
        "  - python: jinja2 3.1.2: GHSA-h75v-3vvj-5mfj, CVE-2024-34064: fixed in 3.1.4",
        "Upgrade them in requirements*.txt or package.json, then run: make lock",
    ]


def test_an_advisory_without_a_fix_warns_and_passes(tmp_path: Path) -> None:
    data = {"dependencies": [{"name": "example", "version": "1.0", "vulns": [
        {"id": "PYSEC-0000-0", "fix_versions": [], "aliases": []}]}]}
    result = audit("--pip-audit-report", report(tmp_path, data))
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["warning: python: example 1.0: PYSEC-0000-0: no fixed release yet",
                                          "audit: no known vulnerability with a fix"]


def test_npm_vulnerabilities_with_a_fix_fail_the_audit(tmp_path: Path) -> None:
    data = {"auditReportVersion": 2, "vulnerabilities": {"dompurify": {
        "name": "dompurify", "severity": "moderate", "range": "<3.2.4",
        "via": [{"url": "https://github.com/advisories/GHSA-vhxf-7vqr-mrjg"}],
        "fixAvailable": {"name": "mermaid", "version": "11.4.1"}}}}
    result = audit("--npm-audit-report", report(tmp_path, data))
    assert result.returncode == 1
    assert "  - npm: dompurify <3.2.4 (moderate): https://github.com/advisories/GHSA-vhxf-7vqr-mrjg: " \
           "fixed by mermaid 11.4.1" in result.stdout.splitlines()


def test_a_service_that_cannot_answer_is_said_and_fails_when_required(tmp_path: Path) -> None:
    pypi = report(tmp_path, {"dependencies": [
        {"name": "jinja2", "skip_reason": "Dependency not found on PyPI and could not be audited: jinja2 (3.1.6)"}]})
    npm = report(tmp_path, {"statusCode": 405, "message": "405 Method Not Allowed - POST .../audits/quick",
                            "error": {"summary": ""}}, "npm.json")
    lenient = audit("--pip-audit-report", pypi, "--npm-audit-report", npm)
    assert lenient.returncode == 0
    assert lenient.stdout.splitlines() == [
        "not audited: python: 1 of 1 packages not audited "
        "(PyPI's JSON API gave no vulnerability data for them: jinja2)",
        "not audited: npm: package-lock.json not audited (the registry's audit service: "
        "405 Method Not Allowed - POST .../audits/quick)",
        "audit: no known vulnerability with a fix (partial: see 'not audited')",
    ]
    strict = audit("--pip-audit-report", pypi, "--npm-audit-report", npm, "--require-service")
    assert strict.returncode == 2


def test_a_known_vulnerable_pin_fails_the_offline_audit(tmp_path: Path) -> None:
    """The offline half (safety-db's database, no network): a lock pinning jinja2 2.10 and PyYAML 5.3
    fails, naming each advisory and its fix; the same file with the fixed releases passes."""
    vulnerable = tmp_path / "requirements-vulnerable.txt"
    vulnerable.write_text("jinja2==2.10 \\\n    --hash=sha256:00\nPyYAML==5.3\n", encoding="utf-8")
    no_service = report(tmp_path, {"dependencies": []})
    result = audit("--pip-audit-report", no_service, "--python", str(vulnerable))
    assert result.returncode == 1, result.stdout
    source = "(safety-db 2021.7.17, advisories up to 2021-07-01)"
    lines = result.stdout.splitlines()
    assert lines[0] == f"python: 2 pins checked offline against {source[1:-1]}"
    assert f"  - python: jinja2 2.10: pyup.io-39525, CVE-2020-28493 {source}: fixed in 2.11.3" in lines
    assert f"  - python: pyyaml 5.3: pyup.io-39611, CVE-2020-14343 {source}: fixed in 5.4" in lines
    fixed = tmp_path / "requirements-fixed.txt"
    fixed.write_text("jinja2==2.11.3\nPyYAML==5.4\n", encoding="utf-8")
    assert audit("--pip-audit-report", no_service, "--python", str(fixed)).returncode == 0


def test_the_locked_set_passes_the_offline_audit(tmp_path: Path) -> None:
    torch = "torch==" + pins(ROOT / "requirements-test.txt")["torch"]
    result = audit("--pip-audit-report", report(tmp_path, {"dependencies": []}),
                   "--python", str(ROOT / "requirements-test.lock"), "--pin", torch)
    assert result.returncode == 0, result.stdout
    checked = len(lock_entries(ROOT / "requirements-test.lock")) + 1
    assert result.stdout.splitlines()[0].startswith(f"python: {checked} pins checked offline")


def test_a_known_vulnerable_pin_fails_the_real_audit(tmp_path: Path) -> None:
    """The command `make audit` runs, on a temporary requirements file pinning jinja2 3.1.2 (fixed in
    3.1.3 and later), asking PyPI: it fails, naming jinja2. Where PyPI's JSON API carries no
    vulnerability data (this workplace's network), it fails because it could not audit."""
    vulnerable = tmp_path / "requirements-vulnerable.txt"
    vulnerable.write_text("jinja2==3.1.2\n", encoding="utf-8")
    result = audit("--python", str(vulnerable), "--require-service")
    assert result.returncode != 0, result.stdout
    assert "jinja2" in result.stdout
    assert ("python: jinja2 3.1.2: " in result.stdout and "fixed in 3.1." in result.stdout) \
        or "not audited: python: 1 of 1 packages not audited" in result.stdout, result.stdout


def test_installed_packages_carry_their_bytecode() -> None:
    """The Makefile's uv installs compile .pyc files, as pip does: where PYTHONDONTWRITEBYTECODE is set
    (this machine, CI), nothing else writes them, and each of the tests' processes that imports torch
    would compile it again, about 5 s more an import."""
    import importlib.util

    import mkdocs
    import torch

    for module in (torch, mkdocs, torch.nn.functional):
        assert Path(importlib.util.cache_from_source(module.__file__)).is_file(), module.__name__
