"""The code blocks of the Markdown docs, run as tests (tests/test_docs.py).

A document's fenced blocks run in order, in a fresh folder holding a copy of `scenarios/`,
so that one block can use what an earlier one wrote. By the block's language:

- `sh`, `bash`: each command (a line, with `\\` continuations) runs in bash and must exit 0;
  the output of the block's last command is kept for an `output` block that follows.
- `python`: executed in one namespace per document, as a script (`__name__ == "__main__"`).
- `toml`: must parse; a scenario (it has `duration`) must also pass every check of a run
  (`ccsim.show.expand`); a sweep file (it has `scenario`) must name its base scenario.
- `sql`: run with DuckDB's Python module.
- no language, starting with `$ `: a transcript: the command runs (any exit status) and
  what it prints must be the lines that follow.
- no language, starting with `ccsim `: a synopsis: every `--option` in it must be an
  option of that command's `--help`.
- `rust`: see the directives; otherwise not run (a failure says so).
- other blocks with no language (trees, formulas) are not code and are not run.

Directives, in an HTML comment on the line before the fence (invisible on GitHub):

- `<!-- doc-test: skip REASON -->`: an illustration; not run (the reason is required).
- `<!-- doc-test: requires PROGRAM -->`: skipped with a reason when PROGRAM is missing.
- `<!-- doc-test: output -->`: the printed output of the previous block's last command;
  `<!-- doc-test: output of: COMMAND -->` runs COMMAND for it. Compared after the wall-clock
  parts (`in 0.84 s`, `14.2 M events/s`) and the memory a resource guard found free are
  replaced by placeholders; a last line `...`
  matches whatever follows.
- `<!-- doc-test: file PATH -->`: write the block to PATH in the document's folder.
- `<!-- doc-test: excerpt PATH -->`: every line of the block (but `// ...` lines) is a
  line of PATH in the repository (spacing aside).
- `<!-- doc-test: crate-file PATH -->`, `crate-append PATH`, `crate-insert PATH after TEXT`:
  for a tutorial that changes the Rust core: write, append or insert (after the line
  holding TEXT) the block in a copy of the
  workspace (made once per document); an `sh` block whose commands start with `cargo`
  runs in that copy, with the repository's target folder for the dependencies.

With CCSIM_DOCS_UPDATE=1 in the environment, `output` blocks that differ are rewritten in
the document with what the commands print now, and the test passes.

Time allowed: a command `COMMAND_TIMEOUT` seconds, a `cargo` command of a tutorial that
changes the core `CARGO_TIMEOUT` (it compiles the workspace copy); a whole document
`time_allowed(doc)`, which tests/test_docs.py gives pytest as the test's timeout. Those
`cargo` commands run only when asked (`run_document(..., cargo=True)`): without, every other
block runs and the commands are listed in `Run.cargo_skipped`.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Seconds one command of a block may take; also pytest's timeout of a document without
#: cargo commands (pyproject.toml's `timeout`).
COMMAND_TIMEOUT = 600
#: Seconds a tutorial's `cargo` command may take: a test build of the workspace copy, cold.
CARGO_TIMEOUT = 900
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
UPDATE = os.environ.get("CCSIM_DOCS_UPDATE") == "1"


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    indent: str
    directive: str = ""
    end_line: int = 0  # 1-based line of the closing fence

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and not re.match(rf"^{re.escape(indent)}```\s*$", lines[j]):
            j += 1
        body = [ln[len(indent) :] if ln.startswith(indent) else ln.lstrip() for ln in lines[i + 1 : j]]
        directive = ""
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        if k >= 0 and (d := DIRECTIVE.match(lines[k])):
            directive = d.group(1)
        out.append(Block(path, i + 1, lang, "\n".join(body) + "\n", indent, directive, j + 1))
        i = j + 1
    return out


def commands(text: str) -> list[str]:
    """Shell commands of a block: lines joined at trailing backslashes; a line that opens a
    quote continues until it closes."""
    out: list[str] = []
    buf, joint = "", "\n"
    for line in text.splitlines():
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        buf = f"{buf}{joint}{line}" if buf else line
        if buf.endswith("\\"):
            buf, joint = buf[:-1].rstrip(), " "
            continue
        joint = "\n"
        try:
            shlex.split(buf, comments=True)
        except ValueError:  # an open quote: the command goes on
            continue
        out.append(buf)
        buf = ""
    if buf:
        out.append(buf)
    return out


WALL = [
    (re.compile(r"in \d+(\.\d+)? s \(\d+(\.\d+)? [kMG]? ?events/s\)"), "in <wall> s (<rate> events/s)"),
    (re.compile(r"in \d+(\.\d+)? s"), "in <wall> s"),
    (re.compile(r"\(\d+(\.\d+)? s\)"), "(<wall> s)"),
    # What this machine has free when a resource guard speaks.
    (re.compile(r"\(limit \d+(\.\d+)? GB: the memory available\)"), "(limit <free> GB: the memory available)"),
]


def normalize(text: str) -> list[str]:
    lines = []
    for line in text.rstrip("\n").splitlines():
        for pattern, repl in WALL:
            line = pattern.sub(repl, line)
        lines.append(line.rstrip())
    return lines


def same_output(expected: str, actual: str) -> bool:
    want, got = normalize(expected), normalize(actual)
    if want and want[-1] == "...":
        return got[: len(want) - 1] == want[:-1]
    return got == want


@dataclass
class Run:
    """A document being run: its folder, its Python namespace, the last output."""

    doc: Path
    work: Path
    env: dict[str, str]
    # The document's Python blocks run in one module that stands in for `__main__` while
    # they run, as a script's would: functions they define pickle by reference (a sweep's
    # metrics go to worker processes) and `if __name__ == "__main__":` holds.
    module: types.ModuleType = field(default_factory=lambda: types.ModuleType("__main__"))
    last_output: str = ""
    crate: Path | None = None
    skipped: list[str] = field(default_factory=list)
    #: Whether the tutorial's `cargo` commands run; those not run, by where they are.
    cargo: bool = True
    cargo_skipped: list[str] = field(default_factory=list)
    updates: list[tuple[Block, str]] = field(default_factory=list)
    timings: list[tuple[float, str]] = field(default_factory=list)

    def sh(
        self, cmd: str, cwd: Path | None = None, check: bool = True, where: str = "", timeout: int = COMMAND_TIMEOUT
    ) -> subprocess.CompletedProcess:
        r = subprocess.run(["bash", "-c", cmd], cwd=cwd or self.work, env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise AssertionError(f"{where}: `{cmd}` exited {r.returncode}\n--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-3000:]}")
        return r


def copy_workspace(dest: Path) -> Path:
    keep = ["Cargo.toml", "Cargo.lock", "rustfmt.toml", "crates", "docs", "scenarios"]
    dest.mkdir(parents=True)
    for name in keep:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("target", "*.so"))
        elif src.exists():
            shutil.copy2(src, dest / name)
    return dest


def run_block(run: Run, b: Block) -> None:
    d = b.directive
    if d.startswith("skip"):
        reason = d[len("skip") :].strip(" :")
        assert reason, f"{b.where}: `doc-test: skip` needs a reason"
        run.skipped.append(f"{b.where}: {reason}")
        return
    if d.startswith("requires "):
        program = d.split()[1]
        if shutil.which(program) is None:
            run.skipped.append(f"{b.where}: {program} is not installed")
            return
        d = ""
    if d.startswith("file "):
        target = run.work / d[len("file ") :].strip()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(b.text, encoding="utf-8")
        if b.lang == "toml":
            check_toml(run, b)
        return
    if d.startswith("excerpt "):
        source = (ROOT / d[len("excerpt ") :].strip()).read_text(encoding="utf-8")
        have = {" ".join(line.split()) for line in source.splitlines()}
        for line in b.text.splitlines():
            flat = " ".join(line.split())
            if flat and not flat.startswith("// ") and flat not in ("...", "}"):
                assert flat in have, f"{b.where}: the excerpt's line {line.strip()!r} is not in {d[len('excerpt ') :]}"
        return
    if d.startswith("crate-"):
        if run.crate is None:
            # At a fixed place under target/, so that the next run's build is incremental.
            where = ROOT / "target" / "doc-tests" / f"workspace-{run.doc.stem}"
            shutil.rmtree(where, ignore_errors=True)
            run.crate = copy_workspace(where)
        kind, rest = d.split(" ", 1)
        if kind == "crate-file":
            target = run.crate / rest.strip()
            target.write_text(b.text, encoding="utf-8")
        elif kind == "crate-append":
            target = run.crate / rest.strip()
            target.write_text(target.read_text(encoding="utf-8") + "\n" + b.text, encoding="utf-8")
        elif kind == "crate-insert":
            rel, anchor = rest.split(" after ", 1)
            target = run.crate / rel.strip()
            text = target.read_text(encoding="utf-8")
            anchor = anchor.strip()
            assert anchor in text, f"{b.where}: {anchor!r} not found in {rel}"
            at = text.index(anchor) + len(anchor)
            at = text.index("\n", at) + 1
            target.write_text(text[:at] + b.text + text[at:], encoding="utf-8")
        else:
            raise AssertionError(f"{b.where}: unknown directive {d!r}")
        return
    if d.startswith("output"):
        if d.startswith("output of:"):
            cmd = d[len("output of:") :].strip()
            r = run.sh(cmd, where=b.where, check=False)
            actual = r.stdout + r.stderr
        else:
            actual = run.last_output
        if not same_output(b.text, actual):
            if UPDATE:
                run.updates.append((b, actual))
                return
            raise AssertionError(
                f"{b.where}: the sample output differs from what the command prints now\n--- documented\n{b.text}--- printed\n{actual}"
            )
        return
    assert not d, f"{b.where}: unknown directive {d!r}"

    if b.lang in ("sh", "bash"):
        for cmd in commands(b.text):
            cwd = run.crate if (run.crate is not None and is_cargo(cmd)) else None
            if cwd is not None and not run.cargo:
                run.cargo_skipped.append(f"{b.where}: {cmd.split('#')[0].strip()}")
                continue
            env_cmd, timeout = cmd, COMMAND_TIMEOUT
            if cwd is not None:
                env_cmd = f"CARGO_TARGET_DIR={shlex.quote(str(ROOT / 'target' / 'doc-tests'))} {cmd}"
                timeout = CARGO_TIMEOUT
            r = run.sh(env_cmd, cwd=cwd, where=b.where, timeout=timeout)
            run.last_output = r.stdout
    elif b.lang == "python":
        code = compile(b.text, b.where, "exec")
        old, main = os.getcwd(), sys.modules["__main__"]
        os.chdir(run.work)
        sys.modules["__main__"] = run.module
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(code, run.module.__dict__)
        except Exception as e:
            raise AssertionError(f"{b.where}: the Python block raised {type(e).__name__}: {e}") from e
        finally:
            os.chdir(old)
            sys.modules["__main__"] = main
        run.last_output = out.getvalue()
    elif b.lang == "toml":
        check_toml(run, b)
    elif b.lang == "sql":
        import duckdb

        old = os.getcwd()
        os.chdir(run.work)
        try:
            con = duckdb.connect()
            for statement in [
                s
                for s in b.text.split(";")
                if s.strip() and not all(ln.strip().startswith("--") or not ln.strip() for ln in s.splitlines())
            ]:
                con.sql(statement).fetchall()
        except Exception as e:
            raise AssertionError(f"{b.where}: the SQL failed: {e}") from e
        finally:
            os.chdir(old)
    elif b.lang == "rust":
        raise AssertionError(f"{b.where}: a Rust block needs a directive (crate-file, crate-insert, excerpt, or skip with a reason)")
    elif b.lang in ("", "text", "console"):
        first = b.text.lstrip().splitlines()[0] if b.text.strip() else ""
        if first.startswith("$ "):
            transcript(run, b)
        elif first.startswith("ccsim ") and "[" in b.text:
            synopsis(run, b)
    else:
        raise AssertionError(f"{b.where}: no runner for language {b.lang!r}")


def is_cargo(cmd: str) -> bool:
    return cmd.lstrip().startswith("cargo ")


def time_allowed(doc: Path) -> int:
    """Seconds the whole document may take: COMMAND_TIMEOUT, and CARGO_TIMEOUT more for each
    `cargo` command that runs in a workspace copy (after a `crate-` directive)."""
    seconds, crate = COMMAND_TIMEOUT, False
    for b in blocks(doc):
        crate = crate or b.directive.startswith("crate-")
        if crate and b.lang in ("sh", "bash") and not b.directive:
            seconds += CARGO_TIMEOUT * sum(is_cargo(c) for c in commands(b.text))
    return seconds


def transcript(run: Run, b: Block) -> None:
    lines = b.text.rstrip("\n").splitlines()
    i = 0
    while i < len(lines):
        assert lines[i].startswith("$ "), f"{b.where}: expected a `$ command` line, got {lines[i]!r}"
        cmd = lines[i][2:]
        j = i + 1
        while j < len(lines) and not lines[j].startswith("$ "):
            j += 1
        expected = "\n".join(lines[i + 1 : j]) + "\n"
        r = run.sh(cmd, check=False)
        actual = r.stdout + r.stderr
        assert same_output(expected, actual), f"{b.where}: `{cmd}` prints\n{actual}\nnot\n{expected}"
        i = j


def synopsis(run: Run, b: Block) -> None:
    for line in re.split(r"\n(?=ccsim )", b.text.strip()):
        words = line.split()
        command = words[1]
        helptext = run.sh(f"ccsim {command} --help", where=b.where).stdout
        for opt in re.findall(r"(?<![\w-])--[a-z][a-z-]*", line):
            assert opt in helptext, f"{b.where}: synopsis of `ccsim {command}` names {opt}, which its --help does not have"


def check_toml(run: Run, b: Block) -> None:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib

    try:
        data = tomllib.loads(b.text)
    except tomllib.TOMLDecodeError as e:
        raise AssertionError(f"{b.where}: not valid TOML: {e}") from e
    if "duration" in data:
        from ccsim.show import expand

        old = os.getcwd()
        os.chdir(run.work)
        try:
            expand(b.text)
        except Exception as e:
            raise AssertionError(f"{b.where}: the scenario does not pass the checks of a run: {e}") from e
        finally:
            os.chdir(old)
    elif "scenario" in data:
        base = data["scenario"]
        assert (run.work / base).exists() or (run.work / "scenarios" / base).exists(), (
            f"{b.where}: the sweep's scenario {base!r} is not there"
        )


def apply_updates(run: Run) -> None:
    """Rewrites the output blocks that differ (CCSIM_DOCS_UPDATE=1)."""
    if not run.updates:
        return
    lines = run.doc.read_text(encoding="utf-8").splitlines()
    for b, actual in sorted(run.updates, key=lambda u: -u[0].line):
        new = [b.indent + ln if ln else ln for ln in actual.rstrip("\n").splitlines()]
        lines[b.line : b.end_line - 1] = new
    run.doc.write_text("\n".join(lines) + "\n", encoding="utf-8")


def run_document(doc: Path, work: Path, cargo: bool = True) -> Run:
    shutil.copytree(ROOT / "scenarios", work / "scenarios")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    run = Run(doc, work, env, cargo=cargo)
    import time

    for b in blocks(doc):
        started = time.perf_counter()
        run_block(run, b)
        run.timings.append((time.perf_counter() - started, b.where))
    apply_updates(run)
    return run
