#!/usr/bin/env python3
"""What a tree variant's code objects hold, found at build time from the objects themselves.

For each arch's code object (unbundled from the variant's HIP object): its disassembly (for ISA checks and
tests/fa_tree's instruction list) and the flash_attn_ext_f16 kernels the tree compiles out there. A compiled-out
kernel is the tree's `no_device_code` stub: its first instruction belongs, in the line tables' inlining tree, to the
function `no_device_code`, called from the device guard that removed the kernel. That call site (file, line) and the
guard's condition line are recorded, and generated into a C++ table tree_variant.cu reads before launching anything.

  code_object.py --namespace NS --out table.cpp --listing-dir DIR --objdump OBJDUMP --symbolizer SYMBOLIZER
                 ARCH=HSACO [ARCH=HSACO ...]
Writes DIR/<arch>.s per arch and table.cpp. Exit 0, or 1 with one line when a tool fails.
"""
import argparse
import os
import re
import subprocess
import sys

SYMBOL = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
KERNEL = re.compile(r"(flash_attn_ext_f16<.*?>)\(")


def run(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        err = getattr(e, "stderr", "") or str(e)
        sys.exit(f"code_object.py: {' '.join(cmd[:2])}: {err.strip().splitlines()[-1] if err.strip() else e}")


def kernel_entries(listing):
    """(address, mangled symbol) of every flash_attn_ext_f16 kernel in a disassembly."""
    out = []
    for line in listing.splitlines():
        m = SYMBOL.match(line)
        if m and "18flash_attn_ext_f16" in m.group(2):
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def frames(symbolizer, obj, addr):
    """[(function, file, line)] innermost first, as llvm-symbolizer --inlining gives them; each file as its line table
    names it (--relativenames: without the compile's working folder, so NAME/... for a variant's tree files)."""
    text = run([symbolizer, "--inlining", "--demangle", "--relativenames", f"--obj={obj}", hex(addr)])
    lines = [l for l in text.splitlines() if l.strip()]
    out = []
    for fn, loc in zip(lines[0::2], lines[1::2]):
        m = re.match(r"^(.*):(\d+):\d+$", loc)
        out.append((fn, m.group(1) if m else loc, int(m.group(2)) if m else 0))
    return out


def guard_text(path, line):
    """The guard's condition: the nearest `if` at or above the NO_DEVICE_CODE line, as the tree spells it."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            src = f.read().splitlines()
    except OSError:
        return ""
    for n in range(line - 1, max(line - 6, 0), -1):
        if re.search(r"\bif\s*\(", src[n - 1]):
            return f"{os.path.basename(path)}:{n}: {src[n - 1].strip()}"
    return ""


def key(demangled):
    m = KERNEL.search(demangled)
    return re.sub(r"\(ggml_type\)|\s", "", m.group(1)) if m else None


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--namespace", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--listing-dir", required=True)
    ap.add_argument("--objdump", required=True)
    ap.add_argument("--symbolizer", required=True)
    # The variant's files are named NAME/... in the line tables (-ffile-prefix-map ROOT=NAME): read them from ROOT.
    ap.add_argument("--source-root", metavar="NAME=ROOT", default="")
    ap.add_argument("objects", nargs="+", metavar="ARCH=HSACO")
    a = ap.parse_args()
    os.makedirs(a.listing_dir, exist_ok=True)
    rows = []
    for spec in a.objects:
        arch, obj = spec.split("=", 1)
        listing = run([a.objdump, "-d", obj])
        with open(os.path.join(a.listing_dir, f"{arch}.s"), "w") as f:
            f.write(listing)
        for addr, _ in kernel_entries(listing):
            fr = frames(a.symbolizer, obj, addr)
            names = [fn for fn, _, _ in fr]
            if "no_device_code" not in names:
                continue
            i = names.index("no_device_code")
            if i + 1 >= len(fr):
                sys.exit(f"code_object.py: {obj}: no_device_code at {hex(addr)} has no caller in the line tables")
            _, file, line = fr[i + 1]
            k = key(fr[-1][0])
            if not k:
                sys.exit(f"code_object.py: {obj}: cannot read the kernel's template arguments from '{fr[-1][0]}'")
            name, _, root = a.source_root.partition("=")
            on_disk = root + file[len(name):] if name and file.startswith(name + "/") else file
            guard = guard_text(on_disk, line) or f"{os.path.basename(file)}:{line}"
            rows.append((arch, k, f"{guard} (no_device_code at {file}:{line})"))
    body = "".join(f"    {{{c_string(arch)}, {c_string(k)}, {c_string(g)}}},\n" for arch, k, g in rows)
    with open(a.out + ".tmp", "w") as f:
        f.write("// Generated by kernels/fattn_tree/code_object.py from this tree variant's code objects; do not edit.\n")
        f.write('#include "kernels/fattn_tree/instances.h"\n')
        f.write(f"namespace {a.namespace} {{\n")
        f.write("extern const tp::fattn_tree::compiled_out compiled_out_table[];\nextern const int compiled_out_count;\n")
        f.write(f"const tp::fattn_tree::compiled_out compiled_out_table[] = {{\n{body}    {{nullptr, nullptr, nullptr}}}};\n")
        f.write(f"const int compiled_out_count = {len(rows)};\n}}\n")
    os.replace(a.out + ".tmp", a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
