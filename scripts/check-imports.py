#!/usr/bin/env python3
"""Print (or, with -w, rewrite) Go files whose import block is not in the
project's groups. The block is collapsed into one group and handed to
goimports -local, which splits it into standard library, third party and
github.com/zkx-dev/zkx; a file whose block differs from that is listed."""
import re, subprocess, sys

LOCAL = "github.com/zkx-dev/zkx"

def canonical(src: str) -> str:
    m = re.search(r"^import \((.*?)^\)", src, re.S | re.M)
    if not m:
        return src
    body = "\n".join(l for l in m.group(1).split("\n") if l.strip())
    collapsed = src[: m.start(1)] + "\n" + body + "\n" + src[m.end(1):]
    out = subprocess.run(["goimports", "-local", LOCAL], input=collapsed, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    return out.stdout

def main() -> int:
    write = "-w" in sys.argv[1:]
    files = [a for a in sys.argv[1:] if a != "-w"]
    bad = 0
    for f in files:
        src = open(f).read()
        want = canonical(src)
        if want != src:
            bad += 1
            print(f)
            if write:
                open(f, "w").write(want)
    return 1 if bad and not write else 0

if __name__ == "__main__":
    sys.exit(main())
