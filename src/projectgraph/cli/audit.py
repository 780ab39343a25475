"""``projectgraph audit ADVISORIES... [--source S]... [--sources-only] [--json] [--format
text|json|sarif]``: which OSV advisories the project's code reaches.

Exit codes: 0 no finding is called or uncertain; 1 a finding is called or uncertain (as govulncheck
does); 2 a usage error (an advisory file that does not read, an unknown source).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from projectgraph import sarif
from projectgraph.audit import AuditReport, Finding, audit
from projectgraph.audit.inventory import packages
from projectgraph.audit.osv import AdvisoryError, read
from projectgraph.cli.common import emit_json, fail, report_format_options
from projectgraph.cli.project import load_graph, project_option
from projectgraph.cli.sources import check_sources, entry_points, sources_options
from projectgraph.reach import path_string

LEVELS = {"called": "error", "uncertain": "warning", "imported": "note", "required": "note"}


def _title(finding: Finding) -> str:
    advisory, package = finding.advisory, finding.package
    aliases = f" ({', '.join(advisory.aliases)})" if advisory.aliases else ""
    where = ", ".join(package.sources)
    return f"{advisory.id}{aliases}: {package.name} {package.version} [{where}]: {finding.status}"


def render(report: AuditReport) -> list[str]:
    lines = []
    for finding in report.findings:
        lines.append(_title(finding))
        if finding.advisory.summary:
            lines.append(f"  {finding.advisory.summary}")
        for answer in finding.symbols:
            label = f"the package ({answer.key})" if finding.scope == "package" else answer.key
            lines.append(f"  {label}: {answer.status}")
            if answer.status == "called":
                lines.append("    " + path_string(answer.result.path))
            elif answer.status == "uncertain":
                for u in answer.result.uncertainties:
                    at = f" {u.site.path}:{u.site.line}" if u.site else ""
                    lines.append(f"    {u.kind}: {u.reason}{at}")
        if finding.fixed:
            lines.append(f"  fixed in {', '.join(finding.fixed)}")
        if finding.unsure:
            lines.append(f"  unsure: {finding.unsure}")
    counts = report.counts
    lines.append(
        f"{report.advisories} advisories, {report.packages} packages: {len(report.findings)} findings "
        + ", ".join(f"{counts[s]} {s}" for s in counts)
    )
    return lines


def sarif_log(report: AuditReport) -> dict[str, Any]:
    rules: dict[str, sarif.Rule] = {}
    findings = []
    for finding in report.findings:
        advisory = finding.advisory
        rules.setdefault(
            advisory.id,
            sarif.Rule(
                advisory.id, advisory.summary or advisory.id, LEVELS["called"], ", ".join(advisory.aliases)
            ),
        )
        package = finding.package
        text = f"{package.name} {package.version}: {advisory.id} is {finding.status}"
        if finding.status == "called":
            text += f": {path_string(finding.path)}"
        elif finding.status == "uncertain":
            text += ": no path reaches its symbols, but something the tool could not resolve concerns them"
        site = finding.imported_at if finding.status in ("imported", "required") else None
        findings.append(
            sarif.Finding(
                advisory.id,
                LEVELS[finding.status],
                text,
                finding.path,
                finding.uncertainties,
                site=site,
                subject=finding.deciding.key,
                properties={
                    "status": finding.status,
                    "package": f"{package.ecosystem}:{package.name}@{package.version}",
                    "symbols": [s.key for s in finding.symbols],
                },
            )
        )
    return sarif.log(findings, [rules[k] for k in sorted(rules)])


@click.command("audit")
@click.argument("advisories", nargs=-1, required=True, type=click.Path(path_type=Path))
@sources_options
@project_option
@report_format_options("the report", "a result per finding")
def command(
    advisories: tuple[Path, ...],
    sources: tuple[str, ...],
    sources_only: bool,
    project: Path | None,
    as_json: bool,
    output: str,
) -> None:
    """Which OSV ADVISORIES (files or folders of OSV JSON) the project's code calls, imports, only
    requires, or may reach (uncertain); exit 1 when one is called or uncertain."""
    try:
        read_advisories = read(advisories)
    except AdvisoryError as error:
        fail(str(error))
        return
    points = entry_points(project, sources, sources_only)
    graph = load_graph(project)
    check_sources(graph, points)
    root = (project or Path.cwd()).resolve()
    report = audit(graph, read_advisories, packages(root), points.keys, points.mode)
    if output == "sarif":
        emit_json(sarif_log(report))
    elif as_json or output == "json":
        emit_json(report.to_json())
    else:
        for line in render(report):
            click.echo(line)
    raise SystemExit(report.exit_code)
