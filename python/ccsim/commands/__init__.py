"""Subcommands of the `ccsim` CLI, one module each.

A module here that defines `register(subparsers)` is picked up by `ccsim.cli`. `register`
adds its parser with `subparsers.add_parser(NAME, help=..., description=..., epilog=EXAMPLES,
formatter_class=argparse.RawDescriptionHelpFormatter)` and sets `func=handler`; the handler
takes the parsed arguments and returns the exit status. Raise `CliError` (or let
`ccsim.ScenarioError` through) for a problem with the user's input: the CLI prints
`error: MESSAGE` and exits with status 2. An optional module-level `ORDER` (default 100)
places the command in `ccsim --help`. Name the module after its command: `ccsim NAME ...`
loads only module NAME (the others cost start-up time, which `ccsim bench` measures).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import pkgutil
import sys
from types import ModuleType


class CliError(Exception):
    """A problem with what the user asked for: printed as `error: ...`, exit status 2."""


class Parser(argparse.ArgumentParser):
    """Usage errors print as `error: ...` like every other user error."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(2, f"error: {message}\n")


def discover(only: str | None = None) -> list[ModuleType]:
    """The command modules, or just module `only` if there is one by that name."""
    if only is not None and only.isidentifier() and not only.startswith("_") and importlib.util.find_spec(f"{__name__}.{only}") is not None:
        # Without listing the package: `pkgutil.iter_modules` imports `inspect` (5 ms).
        names = [only]
    else:
        names = [info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")]
    modules = []
    for name in names:
        module = importlib.import_module(f"{__name__}.{name}")
        if hasattr(module, "register"):
            modules.append(module)
    modules.sort(key=lambda m: (getattr(m, "ORDER", 100), m.__name__))
    return modules
