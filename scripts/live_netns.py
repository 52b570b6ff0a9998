"""One node per Linux network namespace: `ccsim live node` in each, joined by a bridge.

    sudo python scripts/live_netns.py scenarios/acc_live.toml --set duration=10s

Makes a namespace `cclive-sw` holding a bridge, and one namespace `cclive-<node>` per node
of the scenario with a veth to the bridge and the address 10.231.0.<k>/24 (nothing outside
the namespaces this script makes is touched or reached); writes a copy of the scenario
whose `[live.nodes]` names those addresses and whose `[live] key` is set; starts
`python -m ccsim live node COPY --name <node> --start-at T --json` in every namespace with
the same start time; prints each node's report as one JSON line; and removes the
namespaces, also on an error. This is what running on several machines looks like: each
machine runs its `ccsim live node` with the same file and start time.
"""

from __future__ import annotations

import argparse
import json
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PREFIX = "cclive-"
NET = "10.231.0"
PORT = 47000


def sh(*args: str) -> None:
    subprocess.run(list(args), check=True, capture_output=True)


def setup(n: int) -> list[str]:
    sw = PREFIX + "sw"
    sh("ip", "netns", "add", sw)
    sh("ip", "-n", sw, "link", "add", "br0", "type", "bridge")
    sh("ip", "-n", sw, "link", "set", "br0", "up")
    addrs = []
    for k in range(1, n + 1):
        ns = f"{PREFIX}{k}"
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", f"p{k}", "netns", sw)
        sh("ip", "-n", sw, "link", "set", f"p{k}", "master", "br0", "up")
        sh("ip", "-n", ns, "addr", "add", f"{NET}.{k}/24", "dev", "eth0")
        sh("ip", "-n", ns, "link", "set", "eth0", "up")
        sh("ip", "-n", ns, "link", "set", "lo", "up")
        addrs.append(f"{NET}.{k}:{PORT}")
    return addrs


def teardown(n: int) -> None:
    for k in range(1, n + 1):
        subprocess.run(["ip", "netns", "del", f"{PREFIX}{k}"], capture_output=True)
    subprocess.run(["ip", "netns", "del", PREFIX + "sw"], capture_output=True)


def run(path: Path, overrides: list[str]) -> list[dict]:
    import tomli_w

    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib

    from ccsim import live

    p = live.plan(path, overrides)
    names = [n["name"] for n in p["nodes"]]
    teardown(len(names))
    procs: list[subprocess.Popen] = []
    try:
        addrs = setup(len(names))
        doc = tomllib.loads(path.read_text())
        doc.setdefault("live", {})
        doc["live"]["nodes"] = dict(zip(names, addrs))
        doc["live"]["key"] = secrets.token_hex(16)
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / path.name
            copy.write_text(tomli_w.dumps(doc))
            start = time.time() + 3.0
            for k, name in enumerate(names, start=1):
                cmd = ["ip", "netns", "exec", f"{PREFIX}{k}", sys.executable, "-m", "ccsim", "live", "node", str(copy), "--name", name]
                cmd += ["--start-at", f"{start:.3f}", "--json"] + [a for o in overrides for a in ("--set", o)]
                procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
            reports = []
            for name, proc in zip(names, procs):
                out, err = proc.communicate(timeout=p["duration_s"] + p["grace_s"] + 60)
                if proc.returncode != 0:
                    raise RuntimeError(f"{name}: exit {proc.returncode}: {err.decode(errors='replace').strip()}")
                reports.append(json.loads(out.decode().strip().splitlines()[-1]))
            return reports
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        teardown(len(names))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", type=Path)
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    a = ap.parse_args()
    for r in run(a.file, a.overrides):
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
