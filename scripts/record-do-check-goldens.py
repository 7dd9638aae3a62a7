#!/usr/bin/env python3
"""Records what a real Linux 7.3 verifier does in its main pass (do_check),
for tests/verifier_do_check.rs.

Small programs without calls cover each area of do_check: stack spill/fill
and STACK_MISC/ZERO/INVALID slots, ctx access per prog type, direct packet
access, pointer arithmetic (privileged and unprivileged), map values loaded
with `r1 = m__value ll`, branches and pruning, loops, return codes,
precision. Each is loaded into 7.3 under QEMU by the oracle kit in
../shared/oracle (a reference instrument: this script only runs it) twice,
at log level 1 and at log level 2, and written to
expected/linux-7.3/do_check/<area>.txt:

    === <name>
    type: <prog type>
    opts: <extra oracle options: --unpriv, --map, --flags>
    asm:
      <the program, one insn or label per line>
    result: accepted verified_insns=<n> | rejected errno=<NAME>
    --- level 1
    <the whole log>
    --- level 2
    <the whole log>

  scripts/record-do-check-goldens.py [--arch x86_64] [--only AREA[,AREA...]] [--dry-run] [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("BPF_ORACLE_DIR", os.path.join(ROOT, "..", "shared", "oracle"))
OUT = os.path.join(ROOT, "expected", "linux-7.3", "do_check")

MAP = "--map m:array:4:8:1"

# (name, prog type, extra options, asm)
AREAS = {
    "stack": [
        ("spill_fill_const", "socket", "", "r1 = 5; *(u64 *)(r10 - 8) = r1; r2 = *(u64 *)(r10 - 8); r0 = r2; exit"),
        ("spill_fill_ctx", "socket", "", "*(u64 *)(r10 - 8) = r1; r2 = *(u64 *)(r10 - 8); r0 = *(u32 *)(r2 + 0); exit"),
        ("spill_fill_unknown", "socket", "", "r2 = *(u32 *)(r1 + 0); *(u64 *)(r10 - 8) = r2; r3 = *(u64 *)(r10 - 8); r0 = r3; exit"),
        ("st_zero_64", "socket", "", "*(u64 *)(r10 - 8) = 0; r2 = *(u64 *)(r10 - 8); r0 = r2; exit"),
        ("st_zero_32", "socket", "", "*(u32 *)(r10 - 4) = 0; r2 = *(u32 *)(r10 - 4); r0 = r2; exit"),
        ("st_imm_32", "socket", "", "*(u32 *)(r10 - 4) = 5; r2 = *(u32 *)(r10 - 4); r0 = r2; exit"),
        ("st_imm_64", "socket", "", "*(u64 *)(r10 - 16) = -3; r2 = *(u64 *)(r10 - 16); r0 = r2; exit"),
        ("st_bytes_misc", "socket", "", "*(u8 *)(r10 - 1) = 1; *(u16 *)(r10 - 4) = 7; r2 = *(u8 *)(r10 - 1); r0 = r2; exit"),
        ("uninit_read_priv", "socket", "", "r2 = *(u64 *)(r10 - 8); r0 = r2; exit"),
        ("uninit_read_unpriv", "socket", "--unpriv", "r2 = *(u64 *)(r10 - 8); r0 = 0; exit"),
        ("partial_uninit_unpriv", "socket", "--unpriv", "*(u32 *)(r10 - 8) = 0; r2 = *(u64 *)(r10 - 8); r0 = 0; exit"),
        ("spill32_fill32", "socket", "", "r1 = 5; *(u32 *)(r10 - 8) = r1; r2 = *(u32 *)(r10 - 8); r0 = r2; exit"),
        ("spill32_fill64", "socket", "", "r1 = 5; *(u32 *)(r10 - 8) = r1; r2 = *(u64 *)(r10 - 8); r0 = 0; exit"),
        ("spill64_fill32", "socket", "", "r1 = 5; *(u64 *)(r10 - 8) = r1; r2 = *(u32 *)(r10 - 8); r0 = r2; exit"),
        ("spill64_fill32_hi", "socket", "", "r1 = 5; *(u64 *)(r10 - 8) = r1; r2 = *(u32 *)(r10 - 4); r0 = r2; exit"),
        ("spill_unknown_fill8", "socket", "", "r2 = *(u32 *)(r1 + 0); *(u64 *)(r10 - 8) = r2; r3 = *(u8 *)(r10 - 8); r0 = r3; exit"),
        ("spill_ptr_fill32", "socket", "", "*(u64 *)(r10 - 8) = r1; r2 = *(u32 *)(r10 - 8); r0 = 0; exit"),
        ("overwrite_spill_byte", "socket", "", "*(u64 *)(r10 - 8) = r1; *(u8 *)(r10 - 8) = 0; r2 = *(u64 *)(r10 - 8); r0 = 0; exit"),
        ("write_oob_pos", "socket", "", "*(u64 *)(r10 + 8) = r1; r0 = 0; exit"),
        ("write_oob_neg", "socket", "", "*(u64 *)(r10 - 520) = r1; r0 = 0; exit"),
        ("misaligned", "socket", "", "*(u64 *)(r10 - 4) = r1; r0 = 0; exit"),
        ("fp_write", "socket", "", "r10 = 0; r0 = 0; exit"),
        ("fp_copy", "socket", "", "r1 = r10; r1 += -8; *(u64 *)(r1 + 0) = 0; r2 = *(u64 *)(r1 + 0); r0 = r2; exit"),
        ("fp_copy_off", "socket", "", "r1 = r10; r1 += -16; *(u64 *)(r1 + 8) = 0; r0 = *(u64 *)(r10 - 8); exit"),
        ("var_off_write", "socket", "", "r2 = *(u32 *)(r1 + 0); r2 &= 7; r3 = r10; r3 += -16; r3 += r2; *(u8 *)(r3 + 0) = 0; r0 = 0; exit"),
        ("var_off_read", "socket", "", "*(u64 *)(r10 - 16) = 0; *(u64 *)(r10 - 8) = 0; r2 = *(u32 *)(r1 + 0); r2 &= 7; r3 = r10; r3 += -16; r3 += r2; r0 = *(u8 *)(r3 + 0); exit"),
        ("var_off_read_uninit_unpriv", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r2 &= 7; r3 = r10; r3 += -16; r3 += r2; r0 = *(u8 *)(r3 + 0); r0 = 0; exit"),
        ("var_off_write_unpriv", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r2 &= 7; r3 = r10; r3 += -16; r3 += r2; *(u8 *)(r3 + 0) = 0; r0 = 0; exit"),
        ("two_slots", "socket", "", "r1 = 1; *(u64 *)(r10 - 8) = r1; r1 = 2; *(u64 *)(r10 - 24) = r1; r2 = *(u64 *)(r10 - 8); r3 = *(u64 *)(r10 - 24); r0 = r2; r0 += r3; exit"),
        ("stack_depth_512", "socket", "", "*(u64 *)(r10 - 512) = 0; r0 = *(u64 *)(r10 - 512); exit"),
        ("spill_fill_r10", "socket", "", "*(u64 *)(r10 - 8) = r10; r1 = *(u64 *)(r10 - 8); *(u64 *)(r1 - 16) = 0; r0 = 0; exit"),
        ("store_ptr_unpriv_misc", "socket", "--unpriv", "*(u32 *)(r10 - 8) = r1; r0 = 0; exit"),
        ("atomic_add_stack", "socket", "", "*(u64 *)(r10 - 8) = 0; r1 = 1; lock *(u64 *)(r10 - 8) += r1; r0 = *(u64 *)(r10 - 8); exit"),
    ],
    "ptr_alu": [
        ("ctx_add_deref", "socket", "", "r1 += 4; r0 = *(u32 *)(r1 + 0); exit"),
        ("stack_sub_k", "socket", "", "r1 = r10; r1 -= 8; r0 = 0; exit"),
        ("ptr_and", "socket", "", "r1 &= 1; r0 = 0; exit"),
        ("ptr_mul", "socket", "", "r1 *= 2; r0 = 0; exit"),
        ("ptr_alu32", "socket", "", "w1 += 1; r0 = 0; exit"),
        ("scalar_plus_ptr", "socket", "", "r2 = -8; r2 += r10; *(u64 *)(r2 + 0) = 0; r0 = 0; exit"),
        ("ptr_minus_ptr_priv", "socket", "", "r2 = r10; r2 -= r10; r0 = r2; exit"),
        ("ptr_minus_ptr_unpriv", "socket", "--unpriv", "r2 = r10; r2 -= r10; r0 = 0; exit"),
        ("scalar_minus_ptr", "socket", "", "r2 = 0; r2 -= r10; r0 = 0; exit"),
        ("mov32_ptr_priv", "socket", "", "w0 = w1; exit"),
        ("mov32_ptr_unpriv", "socket", "--unpriv", "w0 = w1; exit"),
        ("ret_ptr_priv", "socket", "", "r0 = r1; exit"),
        ("ret_ptr_unpriv", "socket", "--unpriv", "r0 = r10; exit"),
        ("ptr_cmp_unpriv", "socket", "--unpriv", "r0 = 0; if r1 == r10 goto l0; r0 = 1; l0: exit"),
        ("ptr_cmp_priv", "socket", "", "r0 = 0; if r1 == r10 goto l0; r0 = 1; l0: exit"),
        ("stack_var_add_unpriv", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r2 &= 7; r3 = r10; r3 += -16; r3 += r2; r0 = 0; exit"),
        ("stack_add_unknown", "socket", "", "r2 = *(u32 *)(r1 + 0); r3 = r10; r3 += r2; r0 = 0; exit"),
        ("ctx_add_var", "socket", "", "r2 = *(u32 *)(r1 + 0); r2 &= 7; r1 += r2; r0 = 0; exit"),
        ("neg_ptr", "socket", "", "r1 = -r1; r0 = 0; exit"),
        ("ptr_store_to_ctx", "socket", "", "*(u32 *)(r1 + 48) = r10; r0 = 0; exit"),
        ("stack_add_big", "socket", "", "r2 = r10; r2 += 0x20000000; r0 = 0; exit"),
        ("ptr_add_ptr", "socket", "", "r2 = r10; r2 += r1; r0 = 0; exit"),
        ("map_ptr_add", "socket", MAP, "r1 = m ll; r1 += 8; r0 = 0; exit"),
        ("map_ptr_add0", "socket", MAP, "r1 = m ll; r1 += 0; r0 = 0; exit"),
        ("bswap_ptr", "socket", "", "r1 = be64 r1; r0 = 0; exit"),
    ],
    "ctx": [
        ("socket_len", "socket", "", "r0 = *(u32 *)(r1 + 0); exit"),
        ("socket_fields", "socket", "", "r2 = *(u32 *)(r1 + 8); r3 = *(u32 *)(r1 + 16); r4 = *(u32 *)(r1 + 48); r0 = 0; exit"),
        ("socket_bad_off", "socket", "", "r0 = *(u32 *)(r1 + 76); exit"),
        ("socket_narrow", "socket", "", "r0 = *(u8 *)(r1 + 0); exit"),
        ("socket_narrow_hi", "socket", "", "r0 = *(u16 *)(r1 + 2); exit"),
        ("socket_write_len", "socket", "", "r2 = 1; *(u32 *)(r1 + 0) = r2; r0 = 0; exit"),
        ("socket_write_cb", "socket", "", "r2 = 1; *(u32 *)(r1 + 48) = r2; r0 = *(u32 *)(r1 + 48); exit"),
        ("socket_st_ctx", "socket", "", "*(u32 *)(r1 + 48) = 1; r0 = 0; exit"),
        ("socket_misaligned", "socket", "", "r0 = *(u32 *)(r1 + 1); exit"),
        ("socket_u64", "socket", "", "r0 = *(u64 *)(r1 + 0); exit"),
        ("socket_neg_off", "socket", "", "r0 = *(u32 *)(r1 - 4); exit"),
        ("xdp_fields", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = *(u32 *)(r1 + 8); r5 = *(u32 *)(r1 + 12); r0 = 2; exit"),
        ("xdp_write", "xdp", "", "r2 = 0; *(u32 *)(r1 + 12) = r2; r0 = 2; exit"),
        ("xdp_bad", "xdp", "", "r0 = *(u32 *)(r1 + 24); exit"),
        ("xdp_u64", "xdp", "", "r0 = *(u64 *)(r1 + 0); exit"),
        ("tc_fields", "tc", "", "r2 = *(u32 *)(r1 + 76); r3 = *(u32 *)(r1 + 80); r4 = *(u32 *)(r1 + 8); r5 = *(u32 *)(r1 + 0); r0 = 0; exit"),
        ("tc_write_mark", "tc", "", "r2 = 1; *(u32 *)(r1 + 8) = r2; *(u32 *)(r1 + 32) = r2; r0 = 0; exit"),
        ("tc_write_len", "tc", "", "r2 = 1; *(u32 *)(r1 + 0) = r2; r0 = 0; exit"),
        ("tc_tstamp", "tc", "", "r0 = *(u64 *)(r1 + 152); exit"),
        ("cgroup_skb_read", "cgroup_skb", "--attach-type cgroup_inet_ingress", "r2 = *(u32 *)(r1 + 0); r0 = 1; exit"),
        ("raw_tp_arg", "raw_tp", "", "r2 = *(u64 *)(r1 + 0); r3 = *(u64 *)(r1 + 8); r0 = 0; exit"),
        ("raw_tp_u32", "raw_tp", "", "r2 = *(u32 *)(r1 + 0); r0 = 0; exit"),
        ("raw_tp_write", "raw_tp", "", "r2 = 0; *(u64 *)(r1 + 0) = r2; r0 = 0; exit"),
        ("kprobe_regs", "kprobe", "", "r2 = *(u64 *)(r1 + 0); r3 = *(u64 *)(r1 + 160); r0 = 0; exit"),
        ("kprobe_bad", "kprobe", "", "r2 = *(u64 *)(r1 + 168); r0 = 0; exit"),
        ("tracepoint_read", "tracepoint", "", "r2 = *(u64 *)(r1 + 8); r0 = 0; exit"),
        ("ctx_var_off", "socket", "", "r2 = *(u32 *)(r1 + 0); r2 &= 4; r1 += r2; r0 = *(u32 *)(r1 + 0); exit"),
        ("ctx_spill_deref", "xdp", "", "*(u64 *)(r10 - 8) = r1; r1 = 0; r2 = *(u64 *)(r10 - 8); r0 = *(u32 *)(r2 + 12); r0 = 2; exit"),
    ],
    "packet": [
        ("xdp_ok", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 8; if r4 > r3 goto l0; r0 = *(u8 *)(r2 + 0); r0 = *(u32 *)(r2 + 4); l0: r0 = 2; exit"),
        ("xdp_nocheck", "xdp", "", "r2 = *(u32 *)(r1 + 0); r0 = *(u8 *)(r2 + 0); r0 = 2; exit"),
        ("xdp_beyond", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 8; if r4 > r3 goto l0; r0 = *(u32 *)(r2 + 6); l0: r0 = 2; exit"),
        ("xdp_lt", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 14; if r3 < r4 goto l0; r0 = *(u16 *)(r2 + 12); l0: r0 = 2; exit"),
        ("xdp_ge", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 4; if r3 >= r4 goto l0; r0 = 2; exit; l0: r0 = *(u32 *)(r2 + 0); r0 = 2; exit"),
        ("xdp_le", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 4; if r4 <= r3 goto l0; r0 = 2; exit; l0: r0 = *(u32 *)(r2 + 0); r0 = 2; exit"),
        ("xdp_write", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 8; if r4 > r3 goto l0; r5 = 7; *(u64 *)(r2 + 0) = r5; l0: r0 = 2; exit"),
        ("xdp_meta", "xdp", "", "r2 = *(u32 *)(r1 + 8); r3 = *(u32 *)(r1 + 0); r4 = r2; r4 += 4; if r4 > r3 goto l0; r0 = *(u32 *)(r2 + 0); l0: r0 = 2; exit"),
        ("xdp_var_off", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 16; if r4 > r3 goto l0; r5 = *(u8 *)(r2 + 0); r5 &= 7; r2 += r5; r0 = *(u8 *)(r2 + 0); l0: r0 = 2; exit"),
        ("xdp_var_then_check", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 1; if r4 > r3 goto l0; r5 = *(u8 *)(r2 + 0); r2 += r5; r4 = r2; r4 += 2; if r4 > r3 goto l0; r0 = *(u16 *)(r2 + 0); l0: r0 = 2; exit"),
        ("xdp_end_deref", "xdp", "", "r3 = *(u32 *)(r1 + 4); r0 = *(u8 *)(r3 + 0); r0 = 2; exit"),
        ("xdp_end_arith", "xdp", "", "r3 = *(u32 *)(r1 + 4); r3 += 1; r0 = 2; exit"),
        ("xdp_two_checks", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 8; if r4 > r3 goto l0; r4 = r2; r4 += 16; if r4 > r3 goto l0; r0 = *(u64 *)(r2 + 8); l0: r0 = 2; exit"),
        ("tc_ok", "tc", "", "r2 = *(u32 *)(r1 + 76); r3 = *(u32 *)(r1 + 80); r4 = r2; r4 += 14; if r4 > r3 goto l0; r0 = *(u16 *)(r2 + 12); l0: r0 = 0; exit"),
        ("tc_write", "tc", "", "r2 = *(u32 *)(r1 + 76); r3 = *(u32 *)(r1 + 80); r4 = r2; r4 += 14; if r4 > r3 goto l0; *(u8 *)(r2 + 0) = 1; l0: r0 = 0; exit"),
        ("socket_no_pkt", "socket", "", "r2 = *(u32 *)(r1 + 76); r0 = 0; exit"),
        ("cgroup_skb_pkt", "cgroup_skb", "--attach-type cgroup_inet_ingress", "r2 = *(u32 *)(r1 + 76); r3 = *(u32 *)(r1 + 80); r4 = r2; r4 += 1; if r4 > r3 goto l0; r0 = *(u8 *)(r2 + 0); l0: r0 = 1; exit"),
        ("xdp_pkt_unpriv_cmp", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); if r2 > r3 goto l0; r0 = 1; l0: r0 = 2; exit"),
        ("xdp_pkt_ptr_ret", "xdp", "", "r0 = *(u32 *)(r1 + 0); exit"),
        ("xdp_spill_pkt", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 8; if r4 > r3 goto l0; *(u64 *)(r10 - 8) = r2; r5 = *(u64 *)(r10 - 8); r0 = *(u8 *)(r5 + 7); l0: r0 = 2; exit"),
    ],
    "map_value": [
        ("value_read", "socket", MAP, "r1 = m__value ll; r0 = *(u64 *)(r1 + 0); exit"),
        ("value_oob", "socket", MAP, "r1 = m__value ll; r0 = *(u64 *)(r1 + 4); exit"),
        ("value_neg", "socket", MAP, "r1 = m__value ll; r0 = *(u8 *)(r1 - 1); exit"),
        ("value_null_check", "socket", MAP, "r1 = m__value ll; if r1 == 0 goto l0; r0 = *(u32 *)(r1 + 4); exit; l0: r0 = 1; exit"),
        ("value_ne_check", "socket", MAP, "r1 = m__value ll; if r1 != 0 goto l0; r0 = 1; exit; l0: r0 = *(u32 *)(r1 + 4); exit"),
        ("value_write", "socket", MAP, "r1 = m__value ll; r2 = 3; *(u64 *)(r1 + 0) = r2; r0 = 0; exit"),
        ("value_var_off", "socket", MAP, "r1 = m__value ll; r2 = *(u32 *)(r1 + 0); r2 &= 4; r1 += r2; r0 = *(u32 *)(r1 + 0); exit"),
        ("value_var_off_oob", "socket", MAP, "r1 = m__value ll; r2 = *(u32 *)(r1 + 0); r2 &= 7; r1 += r2; r0 = *(u32 *)(r1 + 0); exit"),
        ("value_unbounded", "socket", MAP, "r1 = m__value ll; r2 = *(u64 *)(r1 + 0); r1 += r2; r0 = *(u8 *)(r1 + 0); exit"),
        ("map_ptr_print", "socket", MAP, "r1 = m ll; r0 = 0; exit"),
        ("map_ptr_deref", "socket", MAP, "r1 = m ll; r0 = *(u64 *)(r1 + 0); exit"),
        ("value_spill", "socket", MAP, "r1 = m__value ll; *(u64 *)(r10 - 8) = r1; r2 = *(u64 *)(r10 - 8); r0 = *(u64 *)(r2 + 0); exit"),
        ("value_unpriv_ret", "socket", MAP + " --unpriv", "r0 = m__value ll; exit"),
        ("value_unpriv_alu", "socket", MAP + " --unpriv", "r1 = m__value ll; r2 = *(u32 *)(r1 + 0); r2 &= 4; r1 += r2; r0 = *(u32 *)(r1 + 0); exit"),
        ("value_unpriv_store_ptr", "socket", MAP + " --unpriv", "r1 = m__value ll; *(u64 *)(r1 + 0) = r10; r0 = 0; exit"),
        ("value_off_imm", "socket", MAP, "r1 = m__value ll; r1 += 4; r0 = *(u32 *)(r1 + 0); exit"),
    ],
    "branch": [
        ("diamond", "socket", "", "r2 = *(u32 *)(r1 + 0); if r2 > 5 goto l0; r3 = 1; goto l1; l0: r3 = 2; l1: r0 = 0; exit"),
        ("diamond_use", "socket", "", "r2 = *(u32 *)(r1 + 0); if r2 > 5 goto l0; r3 = 1; goto l1; l0: r3 = 2; l1: r0 = r3; exit"),
        ("decided", "socket", "", "r2 = 3; r2 ^= 0; if r2 > 5 goto l0; r0 = 0; exit; l0: r0 = 1; exit"),
        ("decided_jmp32", "socket", "", "r2 = 3; r2 ^= 0; if w2 == 3 goto l0; r0 = 0; exit; l0: r0 = 1; exit"),
        ("prune_same", "socket", "", "r2 = *(u32 *)(r1 + 0); r0 = 0; if r2 > 5 goto l0; r0 = 0; l0: r3 = 1; r3 += 1; r3 += 1; r3 += 1; r3 += 1; r3 += 1; r3 += 1; exit"),
        ("nested", "socket", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r0 = 0; if r2 > 5 goto l0; if r3 > 7 goto l1; r0 = 1; l1: r0 += 1; l0: exit"),
        ("jset", "socket", "", "r2 = *(u32 *)(r1 + 0); if r2 & 4 goto l0; r0 = 0; exit; l0: r0 = r2; exit"),
        ("jmp32_ranges", "socket", "", "r2 = *(u32 *)(r1 + 0); if w2 s> 10 goto l0; if w2 s< 2 goto l0; r0 = r2; exit; l0: r0 = 0; exit"),
        ("reg_reg", "socket", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); if r2 > r3 goto l0; r0 = r2; exit; l0: r0 = r3; exit"),
        ("uninit_cond", "socket", "", "if r2 > 5 goto l0; l0: r0 = 0; exit"),
        ("linked_ids", "socket", "", "r2 = *(u32 *)(r1 + 0); r3 = r2; if r2 > 5 goto l0; r0 = r3; exit; l0: r0 = 0; exit"),
        ("many_paths", "socket", "", "r2 = *(u32 *)(r1 + 0); r0 = 0; if r2 & 1 goto l0; r0 += 1; l0: if r2 & 2 goto l1; r0 += 2; l1: if r2 & 4 goto l2; r0 += 4; l2: if r2 & 8 goto l3; r0 += 8; l3: exit"),
        ("many_paths_dead", "socket", "", "r2 = *(u32 *)(r1 + 0); r0 = 0; r3 = 0; if r2 & 1 goto l0; r3 = 1; l0: if r2 & 2 goto l1; r3 = 1; l1: if r2 & 4 goto l2; r3 = 1; l2: if r2 & 8 goto l3; r3 = 1; l3: exit"),
        ("state_freq", "socket", "--flags state_freq", "r2 = *(u32 *)(r1 + 0); r0 = 0; if r2 > 5 goto l0; r0 = 1; l0: r0 += 1; exit"),
        ("ja_forward", "socket", "", "r0 = 0; goto l0; r0 = 1; l0: exit"),
        ("unreachable_via_fold", "socket", "", "r2 = 0; if r2 != 0 goto l0; r0 = 0; exit; l0: r0 = 1; exit"),
    ],
    "loop": [
        ("bounded", "socket", "", "r1 = 0; l0: r1 += 1; if r1 < 10 goto l0; r0 = r1; exit"),
        ("bounded_unknown", "socket", "", "r2 = *(u32 *)(r1 + 0); r2 &= 7; r0 = 0; l0: r0 += 1; r2 -= 1; if r2 s> 0 goto l0; exit"),
        ("infinite", "socket", "", "r0 = 0; l0: r0 = 0; goto l0"),
        ("infinite_cond", "socket", "", "r1 = 0; l0: if r1 < 10 goto l0; r0 = 0; exit"),
        ("loop_down", "socket", "", "r1 = 5; r0 = 0; l0: r0 += r1; r1 -= 1; if r1 != 0 goto l0; exit"),
        ("loop_stack", "socket", "", "r1 = 0; l0: *(u64 *)(r10 - 8) = r1; r1 = *(u64 *)(r10 - 8); r1 += 1; if r1 < 4 goto l0; r0 = 0; exit"),
        ("loop_unpriv", "socket", "--unpriv", "r1 = 0; l0: r1 += 1; if r1 < 3 goto l0; r0 = 0; exit"),
    ],
    "retcode": [
        ("no_r0", "socket", "", "exit"),
        ("cgroup_skb_ok", "cgroup_skb", "--attach-type cgroup_inet_ingress", "r0 = 1; exit"),
        ("cgroup_skb_bad", "cgroup_skb", "--attach-type cgroup_inet_ingress", "r0 = 2; exit"),
        ("cgroup_skb_unknown", "cgroup_skb", "--attach-type cgroup_inet_ingress", "r0 = *(u32 *)(r1 + 0); exit"),
        ("cgroup_skb_range", "cgroup_skb", "--attach-type cgroup_inet_ingress", "r0 = *(u32 *)(r1 + 0); r0 &= 1; exit"),
        ("xdp_any", "xdp", "", "r0 = *(u32 *)(r1 + 12); exit"),
        ("raw_tp_any", "raw_tp", "", "r0 = -1; exit"),
        ("kprobe_any", "kprobe", "", "r0 = 7; exit"),
        ("cgroup_sock_bad", "cgroup_sock", "", "r0 = 3; exit"),
        ("ret_ptr_xdp", "xdp", "", "r0 = r10; exit"),
        ("ret_uninit_branch", "socket", "", "r2 = *(u32 *)(r1 + 0); if r2 > 5 goto l0; r0 = 0; l0: exit"),
    ],
    "precision": [
        ("ptr_add_const_reg", "socket", "", "r2 = 8; r2 ^= 0; r3 = r10; r3 += -16; r3 += r2; *(u64 *)(r3 + 0) = 0; r0 = 0; exit"),
        ("stack_var_prune", "socket", "", "r2 = *(u32 *)(r1 + 0); r3 = 0; if r2 > 5 goto l0; r3 = 8; l0: r4 = r10; r4 += -16; r4 += r3; *(u64 *)(r4 + 0) = 0; r0 = 0; exit"),
        ("decided_precise", "socket", "", "r2 = *(u32 *)(r1 + 0); r3 = 3; r3 ^= 0; if r2 > 5 goto l0; r3 = 4; r3 ^= 0; l0: if r3 > 3 goto l1; r0 = 0; exit; l1: r0 = 1; exit"),
        ("retcode_precise", "cgroup_skb", "--attach-type cgroup_inet_ingress", "r2 = *(u32 *)(r1 + 0); r0 = 0; if r2 > 5 goto l0; r0 = 1; l0: exit"),
        ("spill_precise", "socket", "", "r2 = 8; r2 ^= 0; *(u64 *)(r10 - 8) = r2; r3 = *(u64 *)(r10 - 8); r4 = r10; r4 += -16; r4 += r3; *(u64 *)(r4 + 0) = 0; r0 = 0; exit"),
        ("value_var_precise", "socket", MAP, "r1 = m__value ll; r2 = *(u32 *)(r1 + 0); r3 = 0; if r2 > 5 goto l0; r3 = 4; l0: r1 += r3; r0 = *(u32 *)(r1 + 0); exit"),
    ],
    "ctx_more": [
        ("syscall_read", "syscall", "--flags sleepable", "r2 = *(u64 *)(r1 + 0); r0 = 0; exit"),
        ("syscall_var_off", "syscall", "--flags sleepable", "r2 = *(u32 *)(r1 + 0); r2 &= 7; r1 += r2; r0 = *(u8 *)(r1 + 0); r0 = 0; exit"),
        ("syscall_oob", "syscall", "--flags sleepable", "r1 += 65535; r0 = *(u8 *)(r1 + 0); r0 = 0; exit"),
        ("syscall_neg", "syscall", "--flags sleepable", "r1 += -8; r0 = *(u8 *)(r1 + 0); r0 = 0; exit"),
        ("syscall_write", "syscall", "--flags sleepable", "r2 = 1; *(u32 *)(r1 + 8) = r2; r0 = 0; exit"),
        ("syscall_unaligned", "syscall", "--flags sleepable", "r0 = *(u32 *)(r1 + 3); r0 = 0; exit"),
        ("syscall_var_unbounded", "syscall", "--flags sleepable", "r2 = *(u32 *)(r1 + 0); r1 += r2; r0 = *(u8 *)(r1 + 0); r0 = 0; exit"),
        ("sk_lookup_fields", "sk_lookup", "--attach-type sk_lookup", "r2 = *(u32 *)(r1 + 8); r3 = *(u16 *)(r1 + 36); r4 = *(u32 *)(r1 + 36); r5 = *(u8 *)(r1 + 64); r0 = 0; exit"),
        ("sk_lookup_sk", "sk_lookup", "--attach-type sk_lookup", "r2 = *(u64 *)(r1 + 0); r0 = 1; exit"),
        ("sk_lookup_sk_narrow", "sk_lookup", "--attach-type sk_lookup", "r2 = *(u32 *)(r1 + 0); r0 = 0; exit"),
        ("sk_lookup_write", "sk_lookup", "--attach-type sk_lookup", "r2 = 0; *(u32 *)(r1 + 8) = r2; r0 = 0; exit"),
        ("sk_lookup_ret", "sk_lookup", "--attach-type sk_lookup", "r0 = 2; exit"),
        ("sk_lookup_pad", "sk_lookup", "--attach-type sk_lookup", "r2 = *(u16 *)(r1 + 38); r0 = 0; exit"),
        ("sk_lookup_end", "sk_lookup", "--attach-type sk_lookup", "r2 = *(u32 *)(r1 + 68); r0 = 0; exit"),
        ("cgroup_sock_ret", "cgroup_sock", "", "r0 = 2; exit"),
    ],
    "spectre": [
        ("spec_branch", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r2 &= 1; r0 = 0; if r2 > 3 goto l0; r0 = 1; l0: exit"),
        ("spec_path_error", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r2 &= 1; r3 = 0; if r2 > 3 goto l0; r0 = 0; exit; l0: r0 = *(u64 *)(r3 + 0); exit"),
        ("spec_path_error_fallthrough", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r2 |= 8; r3 = 0; if r2 > 3 goto l0; r0 = *(u64 *)(r3 + 0); exit; l0: r0 = 0; exit"),
        ("spec_store_ptr", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r2 &= 1; if r2 > 3 goto l0; r0 = 0; exit; l0: *(u64 *)(r10 - 8) = r1; r0 = 0; exit"),
        ("spec_store_over_spill", "socket", "--unpriv", "*(u64 *)(r10 - 8) = r1; r2 = *(u32 *)(r1 + 0); r2 &= 1; if r2 > 3 goto l0; r0 = 0; exit; l0: r3 = 0; *(u64 *)(r10 - 8) = r3; r0 = 0; exit"),
        ("map_var_add", "socket", "--map m:array:4:8:1 --unpriv", "r1 = m__value ll; r2 = *(u8 *)(r1 + 0); r2 &= 3; r1 += r2; r0 = *(u8 *)(r1 + 0); r0 = 0; exit"),
        ("map_var_sub", "socket", "--map m:array:4:8:1 --unpriv", "r1 = m__value ll; r1 += 7; r2 = *(u8 *)(r1 + 0); r2 &= 3; r1 -= r2; r0 = *(u8 *)(r1 + 0); r0 = 0; exit"),
        ("map_mixed_bounds", "socket", "--map m:array:4:8:1 --unpriv", "r1 = m__value ll; r2 = *(u8 *)(r1 + 0); r2 -= 2; r1 += r2; r0 = 0; exit"),
        ("map_reg_const", "socket", "--map m:array:4:8:1 --unpriv", "r1 = m__value ll; r3 = 4; r1 += r3; r0 = *(u8 *)(r1 + 0); r0 = 0; exit"),
        ("map_beyond", "socket", "--map m:array:4:8:1 --unpriv", "r1 = m__value ll; r1 += 7; r3 = 1; r1 += r3; r0 = 0; exit"),
        ("map_paths", "socket", "--map m:array:4:8:1 --unpriv", "r6 = m__value ll; r2 = *(u8 *)(r6 + 0); if r2 > 1 goto l0; r3 = 1; goto l1; l0: r3 = 2; l1: r6 += r3; r0 = *(u8 *)(r6 + 0); r0 = 0; exit"),
        ("val_and_ptr_paths", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r4 = 1; if r2 > 1 goto l0; r3 = r10; r3 += -16; goto l1; l0: r3 = 5; l1: r3 += r4; r0 = 0; exit"),
        ("stack_reg_add", "socket", "--unpriv", "r3 = r10; r4 = -8; r3 += r4; *(u64 *)(r3 + 0) = 0; r0 = *(u64 *)(r10 - 8); exit"),
        ("scalar_add_reg", "socket", "--unpriv", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r2 += r3; r0 = 0; exit"),
        ("spec_branch_priv", "socket", "", "r2 = *(u32 *)(r1 + 0); r2 &= 1; r0 = 0; if r2 > 3 goto l0; r0 = 1; l0: exit"),
    ],
    "scc": [
        ("may_goto_count", "socket", "", "r0 = 0; l0: may_goto l1; r0 += 1; goto l0; l1: exit"),
        ("may_goto_precise", "socket", "", "r6 = *(u32 *)(r1 + 0); r6 &= 7; r7 = 0; l0: may_goto l1; r7 = r6; goto l0; l1: r8 = r10; r8 += -16; r8 += r7; *(u8 *)(r8 + 0) = 0; r0 = 0; exit"),
        ("may_goto_branchy", "socket", "", "r6 = *(u32 *)(r1 + 0); r7 = 0; l0: may_goto l2; if r6 > 5 goto l1; r7 += 1; goto l0; l1: r7 += 2; goto l0; l2: r0 = 0; exit"),
        ("may_goto_nested", "socket", "", "r6 = 0; l0: may_goto l3; r7 = 0; l1: may_goto l2; r7 += 1; goto l1; l2: r6 += 1; goto l0; l3: r0 = 0; exit"),
        ("may_goto_spill", "socket", "", "r6 = *(u32 *)(r1 + 0); r6 &= 3; *(u64 *)(r10 - 8) = r6; l0: may_goto l1; r7 = *(u64 *)(r10 - 8); r7 += 1; r7 &= 3; *(u64 *)(r10 - 8) = r7; goto l0; l1: r2 = *(u64 *)(r10 - 8); r3 = r10; r3 += -16; r3 += r2; *(u8 *)(r3 + 0) = 0; r0 = 0; exit"),
        ("may_goto_state_freq", "socket", "--flags state_freq", "r0 = 0; l0: may_goto l1; r0 += 1; goto l0; l1: exit"),
        ("may_goto_unbounded", "socket", "", "r7 = 0; l0: may_goto l1; r7 += 8; goto l0; l1: r8 = r10; r8 += -16; r8 += r7; r0 = *(u8 *)(r8 + 0); exit"),
        ("may_goto_precise_cond", "socket", "", "r6 = *(u32 *)(r1 + 0); r7 = 0; l0: may_goto l2; if r7 > 2 goto l1; r7 += 1; goto l0; l1: r7 = 0; goto l0; l2: r8 = r10; r8 += -8; r8 += r7; *(u8 *)(r8 + 0) = 0; r0 = 0; exit"),
        ("loop_diamond", "socket", "", "r6 = *(u32 *)(r1 + 0); r7 = 0; l0: if r6 > 3 goto l1; r7 += 1; l1: r7 += 1; if r7 < 6 goto l0; r0 = 0; exit"),
        ("loop_50", "socket", "", "r0 = 0; l0: r0 += 1; if r0 < 50 goto l0; exit"),
        ("loop_200_state_freq", "socket", "--flags state_freq", "r1 = 0; l0: r1 += 1; if r1 < 200 goto l0; r0 = 0; exit"),
        ("loop_unknown_exit", "socket", "", "r6 = *(u32 *)(r1 + 0); r6 &= 15; r7 = 0; l0: r7 += 1; if r7 < r6 goto l0; r0 = r7; exit"),
    ],
    "diag": [
        ("fill_lineage", "socket", "", "r2 = 0; *(u64 *)(r10 - 8) = r2; r3 = *(u64 *)(r10 - 8); r0 = *(u32 *)(r3 + 0); exit"),
        ("mov_lineage", "socket", "", "r2 = 5; r3 = r2; r3 += 1; r0 = *(u32 *)(r3 + 0); exit"),
        ("scrub_spilled", "socket", "", "*(u64 *)(r10 - 8) = r1; *(u32 *)(r10 - 8) = 0; r2 = *(u64 *)(r10 - 8); r0 = *(u32 *)(r2 + 0); exit"),
        ("var_off_scrub", "socket", "", "*(u64 *)(r10 - 8) = r1; r2 = *(u32 *)(r1 + 0); r2 &= 4; r3 = r10; r3 += -8; r3 += r2; *(u8 *)(r3 + 0) = 0; r4 = *(u64 *)(r10 - 8); r0 = *(u32 *)(r4 + 0); exit"),
        ("corrupt_spill_unpriv", "socket", "--unpriv", "*(u64 *)(r10 - 8) = r10; *(u32 *)(r10 - 8) = 0; r0 = 0; exit"),
        ("atomic_fetch_lineage", "socket", "", "*(u64 *)(r10 - 8) = 0; r2 = 1; r2 = atomic_fetch_add((u64 *)(r10 - 8), r2); r0 = *(u32 *)(r2 + 0); exit"),
        ("branch_then_uninit", "socket", "", "r2 = *(u32 *)(r1 + 0); if r2 > 5 goto l0; r3 = 1; l0: if r2 < 3 goto l1; r0 = r3; exit; l1: r0 = 0; exit"),
        ("many_events", "socket", "", "r2 = 0; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r2 += 1; r0 = *(u32 *)(r2 + 0); exit"),
        ("spill_ptr_deref_scalar_off", "socket", "", "*(u64 *)(r10 - 16) = r1; r2 = *(u64 *)(r10 - 16); r2 += 8; r0 = *(u32 *)(r2 + 0); exit"),
        ("ldimm_map_deref", "socket", "--map m:array:4:8:1", "r1 = m ll; r2 = r1; r0 = *(u64 *)(r2 + 8); exit"),
        ("value_bounds_loop", "socket", "--map m:array:4:8:1", "r1 = m__value ll; r2 = 0; l0: r2 += 2; if r2 < 8 goto l0; r1 += r2; r0 = *(u8 *)(r1 + 0); exit"),
    ],
    "misc": [
        ("ld_imm64", "socket", "", "r1 = 0x123456789 ll; r0 = r1; exit"),
        ("div0", "socket", "", "r2 = *(u32 *)(r1 + 0); r0 = 5; r0 /= r2; exit"),
        ("alu_uninit", "socket", "", "r0 = r5; exit"),
        ("alu_uninit_dst", "socket", "", "r5 += 1; r0 = 0; exit"),
        ("ldx_uninit", "socket", "", "r0 = *(u32 *)(r5 + 0); exit"),
        ("ldx_scalar", "socket", "", "r2 = 0; r0 = *(u32 *)(r2 + 0); exit"),
        ("stx_scalar", "socket", "", "r2 = 0; *(u32 *)(r2 + 0) = r1; r0 = 0; exit"),
        ("movsx", "socket", "", "r2 = *(u32 *)(r1 + 0); r0 = (s8)r2; exit"),
        ("ldsx_stack", "socket", "", "r1 = -5; *(u64 *)(r10 - 8) = r1; r0 = *(s8 *)(r10 - 8); exit"),
        ("ldsx_ctx", "socket", "", "r0 = *(s8 *)(r1 + 0); exit"),
        ("endian", "socket", "", "r2 = *(u32 *)(r1 + 0); r2 = be16 r2; r0 = r2; exit"),
        ("read_r10_uninit_stack_ok", "socket", "", "r0 = 0; r1 = *(u8 *)(r10 - 1); exit"),
        ("xor_self", "socket", "", "r2 = *(u32 *)(r1 + 0); r2 ^= r2; r0 = r2; exit"),
    ],
}


def run_oracle(arch, jobs):
    with tempfile.TemporaryDirectory() as tmp:
        lines = []
        for name, ptype, opts, asm, level in jobs:
            path = os.path.join(tmp, f"{name}.s")
            with open(path, "w") as f:
                f.write(asm.replace("; ", "\n") + "\n")
            lines.append(f"{name}: --asm {path} -t {ptype} --log-level {level} {opts}\n")
        jf = os.path.join(tmp, "jobs.txt")
        with open(jf, "w") as f:
            f.writelines(lines)
        res = subprocess.run([sys.executable, os.path.join(ORACLE, "vm_oracle.py"), "--arch", arch,
                              "--jobs", jf, "--json", "--jited", "none", "--only", "log"],
                             capture_output=True, text=True)
    # vm_oracle.py exits 1 when some program was rejected; the JSON is what counts
    try:
        doc = json.loads(res.stdout)
    except ValueError:
        sys.exit(f"vm_oracle.py failed:\n{res.stderr}{res.stdout[-3000:]}")
    return {p["name"]: p for p in doc["programs"]}


def record(areas, out, arch, script, dry_run=False):
    """Records every program of `areas` ({area: [(name, type, opts, asm)]})
    at log levels 1 and 2 into `out`/<area>.txt, in one boot."""
    jobs = []
    for area, progs in areas.items():
        for name, ptype, opts, asm in progs:
            for level in (1, 2):
                jobs.append((f"{area}__{name}__l{level}", ptype, opts, asm, level))
    if dry_run:
        for j in jobs:
            print(j)
        return
    by_name = run_oracle(arch, jobs)
    os.makedirs(out, exist_ok=True)
    total = 0
    for area, progs in areas.items():
        with open(os.path.join(out, f"{area}.txt"), "w") as f:
            f.write(f"# Linux 7.3.4 {arch} (QEMU) verifier logs, levels 1 and 2.\n")
            f.write(f"# Recorded by scripts/{script}; do not edit.\n")
            for name, ptype, opts, asm in progs:
                p1 = by_name[f"{area}__{name}__l1"]
                p2 = by_name[f"{area}__{name}__l2"]
                total += 1
                if p2.get("accepted"):
                    result = f"accepted verified_insns={p2.get('verified_insns')}"
                else:
                    result = f"rejected errno={p2.get('errno_name')}"
                f.write(f"\n=== {name}\ntype: {ptype}\nopts: {opts}\nasm:\n")
                for l in asm.split("; "):
                    f.write(f"  {l}\n")
                f.write(f"result: {result}\n--- level 1\n{(p1.get('log') or '').rstrip(chr(10))}\n")
                f.write(f"--- level 2\n{(p2.get('log') or '').rstrip(chr(10))}\n")
    print(f"{total} programs in {len(areas)} areas -> {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="x86_64")
    ap.add_argument("--only", help="record only these areas (comma-separated)")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    areas = {k: AREAS[k] for k in a.only.split(",")} if a.only else AREAS
    record(areas, a.out, a.arch, "record-do-check-goldens.py", a.dry_run)


if __name__ == "__main__":
    main()
