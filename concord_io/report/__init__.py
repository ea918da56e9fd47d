"""The visual report: a self-contained static page drawn from the published serving file."""

from concord_io.report.figures import STUDIES, build_report, main

__all__ = ["STUDIES", "build_report", "main"]
