#!/usr/bin/env python3
"""Writes the subset of the Debian 7.3.4 kernels' vmlinux BTF that the model
reads (harness/model/data/vmlinux_btf/<arch>.txt) from the images that
scripts/setup-vm.sh fetched into the project's cache.

The whole vmlinux BTF is ~6 MB per arch; the model needs only the structs a
program can walk (`btf_struct_access` through `bpf_cast_to_kern_ctx` and
tracing arguments), the `<struct>__safe_*` allow lists of the verifier, and the
functions tracing, LSM and iterator programs attach to: every one that a
section of the selftests' programs names (the kernel tree's
tools/testing/selftests/bpf/progs, --src), with its prototype and the
structs its arguments point to (kept whole: the programs read their
fields; what those point to is kept by name). Type ids are kept as the kernel numbers
them (the verifier prints them and `attach_btf_id` names them).

The BTF is read straight from the image: arm64's vmlinuz is an uncompressed
Image, x86_64's bzImage carries a zstd-compressed vmlinux; in both the .BTF
section is found by its header. A raw BTF file (a copy of a running kernel's
/sys/kernel/btf/vmlinux) is accepted as well.

  bpf-selftest record --set vmlinux-btf [--check]     # runs this script
  scripts/record-vmlinux-btf.py                       # both arches, from the cache
  scripts/record-vmlinux-btf.py --arch x86_64 --btf vmlinux.btf
  scripts/record-vmlinux-btf.py --src linux-7.3       # the tree whose selftests name
                                                      # the attach targets
  scripts/record-vmlinux-btf.py --blob                # the whole raw BTF per arch
                                                      # into the cache instead

With --blob the subset is not written: the whole .BTF section of each image
(what the guest's /sys/kernel/btf/vmlinux holds, byte for byte) is checked
(magic 0xeB9F, version 1, a 24-byte header whose type and string sections fit
the blob) and written to $BPF_SELFTEST_CACHE/btf/<version>-<debian arch>/vmlinux.btf,
beside the image's own $BPF_SELFTEST_CACHE/kernels/<version>-<debian arch>/
(scripts/setup-vm.sh --source runs it and dumps vmlinux.h from it with bpftool).
A blob already there with the same bytes is left as it is.

Output format (one type per line, members/params indented by a tab; `-` is an
anonymous name):
  <id> struct|union <name> size <bytes>          a full struct, members follow
  <id> struct|union <name> size <bytes> opaque   only its name and size kept
  \t<member> <type id> <bit offset> [<bitfield bits>]
  <id> int <name> size <bytes> bits <n> enc <signed|char|bool|->   (spaces in
                                                 the name become `_`)
  <id> ptr <type id>
  <id> array <elem type id> <nelems>
  <id> typedef|const|volatile|restrict <name|-> <type id>
  <id> type_tag <tag> <type id>
  <id> enum|enum64|float <name> size <bytes>
  <id> fwd <name> struct|union
  <id> func <name> <proto id>
  <id> var <name> <type id> [percpu]             a kernel variable (percpu: in
                                                 the `.data..percpu` section)
  <id> func_proto <return type id>                params follow
  <id> func_proto <return type id> opaque         a function pointer's target
  \t<param> <type id>
"""
import argparse
import glob
import os
import re
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("BPF_SELFTEST_CACHE", "/var/cache/bpf-selftest")
VERSION = os.environ.get("BPF_SELFTEST_VM_KERNEL", "7.3.4+deb13")
IMAGES = {"x86_64": f"{VERSION}-amd64", "arm64": f"{VERSION}-arm64"}

# structs kept whole: kernel ctx structs bpf_cast_to_kern_ctx returns (and an skb's
# shared info, the struct of bpf_fentry_test_sinfo's argument), what
# their pointers lead to that tests walk, and the verifier's allow lists
ROOT_STRUCTS = [
    "sk_buff", "skb_shared_info", "xdp_buff", "sock", "sock_common", "socket", "task_struct", "task_struct__safe_rcu",
    "cgroup__safe_rcu", "css_set__safe_rcu", "cgroup_subsys_state__safe_rcu",
    "mm_struct__safe_rcu_or_null", "sk_buff__safe_rcu_or_null",
    "request_sock__safe_rcu_or_null", "bpf_iter_meta__safe_trusted",
    "bpf_iter__task__safe_trusted", "linux_binprm__safe_trusted",
    "file__safe_trusted", "dentry__safe_trusted_or_null",
    "socket__safe_trusted_or_null", "vm_area_struct__safe_trusted_or_null",
    # what the tests' LSM hook arguments point to and they walk
    "file", "dentry", "inode",
    # what iterator programs read through their ctx (ctx->meta->seq, ctx->map)
    "bpf_iter_meta", "bpf_map", "seq_file",
    # the objects of the cpumask kfuncs and of the resilient spin lock kfuncs
    "bpf_cpumask", "cpumask", "bpf_res_spin_lock",
    # the uapi ctx struct tests bpf_core_cast to (bpf_rdonly_cast of its id)
    "__sk_buff",
    # what the tests' fentry arguments point to and they walk
    "nameidata", "nf_hook_state",
    # what the cgroup kfunc tests walk from a trusted cgroup
    "cgroup",
    # the socket structs the bpf_skc_to_* helpers return, each leading with
    # the one it extends (btf_struct_ids_match walks their first members)
    "tcp_sock", "tcp6_sock", "udp6_sock", "unix_sock", "mptcp_sock", "tcp_request_sock", "tcp_timewait_sock",
    # what the tests read through a task (task->cgroups, task->mm,
    # task->cred), a cgroup's per-CPU stats (cgroup->self.rstat_cpu), a vma's
    # file's inode (->i_sb), an xdp_buff (->rxq), a sock (sk->sk_prot) and a
    # unix_sock (->addr)
    "css_set", "mm_struct", "cred", "css_rstat_cpu", "super_block", "xdp_rxq_info", "proto", "unix_address",
]
# structs kept by name and size only: what the tests bpf_core_cast to and
# never read through
OPAQUE_STRUCTS = ["bpf_verifier_env"]
# functions kept besides the attach targets of the tests' sections (which
# selftest_attach_targets finds): the object iterator kfuncs
# (bpf_iter_<obj>_{new,next,destroy}), with their prototypes, their iterator
# structs (the size gives the stack slots a program's iterator takes) and
# what they hand out, which the tests walk
OBJ_ITERS = ["task", "css", "css_task", "task_vma", "kmem_cache", "dmabuf"]
ROOT_FUNCS = [f"bpf_iter_{i}_{op}" for i in OBJ_ITERS for op in ("new", "next", "destroy")]
ROOT_STRUCTS += [f"bpf_iter_{i}" for i in OBJ_ITERS] + \
    ["cgroup", "cgroup_subsys_state", "kernfs_node", "vm_area_struct", "kmem_cache", "dma_buf"]

# the attach targets of the selftests' tracing, LSM and iterator programs:
# every `SEC("<kind>/<name>")` of tools/testing/selftests/bpf/progs/*.c in
# the kernel tree given, for these kinds (a leading `?` and the sleepable
# `.s` forms included), looked up as libbpf looks them up in vmlinux BTF
# (btf_get_kernel_prefix_kind): a function of the name for fentry, fexit,
# fmod_ret and fsession, `bpf_lsm_<hook>` for lsm and lsm_cgroup,
# `bpf_iter_<name>` (and its ctx struct `bpf_iter__<name>`) for iter, the
# typedef `btf_trace_<tp>` for tp_btf. Names vmlinux has no BTF for
# (bpf_testmod's functions) are left out.
SEC_PREFIX = {"fentry": "", "fexit": "", "fmod_ret": "", "fsession": "", "lsm": "bpf_lsm_", "lsm_cgroup": "bpf_lsm_",
              "iter": "bpf_iter_", "tp_btf": "btf_trace_"}
# `__TARGET_ARCH_<x>` of bpf_misc.h's SYS_PREFIX per arch
TARGET_ARCH = {"x86_64": "x86", "arm64": "arm64"}


def sys_prefix(src, arch):
    """SYS_PREFIX as the selftests' bpf_misc.h defines it for `arch`."""
    text = open(os.path.join(src, "tools/testing/selftests/bpf/progs/bpf_misc.h")).read()
    m = re.search(r"defined\(__TARGET_ARCH_" + TARGET_ARCH[arch] + r"\)\s*\n(?:#define (?!SYS_PREFIX)[^\n]*\n)*"
                  r'#define SYS_PREFIX "([^"]*)"', text)
    if not m:
        sys.exit(f"bpf_misc.h: no SYS_PREFIX for {arch}")
    return m.group(1)


def selftest_attach_targets(src, arch):
    """(kind, name) of every tracing, LSM and iterator section of the
    selftests' programs, sorted."""
    prefix = sys_prefix(src, arch)
    out = set()
    for path in sorted(glob.glob(os.path.join(src, "tools/testing/selftests/bpf/progs/*.c"))):
        text = open(path, errors="replace").read()
        for m in re.finditer(r'\bSEC\(\s*((?:"[^"\n]*"|\s+|SYS_PREFIX)+)\)', text):
            sec = "".join(lit if lit or not macro else prefix
                          for lit, macro in re.findall(r'"([^"]*)"|(SYS_PREFIX)', m.group(1))).lstrip("?")
            kind, _, name = sec.partition("/")
            kind = kind.removesuffix(".s")
            if kind in SEC_PREFIX and re.fullmatch(r"\w+", name):
                out.add((kind, name))
    return sorted(out)


def selftest_typed_ksyms(src):
    """The kernel variables the selftests' programs declare as typed
    `__ksym` externs (`extern const struct rq runqueues __ksym;`): libbpf
    loads them with BPF_PSEUDO_BTF_ID of their VAR. `void` ones are plain
    addresses from kallsyms; functions are kfuncs."""
    out = set()
    for path in sorted(glob.glob(os.path.join(src, "tools/testing/selftests/bpf/progs/*.c"))):
        text = open(path, errors="replace").read()
        for m in re.finditer(r"^extern\s+((?:const\s+)?(?:struct\s+)?\w+)\s+(\w+)\s+__ksym\s*;", text, re.M):
            if not re.fullmatch(r"(const\s+)?void", m.group(1)):
                out.add(m.group(2))
    return sorted(out)


KINDS = {1: "int", 2: "ptr", 3: "array", 4: "struct", 5: "union", 6: "enum", 7: "fwd", 8: "typedef",
         9: "volatile", 10: "const", 11: "restrict", 12: "func", 13: "func_proto", 14: "var",
         15: "datasec", 16: "float", 17: "decl_tag", 18: "type_tag", 19: "enum64"}


def find_btf(data):
    i = 0
    while True:
        i = data.find(b"\x9f\xeb\x01\x00", i)
        if i < 0:
            return None
        hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", data, i + 4)
        if hdr_len == 24 and type_off == 0 and str_off == type_len and type_len > 100000:
            return data[i:i + 24 + type_len + str_len]
        i += 1


def read_image(path):
    data = open(path, "rb").read()
    btf = find_btf(data)
    if btf is None:
        z = data.find(b"\x28\xb5\x2f\xfd")
        if z < 0:
            sys.exit(f"{path}: no BTF and no zstd payload")
        out = subprocess.run(["zstd", "-d", "-c"], input=data[z:], capture_output=True).stdout
        btf = find_btf(out)
    if btf is None:
        sys.exit(f"{path}: no vmlinux BTF found")
    return btf


def check_blob(btf):
    """Why `btf` is not a whole raw BTF blob, or None."""
    if len(btf) < 24:
        return f"{len(btf)} bytes, shorter than a header"
    magic, version, _flags, hdr_len = struct.unpack_from("<HBBI", btf, 0)
    if magic != 0xEB9F:
        return f"magic {magic:#06x}, not 0xeb9f (or not little-endian)"
    if version != 1:
        return f"version {version}, not 1"
    if hdr_len != 24:
        return f"header length {hdr_len}, not 24"
    type_off, type_len, str_off, str_len = struct.unpack_from("<4I", btf, 8)
    end = hdr_len + max(type_off + type_len, str_off + str_len)
    if end != len(btf):
        return f"sections end at {end}, the blob has {len(btf)} bytes"
    if type_off + type_len > str_off:
        return "type section runs into the string section"
    if str_len == 0 or btf[hdr_len + str_off] != 0 or btf[-1] != 0:
        return "string section does not start and end with a NUL"
    return None


def write_blob(btf, arch, cache):
    why = check_blob(btf)
    if why:
        sys.exit(f"{arch}: vmlinux BTF is not valid: {why}")
    dest_dir = os.path.join(cache, "btf", IMAGES[arch])
    dest = os.path.join(dest_dir, "vmlinux.btf")
    _, _, _, _, type_off, type_len, str_off, str_len = struct.unpack_from("<HBBI4I", btf, 0)
    summary = f"{len(btf)} bytes (types {type_len}, strings {str_len})"
    try:
        same = open(dest, "rb").read() == btf
    except OSError:
        same = False
    if same:
        print(f"{dest}: present, {summary}")
        return
    os.makedirs(dest_dir, exist_ok=True)
    tmp = dest + ".tmp"
    with open(tmp, "wb") as f:
        f.write(btf)
    os.replace(tmp, dest)
    print(f"{dest}: {summary}")


def parse(btf):
    hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", btf, 4)
    tbase = hdr_len + type_off
    sbase = hdr_len + str_off

    def name(off):
        end = btf.index(b"\0", sbase + off)
        return btf[sbase + off:end].decode()

    types = [None]
    p = tbase
    while p < tbase + type_len:
        name_off, info, size_type = struct.unpack_from("<3I", btf, p)
        p += 12
        kind = (info >> 24) & 0x1f
        vlen = info & 0xffff
        kflag = info >> 31
        t = {"kind": KINDS.get(kind, str(kind)), "name": name(name_off), "st": size_type, "kflag": kflag}
        if kind == 1:
            enc = struct.unpack_from("<I", btf, p)[0]
            p += 4
            t["bits"] = enc & 0xff
            t["enc"] = {1: "signed", 2: "char", 4: "bool"}.get((enc >> 24) & 0xf, "-")
        elif kind == 3:
            t["elem"], _, t["nelems"] = struct.unpack_from("<3I", btf, p)
            p += 12
        elif kind in (4, 5):
            ms = []
            for _ in range(vlen):
                mn, mt, mo = struct.unpack_from("<3I", btf, p)
                p += 12
                bits = mo >> 24 if kflag else 0
                ms.append((name(mn), mt, mo & 0xffffff if kflag else mo, bits))
            t["members"] = ms
        elif kind == 6:
            p += 8 * vlen
        elif kind == 19:
            p += 12 * vlen
        elif kind == 13:
            ps = []
            for _ in range(vlen):
                pn, pt = struct.unpack_from("<2I", btf, p)
                p += 8
                ps.append((name(pn), pt))
            t["params"] = ps
        elif kind == 14:
            p += 4
        elif kind == 15:
            t["vars"] = [struct.unpack_from("<3I", btf, p + 12 * j)[0] for j in range(vlen)]
            p += 12 * vlen
        elif kind == 17:
            p += 4
        types.append(t)
    return types


def subset(types, targets, ksyms):
    by_name = {}
    for i, t in enumerate(types[1:], 1):
        if t["kind"] in ("struct", "union", "func", "typedef") and t["name"]:
            by_name.setdefault((t["kind"] if t["kind"] in ("func", "typedef") else "struct", t["name"]), i)
    root_funcs, root_structs, root_typedefs = list(ROOT_FUNCS), list(ROOT_STRUCTS), []
    attach_funcs = set()
    for kind, name in targets:
        prefix = SEC_PREFIX[kind]
        if prefix == "btf_trace_":
            if ("typedef", prefix + name) in by_name:
                root_typedefs.append(prefix + name)
            if ("func", "__bpf_trace_" + name) in by_name:
                root_funcs.append("__bpf_trace_" + name)
        elif ("func", prefix + name) in by_name:
            root_funcs.append(prefix + name)
            attach_funcs.add(prefix + name)
            if prefix == "bpf_iter_" and ("struct", "bpf_iter__" + name) in by_name:
                root_structs.append("bpf_iter__" + name)
    keep = {}  # id -> "full" | "opaque"
    seen_arg = set()
    todo = []
    for s in root_structs:
        i = by_name.get(("struct", s))
        if i is None:
            print(f"warning: struct {s} not in BTF", file=sys.stderr)
            continue
        todo.append((i, "full"))
    for s in OPAQUE_STRUCTS:
        i = by_name.get(("struct", s))
        if i is None:
            print(f"warning: struct {s} not in BTF", file=sys.stderr)
            continue
        todo.append((i, "opaque"))
    for f in root_funcs:
        i = by_name.get(("func", f))
        if i is None:
            print(f"warning: func {f} not in BTF", file=sys.stderr)
            continue
        todo.append((i, "full"))
    for d in root_typedefs:
        i = by_name.get(("typedef", d))
        if i is None:
            print(f"warning: typedef {d} not in BTF", file=sys.stderr)
            continue
        todo.append((i, "full"))
        # the typedef is a pointer to the tracepoint's prototype: keep its
        # parameters (btf_ctx_access reads them)
        ptr = types[types[i]["st"]]
        if ptr["kind"] == "ptr":
            todo.append((ptr["st"], "full"))
    # an attach target's arguments: the structs they point to are kept whole
    # (the programs read their arguments' fields), what those point to by name
    args = set()
    for f in root_funcs:
        if by_name.get(("func", f)) and (f in attach_funcs):
            proto = types[types[by_name[("func", f)]]["st"]]
            args.update(p[1] for p in proto.get("params", []))
    for d in root_typedefs:
        ptr = types[types[by_name[("typedef", d)]]["st"]] if ("typedef", d) in by_name else None
        if ptr and ptr["kind"] == "ptr":
            args.update(p[1] for p in types[ptr["st"]].get("params", []))
    todo += [(i, "arg") for i in args]
    # the typed ksyms: their VARs, with the types they point to kept whole
    # (what a program reads through them)
    for i, t in enumerate(types[1:], 1):
        if t["kind"] == "var" and t["name"] in ksyms:
            todo.append((i, "full"))
    while todo:
        i, how = todo.pop()
        if i == 0 or keep.get(i) == "full" or (keep.get(i) == "opaque" and how == "opaque") or \
                (how == "arg" and i in seen_arg):
            continue
        t = types[i]
        k = t["kind"]
        if how == "arg":
            seen_arg.add(i)
            if k == "ptr":
                keep[i] = keep.get(i, "full")
                todo.append((t["st"], "full"))
            elif k in ("typedef", "const", "volatile", "restrict", "type_tag"):
                keep[i] = keep.get(i, "full")
                todo.append((t["st"], "arg"))
            else:
                todo.append((i, "full"))
            continue
        keep[i] = how
        if k in ("struct", "union"):
            if how == "full":
                todo += [(m[1], "full") for m in t["members"]]
        elif k == "ptr":
            # a pointee struct or function is named, not walked
            todo.append((t["st"], "opaque"))
        elif k == "array":
            todo.append((t["elem"], how))
        elif k in ("typedef", "const", "volatile", "restrict", "type_tag"):
            todo.append((t["st"], how))
        elif k == "func":
            todo.append((t["st"], "full"))
        elif k == "var":
            todo.append((t["st"], "full"))
        elif k == "func_proto":
            if how == "full":
                todo.append((t["st"], "full"))
                todo += [(p[1], "full") for p in t["params"]]
    return keep


def render(types, keep, image):
    out = [f"# vmlinux BTF subset of {image}, written by scripts/record-vmlinux-btf.py",
           "# (format in the script); ids are the kernel's"]
    # the VARs of the per-CPU section (find_btf_percpu_datasec)
    percpu = {v for t in types[1:] if t["kind"] == "datasec" and t["name"] == ".data..percpu" for v in t["vars"]}
    for i in sorted(keep):
        t = types[i]
        # base type names have spaces (`long unsigned int`)
        k, n = t["kind"], (t["name"] or "-").replace(" ", "_")
        opaque = keep[i] == "opaque"
        if k in ("struct", "union"):
            out.append(f"{i} {k} {n} size {t['st']}" + (" opaque" if opaque else ""))
            if not opaque:
                for mn, mt, mo, bits in t["members"]:
                    out.append(f"\t{mn or '-'} {mt} {mo}" + (f" {bits}" if bits else ""))
        elif k == "int":
            out.append(f"{i} int {n} size {t['st']} bits {t['bits']} enc {t['enc']}")
        elif k == "ptr":
            out.append(f"{i} ptr {t['st']}")
        elif k == "array":
            out.append(f"{i} array {t['elem']} {t['nelems']}")
        elif k in ("typedef", "const", "volatile", "restrict", "type_tag"):
            out.append(f"{i} {k} {n} {t['st']}")
        elif k in ("enum", "enum64", "float"):
            out.append(f"{i} {k} {n} size {t['st']}")
        elif k == "fwd":
            out.append(f"{i} fwd {n} {'union' if t['kflag'] else 'struct'}")
        elif k == "func":
            out.append(f"{i} func {n} {t['st']}")
        elif k == "var":
            out.append(f"{i} var {n} {t['st']}" + (" percpu" if i in percpu else ""))
        elif k == "func_proto":
            out.append(f"{i} func_proto {t['st']}" + (" opaque" if opaque else ""))
            if not opaque:
                for pn, pt in t["params"]:
                    out.append(f"\t{pn or '-'} {pt}")
        else:
            sys.exit(f"unexpected kind {k} of type {i}")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", choices=sorted(IMAGES), action="append")
    ap.add_argument("--btf", help="a raw vmlinux BTF file instead of the cached image")
    ap.add_argument("--src", default=os.path.join(CACHE, "linux-7.3"),
                    help="the kernel tree whose selftests' sections name the attach targets kept")
    ap.add_argument("--out", default=os.path.join(ROOT, "harness/model/data/vmlinux_btf"), help="where <arch>.txt go")
    ap.add_argument("--blob", action="store_true",
                    help="write the whole BTF to $BPF_SELFTEST_CACHE/btf/<version>-<arch>/vmlinux.btf, not the subset")
    a = ap.parse_args()
    for arch in a.arch or sorted(IMAGES):
        image = os.path.join(CACHE, "kernels", IMAGES[arch], "vmlinuz")
        btf = open(a.btf, "rb").read() if a.btf else read_image(image)
        if a.blob:
            write_blob(btf, arch, CACHE)
            continue
        types = parse(btf)
        keep = subset(types, selftest_attach_targets(a.src, arch), selftest_typed_ksyms(a.src))
        os.makedirs(a.out, exist_ok=True)
        dest = os.path.join(a.out, f"{arch}.txt")
        with open(dest, "w") as f:
            f.write(render(types, keep, IMAGES[arch]))
        print(f"{dest}: {len(keep)} of {len(types) - 1} types")


if __name__ == "__main__":
    main()
