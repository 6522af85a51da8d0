#!/usr/bin/env python3
"""The instructions a beellama tree's compiled kernels contain that tileprobe's AMDGPU simulator does not execute.

Reads the disassemblies of the tree variants' code objects (kernels/fattn_tree/code_object.py writes one per variant
and arch: <build>/kernels/fattn_tree/<variant>/<arch>.s, llvm-objdump's text, which is the MC printer's text the
simulator's decoder parses) and the simulator's sources, and applies the decoder's rules to every instruction:

  implemented   the mnemonic, without its _e32/_e64 suffix and with VOPD halves split (v_dual_X -> v_X) and gfx11's
                spellings mapped (decoder.cpp's gfx11_names), is a row of a semantics table (semantics_*.cpp: the
                {"mnemonic", handler, ...} rows and the generated VOPC rows v_cmp[x]_<kind>_<type>); a matrix
                mnemonic also needs reference/isa's model for the arch (gfx11: a gfx11_<mnemonic without v_> instr)
  modifiers     every modifier after the operands is one decoder.cpp's translate() parses (`key == "..."`); any
                other (op_sel, op_sel_hi, byte_sel, omod, ...) stops the instruction
  operands      forms decoder.cpp's parse_operand knows (registers, ranges, specials, constants, neg/abs); a neg/abs
                on an operand of an instruction whose mnemonic names no float type is refused there (approximated here
                by the mnemonic: the decoder uses each source's declared type)
  messages      s_sendmsg only sendmsg(MSG_DEALLOC_VGPRS); s_barrier_signal only -1

This mirrors decoder.cpp's rules as written when this script was; the simulator stays the authority (an
unimplemented instruction stops a launch with its mnemonic, kernel and PC). Output: one line per missing form with
how often it occurs, in how many functions, per arch, and one example.

  needed_instructions.py --machine DIR --isa DIR --from TEXT --out FILE LISTING...   (LISTING: <variant dir>/<arch>[.kvarn].s)
  needed_instructions.py ... --check FILE     exit 1 when FILE differs from the result, 77 when FILE's first line (the
                                              build it was made from: tree, fix, variants, archs) is another build's
"""
import argparse
import collections
import os
import re
import sys

INSTR = re.compile(r"^\t([a-z_][a-z0-9_]*)(.*?)(?:\s*//.*)?$")
SYMBOL = re.compile(r"^[0-9a-f]+ <([^>]+)>:$")
# parse_operand's forms: off, an optional neg (-) and abs (|..|) around a number, a special register, an aperture base,
# or a register (range) of the ttmp, v or s files.
OPERAND = re.compile(r"^-?(\|)?(off|-?0x[0-9a-fA-F]+|-?[0-9]+(\.[0-9]+)?|vcc_lo|vcc_hi|vcc|exec_lo|exec_hi|exec|m0|null|"
                     r"src_scc|src_shared_base|src_private_base|(ttmp|v|s)([0-9]+|\[[0-9]+:[0-9]+\]))\|?$")
FLOAT_TYPE = re.compile(r"_(f16|f32|f64|bf16)\b|_f16_|_f32_|_f64_|bf16|fp8|bf8")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Decoder:
    def __init__(self, machine, isa):
        sem = "".join(read(os.path.join(machine, f)) for f in sorted(os.listdir(machine)) if f.startswith("semantics_"))
        dec = read(os.path.join(machine, "decoder.cpp"))
        self.table = set(re.findall(r'\{"([a-z][a-z0-9_]*)",\s*[A-Za-z_]', sem))
        valu = read(os.path.join(machine, "semantics_valu.cpp"))
        kinds = {}
        for which in ("int_cmps", "float_cmps"):
            m = re.search(which + r"\[\]\s*=\s*\{(.*?)\};", valu, re.S)
            kinds[which] = re.findall(r'\{"([a-z]+)",\s*c_', m.group(1)) if m else []
        for suffix, is_float in re.findall(r'\{"([iuf](?:16|32|64))",\s*v_cmp<[^>]*>,\s*v_cmpx<[^>]*>,\s*(true|false)', valu):
            for k in kinds["float_cmps" if is_float == "true" else "int_cmps"]:
                self.table.update({f"v_cmp_{k}_{suffix}", f"v_cmpx_{k}_{suffix}"})
        # Rows generated in loops: for (const width_name& x : ARRAY) add("prefix" + std::string(x.suffix), ...).
        arrays = {n: re.findall(r'\{"([a-z0-9_]+)",', body)
                  for n, body in re.findall(r"const width_name (\w+)\[\]\s*=\s*\{(.*?)\};", sem, re.S)}
        for arr, body in re.findall(r"for \(const width_name& x : (\w+)\)(.*?)(?=\n\s*for \(|\n\s*return v)", sem, re.S):
            for prefix in re.findall(r'add\("([a-z0-9_]+)" \+ std::string\(x\.suffix\)', body):
                self.table.update(prefix + suffix for suffix in arrays.get(arr, []))
        # Matrix rows come from reference/isa's instruction table (the gfx12 mnemonics; gfx11 shares them).
        layout = read(os.path.join(isa, "layout.cpp"))
        self.table.update(re.findall(r'"(v_(?:s?wmmac?|smfmac)_[a-z0-9_]+)"', layout))
        m = re.search(r"bool operands_are_not_data\(.*?\n\}", dec, re.S)
        body = m.group(0) if m else ""
        self.not_data_prefixes = tuple(re.findall(r'starts_with\(m, "([a-z0-9_]+)"\)', body))
        self.not_data = set(re.findall(r'm == "([a-z0-9_]+)"', body))
        m = re.search(r"gfx11_names\s*=\s*\{(.*?)\};", dec, re.S)
        self.aliases = dict(re.findall(r'\{"([a-z0-9_]+)",\s*"([a-z0-9_]+)"\}', m.group(1))) if m else {}
        m = re.search(r"std::string translate\(.*?\n  \}\n", dec, re.S)
        self.modifiers = set(re.findall(r'key == "([a-z0-9_]+)"', m.group(0) if m else dec))
        isa_text = "".join(read(os.path.join(isa, f)) for f in os.listdir(isa) if f.endswith((".h", ".cpp")))
        self.isa_names = set(re.findall(r'"(gfx1[12]_[a-z0-9_]+|[a-z]+mma[a-z0-9_]*)"', isa_text))
        self.matrix = re.compile(r"^v_(s?wmmac?|smfmac)_")

    def canonical(self, m):
        for suffix in ("_e32", "_e64"):
            if m.endswith(suffix) and len(m) > len(suffix):
                m = m[: -len(suffix)]
        if m.startswith("v_dual_"):
            m = "v_" + m[7:]
        return self.aliases.get(m, m)

    def problems(self, arch, mnemonic, operands, modifiers):
        """What stops this instruction on the simulator: [] when it runs."""
        c = self.canonical(mnemonic)
        if c not in self.table:
            return [f"unimplemented {self.canonical(mnemonic) if mnemonic.startswith('v_dual_') else mnemonic}"]
        if self.matrix.match(c) and arch.startswith("gfx11") and f"gfx11_{c[2:]}" not in self.isa_names:
            return [f"unimplemented {mnemonic} on gfx11 (reference/isa has no gfx11_{c[2:]})"]
        if c.startswith(self.not_data_prefixes) or c in self.not_data:
            if c == "s_sendmsg" and operands != ["sendmsg(MSG_DEALLOC_VGPRS)"]:
                return [f"unimplemented s_sendmsg {' '.join(operands)}"]
            if c == "s_barrier_signal" and operands != ["-1"]:
                return ["unimplemented s_barrier_signal of a named barrier"]
            return []
        out = []
        for op in operands:
            if op and not OPERAND.match(op):
                out.append(f"operand form {re.sub(r'[0-9]+', 'N', op)} of {mnemonic}")
        for mod in modifiers:
            key = mod.split(":", 1)[0]
            if key not in self.modifiers:
                out.append(f"modifier {key} of {mnemonic}")
        if not FLOAT_TYPE.search(c) and c != "v_cndmask_b32":
            for op in operands[1:]:
                if re.match(r"^(-[^0-9]|\|)", op):
                    out.append(f"source modifier on an integer operand of {mnemonic}")
                    break
        return out


def split(rest):
    """decoder.cpp's split_instruction: operands end at the first token without a trailing comma."""
    toks = rest.split()
    ops, mods, in_ops = [], [], True
    for t in toks:
        if in_ops:
            more = t.endswith(",")
            ops.append(t[:-1] if more else t)
            in_ops = more
        else:
            mods.append(t)
    return ops, mods


def short(symbol):
    m = re.match(r"_Z(?:L|N[KL]*)?(\d+)", symbol)
    if not m:
        return symbol
    n, i = int(m.group(1)), m.end()
    return symbol[i : i + n]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--machine", required=True)
    ap.add_argument("--isa", required=True)
    ap.add_argument("--out")
    ap.add_argument("--check")
    ap.add_argument("--from", dest="source", default="", help="what build the listings come from (first line)")
    ap.add_argument("listings", nargs="+")
    a = ap.parse_args()
    d = Decoder(a.machine, a.isa)
    # Instructions the simulator has executed in tileprobe's own kernels for long: if the parse misses one of them, the
    # sources changed shape and this script must follow, rather than report them missing.
    anchors = {"s_load_b32", "global_load_b32", "ds_load_b32", "ds_store_b16", "v_add_f32", "v_cmp_eq_u32",
               "v_wmma_f32_16x16x16_f16", "s_barrier", "s_waitcnt"}
    if not anchors <= d.table or not {"offset", "clamp"} <= d.modifiers or not d.not_data:
        sys.exit("needed_instructions.py: the simulator's tables did not parse (missing: " +
                 ", ".join(sorted(anchors - d.table)) + "): its sources changed shape; update this script")
    seen = collections.defaultdict(
        lambda: {"count": collections.Counter(), "functions": set(), "example": "", "modifiers": set()})
    total = collections.Counter()
    for path in a.listings:
        arch = os.path.basename(path).split(".")[0]  # <arch>.s, <arch>.kvarn.s
        function, in_trap = "?", False
        for line in read(path).splitlines():
            s = SYMBOL.match(line)
            if s:
                function, in_trap = short(s.group(1)), False
                continue
            m = INSTR.match(line)
            if not m:
                continue
            text = (m.group(1) + m.group(2)).strip()
            # gfx11's trap sequence after s_trap (doorbell message, halt, branch to itself) is never executed: the
            # simulator stops the wave at s_trap (a compiled-out kernel's stub, or the compatibility layer's traps).
            if in_trap:
                in_trap = m.group(1) != "s_branch"
                continue
            if m.group(1) == "s_trap" and arch.startswith("gfx11"):
                in_trap = True
            halves = [h.strip() for h in text.split("::")] if "::" in text else [text]
            for h in halves:
                mn, _, rest = h.partition(" ")
                ops, mods = split(rest)
                total[arch] += 1
                for p in d.problems(arch, mn, ops, mods):
                    e = seen[p]
                    e["count"][arch] += 1
                    e["functions"].add(function)
                    e["example"] = e["example"] or h
                    e["modifiers"].update(mods)
    lines = [f"# from: {a.source}",
             "# Instructions in the beellama tree variants' code objects that tileprobe's AMDGPU simulator does not execute",
             "# (tests/fa_tree/needed_instructions.py over kernels/fattn_tree's disassemblies and simt/amdgpu_sim/machine).",
             "# " + ", ".join(f"{arch}: {n} instructions read" for arch, n in sorted(total.items())),
             "# what stops it | occurrences per arch | modifiers seen | functions | example"]
    for p in sorted(seen):
        e = seen[p]
        counts = " ".join(f"{arch}:{n}" for arch, n in sorted(e["count"].items()))
        mods = " ".join(sorted(e["modifiers"])) or "-"
        lines.append(f"{p} | {counts} | {mods} | {len(e['functions'])}: {', '.join(sorted(e['functions']))} | "
                     f"{e['example']}")
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    if a.check:
        want = read(a.check)
        if want.splitlines()[:1] != lines[:1]:
            print(f"skipped: {a.check} was made from another build ({want.splitlines()[0] if want else 'empty'}); "
                  f"this one is {lines[0]}")
            return 77
        if want != text:
            sys.stdout.write(text)
            print(f"needed_instructions.py: {a.check} is out of date (regenerate it with --out)", file=sys.stderr)
            return 1
        print(f"{a.check}: {len(seen)} missing forms, as committed")
    if not a.out and not a.check:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
