#!/usr/bin/env python3
"""Records what a real Linux 7.3 kernel does with malformed and structural
programs: the verifier's front end (everything before the main pass) and the
level-2 prelude of programs that get past it.

  expected/linux-7.3/<arch>/verifier-front/<case>.json

Each file holds the load exactly as the kernel saw it (instruction slots, maps,
func_info, prog type, flags, log level and size, capabilities) and what came
back (verdict, errno, log, log_true_size, verified_insns). tests/verifier_front.rs
runs the model on each and requires the same.

The kernel is booted under QEMU by the oracle kit in ../shared/oracle (a
reference instrument: this script only runs it, one boot per arch).

  scripts/record-verifier-front.py [--arch x86_64|arm64|both] [--only NAME,...]
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.environ.get("BPF_ORACLE_DIR", os.path.join(ROOT, "..", "shared", "oracle"))


def ins(code, dst=0, src=0, off=0, imm=0):
    return struct.pack("<BBhi", code, (dst & 0xf) | ((src & 0xf) << 4), off, imm).hex()


def hexprog(*slots):
    return "--hex '" + " ".join(slots) + "'"


EXIT = ins(0x95)
R0_0 = ins(0xb7, 0, imm=0)
R0_1 = ins(0xb7, 0, imm=1)
CALL_PC = lambda off: ins(0x85, 0, 1, 0, off)  # noqa: E731  bpf-to-bpf call
GOTO = lambda off: ins(0x05, off=off)  # noqa: E731


def many_subprogs(n):
    """main calls n distinct subprograms (r0 = 0; exit each)."""
    main = [CALL_PC(0) for _ in range(n)] + [R0_0, EXIT]
    # call i targets subprog i at len(main) + 2*i
    main = [CALL_PC(len(main) + 2 * i - (i + 1)) for i in range(n)] + [R0_0, EXIT]
    subs = []
    for _ in range(n):
        subs += [R0_0, EXIT]
    return hexprog(*(main + subs))


def long_prog(n):
    return hexprog(*([R0_0] * (n - 1) + [EXIT]))


# name: options (vm_oracle.py jobs syntax). Socket filters unless said.
SF = "--type socket_filter"
CASES = [
    # ---- bpf_prog_load / log attributes: refused before the verifier, empty log
    ("attr_level16", f"{SF} --log-level 16 --asm-text 'r0 = 0; exit'"),
    ("attr_level32", f"{SF} --log-level 32 --asm-text 'r0 = 0; exit'"),
    ("attr_unknown_flag", f"{SF} --log-level 1 --flags 0x100 --asm-text 'r0 = 0; exit'"),
    ("attr_flag_1_20", f"{SF} --log-level 1 --flags 0x100000 --asm-text 'r0 = 0; exit'"),
    ("unpriv_xdp", "--type xdp --log-level 1 --unpriv --asm-text 'r0 = 0; exit'"),
    ("unpriv_kprobe", "--type kprobe --log-level 1 --unpriv --asm-text 'r0 = 0; exit'"),
    ("unpriv_tc", "--type sched_cls --log-level 1 --unpriv --asm-text 'r0 = 0; exit'"),
    ("unpriv_caps_bpf_tc", "--type sched_cls --log-level 1 --unpriv 39 --asm-text 'r0 = 0; exit'"),
    ("unpriv_caps_bpf_kprobe", "--type kprobe --log-level 1 --unpriv 39 --asm-text 'r0 = 0; exit'"),
    ("unpriv_too_long", f"{SF} --log-level 1 --unpriv {long_prog(4097)}"),
    ("sk_lookup_no_attach", "--type sk_lookup --log-level 1 --asm-text 'r0 = 0; exit'"),
    ("cgroup_sock_addr_no_attach", "--type cgroup_sock_addr --log-level 1 --asm-text 'r0 = 1; exit'"),
    ("syscall_attach", "--type syscall --flags sleepable --attach-type 1 --log-level 1 --asm-text 'r0 = 0; exit'"),
    # ---- err_prep: no statistics
    ("ldimm64_last_l1", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x18))}"),
    ("ldimm64_last_l2", f"{SF} --log-level 2 {hexprog(R0_0, ins(0x18))}"),
    ("ldimm64_only_l4", f"{SF} --log-level 4 {hexprog(ins(0x18))}"),
    # ---- add_subprogs
    ("call_dest_past_end", f"{SF} --log-level 1 {hexprog(CALL_PC(10), EXIT)}"),
    ("call_dest_negative_l2", f"{SF} --log-level 2 {hexprog(R0_0, CALL_PC(-5), EXIT)}"),
    ("call_dest_self_end", f"{SF} --log-level 1 {hexprog(CALL_PC(1), EXIT)}"),
    ("unpriv_call_l1", f"{SF} --log-level 1 --unpriv --asm-text 'call f; r0 = 0; exit; f: r0 = 1; exit'"),
    ("unpriv_call_l2", f"{SF} --log-level 2 --unpriv --asm-text 'call f; r0 = 0; exit; f: r0 = 1; exit'"),
    ("unpriv_call_l4", f"{SF} --log-level 4 --unpriv --asm-text 'call f; r0 = 0; exit; f: r0 = 1; exit'"),
    ("unpriv_func_ref", f"{SF} --log-level 1 --unpriv --asm-text 'r1 = f ll; r0 = 0; exit; f: r0 = 1; exit'"),
    ("unpriv_call_caps_bpf", f"{SF} --log-level 2 --unpriv 39 --asm-text 'call f; r0 = 0; exit; f: r0 = 1; exit'"),
    ("too_many_subprogs", f"{SF} --log-level 1 {many_subprogs(256)}"),
    ("max_subprogs_l4", f"{SF} --log-level 4 --unpriv 39 {many_subprogs(255)} "),
    # ---- check_subprogs
    ("jmp_oor_fwd_l1", f"{SF} --log-level 1 --asm-text 'goto +5; r0 = 0; exit'"),
    ("jmp_oor_fwd_l2", f"{SF} --log-level 2 --asm-text 'goto +5; r0 = 0; exit'"),
    ("jmp_oor_back", f"{SF} --log-level 1 {hexprog(R0_0, GOTO(-3), EXIT)}"),
    ("jmp_oor_cond", f"{SF} --log-level 1 --asm-text 'r0 = 0; if r0 > 3 goto +7; exit'"),
    ("jmp32_oor", f"{SF} --log-level 1 --asm-text 'r0 = 0; if w0 != 0 goto +3; exit'"),
    ("gotol_oor", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x06, imm=100000), EXIT)}"),
    ("gotol_oor_neg", f"{SF} --log-level 2 {hexprog(R0_0, ins(0x06, imm=-100000), EXIT)}"),
    ("jmp_into_subprog", f"{SF} --log-level 1 --asm-text 'call f; if r0 == 0 goto f; exit; f: r0 = 1; exit'"),
    ("jmp_out_of_subprog", f"{SF} --log-level 2 --asm-text 'call f; r0 = 0; exit; f: r0 = 1; goto -4'"),
    ("jmp_oor_wide_context", f"{SF} --log-level 1 {hexprog(*([R0_0] * 12 + [GOTO(100)] + [R0_0] * 3 + [EXIT]))}"),
    ("last_not_exit_main", f"{SF} --log-level 1 --asm-text 'r0 = 0'"),
    ("last_not_exit_main_l2", f"{SF} --log-level 2 --asm-text 'r0 = 0; r0 += 1'"),
    ("last_not_exit_sub", f"{SF} --log-level 1 --asm-text 'call f; r0 = 0; exit; f: r0 = 1'"),
    ("last_is_call", f"{SF} --log-level 1 --asm-text 'r0 = 0; call bpf_get_prandom_u32'"),
    ("last_cond_jump", f"{SF} --log-level 1 --asm-text 'r0 = 0; if r0 == 0 goto -1'"),
    ("sub_ends_ja", f"{SF} --log-level 1 --asm-text 'call f; r0 = 0; exit; f: r0 = 1; goto +0'"),
    ("ld_abs_in_subprog_nobtf", f"{SF} --log-level 1 --no-btf --asm-text 'r6 = r1; call f; exit; f: r6 = r1; r0 = *(u8 *)skb[0]; exit'"),
    ("tail_call_in_subprog_nobtf", f"{SF} --log-level 1 --no-btf --asm-text 'call f; r0 = 0; exit; f: r2 = 0; r3 = 0; call bpf_tail_call; r0 = 0; exit'"),
    ("nobtf_subprog_l2", f"{SF} --log-level 2 --no-btf --asm-text 'call f; r0 = 0; exit; f: r0 = 1; exit'"),
    # ---- bpf_check_btf_info: a call hidden in an ld_imm64's second half
    ("btf_func_count_mismatch", f"{SF} --log-level 1 {hexprog(ins(0x18), ins(0x85, 0, 1, 0, 1), EXIT, EXIT)}"),
    ("btf_func_count_mismatch_l4", f"{SF} --log-level 4 {hexprog(ins(0x18), ins(0x85, 0, 1, 0, 1), EXIT, EXIT)}"),
    # ---- check_and_resolve_insns
    ("r11_dst", f"{SF} --log-level 1 {hexprog(ins(0xb7, 11, imm=0), EXIT)}"),
    ("r11_src", f"{SF} --log-level 1 {hexprog(ins(0xbf, 0, 11), EXIT)}"),
    ("r12_src", f"{SF} --log-level 1 {hexprog(ins(0xbf, 0, 12), EXIT)}"),
    ("r15_dst", f"{SF} --log-level 2 {hexprog(ins(0xb7, 15, imm=0), EXIT)}"),
    ("r11_stack_arg_stx_dst", f"{SF} --log-level 1 {hexprog(ins(0x7b, 11, 1, -8), R0_0, ins(0x7b, 11, 1, -4), EXIT)}"),
    ("ldimm64_bad_second_code", f"{SF} --log-level 1 {hexprog(ins(0x18), ins(0xb7), EXIT)}"),
    ("ldimm64_bad_second_dst", f"{SF} --log-level 1 {hexprog(ins(0x18), ins(0x00, 1), EXIT)}"),
    ("ldimm64_bad_second_src", f"{SF} --log-level 1 {hexprog(ins(0x18), ins(0x00, 0, 1), EXIT)}"),
    ("ldimm64_bad_second_off", f"{SF} --log-level 1 {hexprog(ins(0x18), ins(0x00, off=1), EXIT)}"),
    ("ldimm64_off", f"{SF} --log-level 1 {hexprog(ins(0x18, off=3), ins(0x00), EXIT)}"),
    ("ldimm64_src7", f"{SF} --log-level 1 {hexprog(ins(0x18, 1, 7), ins(0x00), R0_0, EXIT)}"),
    ("ldimm64_src15", f"{SF} --log-level 2 {hexprog(ins(0x18, 1, 15), ins(0x00), R0_0, EXIT)}"),
    ("ldimm64_mapfd_hi_imm", f"{SF} --log-level 1 {hexprog(ins(0x18, 1, 1, imm=5), ins(0x00, imm=1), R0_0, EXIT)}"),
    ("ldimm64_map_idx", f"{SF} --log-level 1 {hexprog(ins(0x18, 1, 5), ins(0x00), R0_0, EXIT)}"),
    ("ldimm64_map_idx_value", f"{SF} --log-level 1 {hexprog(ins(0x18, 1, 6), ins(0x00), R0_0, EXIT)}"),
    ("map_fd_not_open", f"{SF} --log-level 1 {hexprog(ins(0x18, 1, 1, imm=1000), ins(0x00), R0_0, EXIT)}"),
    ("map_fd_not_map", f"{SF} --log-level 1 {hexprog(ins(0x18, 1, 1, imm=0), ins(0x00), R0_0, EXIT)}"),
    ("map_fd_stdout", f"{SF} --log-level 1 {hexprog(ins(0x18, 1, 2, imm=1), ins(0x00), R0_0, EXIT)}"),
    ("map_value_off_oob", f"{SF} --log-level 1 --map a:array:4:8:1 {hexprog(ins(0x18, 1, 2, imm=-1), ins(0x00, imm=8), R0_0, EXIT)}"),
    ("map_value_hash", f"{SF} --log-level 1 --map h:hash:4:8:4 {hexprog(ins(0x18, 1, 2, imm=-1), ins(0x00, imm=0), R0_0, EXIT)}"),
    ("map_value_array2", f"{SF} --log-level 1 --map a:array:4:8:2 {hexprog(ins(0x18, 1, 2, imm=-1), ins(0x00, imm=0), R0_0, EXIT)}"),
    ("map_value_percpu2", f"{SF} --log-level 1 --map a:percpu_array:4:8:2 {hexprog(ins(0x18, 1, 2, imm=-1), ins(0x00, imm=0), R0_0, EXIT)}"),
    ("map_value_ok_then_bad_op", f"{SF} --log-level 2 --map a:array:4:8:1 {hexprog(ins(0x18, 1, 2, imm=-1), ins(0x00, imm=4), ins(0xff), EXIT)}"),
    ("map_then_bad_op_unpriv", f"{SF} --log-level 2 --unpriv --map a:array:4:8:1 --asm-text 'r1 = a ll; .8byte 0xff; exit'"),
    ("two_cgroup_storages", "--type cgroup_skb --log-level 1 --map a:cgroup_storage:16:8:0 --map b:cgroup_storage:16:8:0 --asm-text 'r1 = a ll; r1 = b ll; r0 = 1; exit'"),
    ("sleepable_perf_event_array", "--type raw_tp --flags sleepable --log-level 1 --map p:perf_event_array:4:4:1 --asm-text 'r1 = p ll; r0 = 0; exit'"),
    ("op_ff", f"{SF} --log-level 1 {hexprog(ins(0xff), EXIT)}"),
    ("op_ff_l4", f"{SF} --log-level 4 {hexprog(ins(0xff), EXIT)}"),
    ("op_00_alone", f"{SF} --log-level 1 {hexprog(ins(0x00), EXIT)}"),
    ("op_callx", f"{SF} --log-level 1 {hexprog(ins(0x8d, 1), EXIT)}"),
    ("op_jmp32_call", f"{SF} --log-level 1 {hexprog(ins(0x86, imm=7), EXIT)}"),
    ("op_jmp32_exit", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x96))}"),
    ("op_alu64_to_be", f"{SF} --log-level 1 {hexprog(ins(0xdf, 0, imm=16), EXIT)}"),
    ("op_ldx_memsx_dw", f"{SF} --log-level 1 {hexprog(ins(0x99, 0, 10, -8), EXIT)}"),
    ("op_ld_mem", f"{SF} --log-level 1 {hexprog(ins(0x60, 0, 1), EXIT)}"),
    ("op_ld_abs_dw", f"{SF} --log-level 1 {hexprog(ins(0x38, imm=0), EXIT)}"),
    ("op_st_atomic", f"{SF} --log-level 1 {hexprog(ins(0xdb - 1, 10, 0, -8, 1), EXIT)}"),
    ("op_jmp_f5", f"{SF} --log-level 1 {hexprog(ins(0xf5), EXIT)}"),
    ("op_alu_e4", f"{SF} --log-level 1 {hexprog(ins(0xe4), EXIT)}"),
    ("op_alu64_8f", f"{SF} --log-level 1 {hexprog(ins(0x8f, 1, 2), EXIT)}"),
    ("rsv_neg_imm", f"{SF} --log-level 1 {hexprog(ins(0x87, 0, imm=1), EXIT)}"),
    ("rsv_neg_src", f"{SF} --log-level 1 {hexprog(ins(0x84, 0, 1), EXIT)}"),
    ("rsv_end_imm8", f"{SF} --log-level 1 {hexprog(ins(0xd4, 0, imm=8), EXIT)}"),
    ("rsv_end_off", f"{SF} --log-level 1 {hexprog(ins(0xdc, 0, off=1, imm=16), EXIT)}"),
    ("rsv_mov32_off32", f"{SF} --log-level 1 {hexprog(ins(0xbc, 0, 1, 32), EXIT)}"),
    ("rsv_mov64_off7", f"{SF} --log-level 1 {hexprog(ins(0xbf, 0, 1, 7), EXIT)}"),
    ("rsv_mov64x_imm", f"{SF} --log-level 1 {hexprog(ins(0xbf, 0, 1, 0, 3), EXIT)}"),
    ("rsv_movk_src", f"{SF} --log-level 1 {hexprog(ins(0xb7, 0, 1, 0, 3), EXIT)}"),
    ("rsv_movk_off", f"{SF} --log-level 1 {hexprog(ins(0xb7, 0, 0, 8, 3), EXIT)}"),
    ("rsv_as_cast_imm", f"{SF} --log-level 1 {hexprog(ins(0xbf, 0, 1, 1, 2), EXIT)}"),
    ("rsv_addx_imm", f"{SF} --log-level 1 {hexprog(ins(0x0f, 0, 1, 0, 1), EXIT)}"),
    ("rsv_addk_src", f"{SF} --log-level 1 {hexprog(ins(0x07, 0, 1, 0, 1), EXIT)}"),
    ("rsv_add_off1", f"{SF} --log-level 1 {hexprog(ins(0x07, 0, 0, 1, 1), EXIT)}"),
    ("rsv_div_off2", f"{SF} --log-level 1 {hexprog(ins(0x37, 0, 0, 2, 1), EXIT)}"),
    ("rsv_ldx_imm", f"{SF} --log-level 1 {hexprog(ins(0x79, 0, 10, -8, 1), EXIT)}"),
    ("rsv_stx_imm", f"{SF} --log-level 1 {hexprog(ins(0x7b, 10, 1, -8, 1), EXIT)}"),
    ("rsv_st_src", f"{SF} --log-level 1 {hexprog(ins(0x7a, 10, 1, -8, 1), EXIT)}"),
    ("rsv_call_dst", f"{SF} --log-level 1 {hexprog(ins(0x85, 1, 0, 0, 7), EXIT)}"),
    ("rsv_call_off", f"{SF} --log-level 1 {hexprog(ins(0x85, 0, 0, 1, 7), EXIT)}"),
    ("rsv_call_src3", f"{SF} --log-level 1 {hexprog(ins(0x85, 0, 3, 0, 7), EXIT)}"),
    ("rsv_callx_x", f"{SF} --log-level 1 {hexprog(ins(0x8d, 0, 0, 0, 7), EXIT)}"),
    ("rsv_ja_imm", f"{SF} --log-level 1 {hexprog(ins(0x05, 0, 0, 0, 1), EXIT)}"),
    ("rsv_ja_dst", f"{SF} --log-level 1 {hexprog(ins(0x05, 1, 0, 0, 0), EXIT)}"),
    ("rsv_gotol_off", f"{SF} --log-level 1 {hexprog(ins(0x06, 0, 0, 1, 0), EXIT)}"),
    ("rsv_gotox_off", f"{SF} --log-level 1 {hexprog(ins(0x0d, 1, 0, 1, 0), EXIT)}"),
    ("rsv_exit_imm", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x95, 0, 0, 0, 1))}"),
    ("rsv_exit_dst", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x95, 1))}"),
    ("rsv_jeqk_src", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x15, 0, 1, 0, 0), EXIT)}"),
    ("rsv_jeqx_imm", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x1d, 0, 1, 0, 1), EXIT)}"),
    ("rsv_jeq32x_imm", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x1e, 0, 1, 0, 1), EXIT)}"),
    ("rsv_may_goto_imm", f"{SF} --log-level 1 {hexprog(R0_0, ins(0xe5, 0, 0, 0, 3), EXIT)}"),
    ("rsv_may_goto_src", f"{SF} --log-level 1 {hexprog(R0_0, ins(0xe5, 0, 1, 0, 0), EXIT)}"),
    ("rsv_jcond_x", f"{SF} --log-level 1 {hexprog(R0_0, ins(0xed, 0, 0, 0, 0), EXIT)}"),
    ("rsv_ld_abs_dst", f"{SF} --log-level 1 {hexprog(ins(0xbf, 6, 1), ins(0x30, 1, 0, 0, 0), EXIT)}"),
    ("rsv_ld_abs_src", f"{SF} --log-level 1 {hexprog(ins(0xbf, 6, 1), ins(0x30, 0, 1, 0, 0), EXIT)}"),
    ("rsv_ld_ind_off", f"{SF} --log-level 1 {hexprog(ins(0xbf, 6, 1), ins(0x50, 0, 1, 1, 0), EXIT)}"),
    ("rsv_atomic_ok_then_cfg", f"{SF} --log-level 2 {hexprog(ins(0xdb, 10, 1, -8, 0x42), GOTO(5), EXIT)}"),
    ("kfunc_unpriv_l1", f"{SF} --log-level 1 --unpriv --asm-text 'call bpf_rcu_read_lock; r0 = 0; exit'"),
    ("kfunc_unpriv_l2", f"{SF} --log-level 2 --unpriv --asm-text 'call bpf_rcu_read_lock; r0 = 0; exit'"),
    ("kfunc_bad_id", f"--type raw_tp --log-level 1 {hexprog(ins(0x85, 0, 2, 0, -5), R0_0, EXIT)}"),
    ("kfunc_non_gpl", "--type raw_tp --log-level 1 --license MIT --asm-text 'call bpf_rcu_read_lock; call bpf_rcu_read_unlock; r0 = 0; exit'"),
    # ---- bpf_check_cfg
    ("backedge_unpriv_l1", f"{SF} --log-level 1 --unpriv --asm-text 'r0 = 0; l: r0 += 1; if r0 < 5 goto l; exit'"),
    ("backedge_unpriv_l2", f"{SF} --log-level 2 --unpriv --asm-text 'r0 = 0; l: r0 += 1; if r0 < 5 goto l; exit'"),
    ("backedge_unpriv_self", f"{SF} --log-level 1 --unpriv {hexprog(R0_0, GOTO(-1), EXIT)}"),
    ("backedge_unpriv_caps_bpf", f"{SF} --log-level 2 --unpriv 39 --asm-text 'r0 = 0; l: r0 += 1; if r0 < 5 goto l; exit'"),
    ("backedge_unpriv_in_sub", f"{SF} --log-level 1 --unpriv 39 --asm-text 'call f; exit; f: r0 = 0; l: r0 += 1; if r0 < 5 goto l; exit'"),
    ("unreachable_l1", f"{SF} --log-level 1 --asm-text 'r0 = 0; exit; r0 = 1; exit'"),
    ("unreachable_l2", f"{SF} --log-level 2 --asm-text 'r0 = 0; exit; r0 = 1; exit'"),
    ("unreachable_after_ja", f"{SF} --log-level 1 --asm-text 'r0 = 0; goto +1; r0 = 1; exit'"),
    ("unreachable_ldimm64", f"{SF} --log-level 1 --asm-text 'r0 = 0; exit; r1 = 5 ll; exit'"),
    ("unreachable_in_sub", f"{SF} --log-level 2 --asm-text 'call f; exit; f: r0 = 0; exit; r0 = 2; exit'"),
    ("unreachable_unpriv", f"{SF} --log-level 1 --unpriv --asm-text 'r0 = 0; exit; exit'"),
    ("jmp_into_ldimm64", f"{SF} --log-level 1 {hexprog(R0_0, ins(0x15, 0, 0, 1, 0), ins(0x18, 1, imm=1), ins(0x00), EXIT)}"),
    ("jmp_into_ldimm64_l2", f"{SF} --log-level 2 {hexprog(R0_0, ins(0x15, 0, 0, 1, 0), ins(0x18, 1, imm=1), ins(0x00), EXIT)}"),
    ("may_goto_jmp_oor", f"{SF} --log-level 1 {hexprog(R0_0, ins(0xe5, 0, 0, 9, 0), EXIT)}"),
    # ---- check_attach_btf_id
    ("sleepable_socket_filter", f"{SF} --log-level 1 --flags sleepable --asm-text 'r0 = 0; exit'"),
    ("sleepable_xdp_l2", "--type xdp --log-level 2 --flags sleepable --asm-text 'r0 = 2; exit'"),
    ("syscall_not_sleepable", "--type syscall --log-level 1 --asm-text 'r0 = 0; exit'"),
    ("syscall_not_sleepable_l4", "--type syscall --log-level 4 --asm-text 'r0 = 0; exit'"),
    # ---- sort_subprogs_topo
    ("recursion_self_l1", f"{SF} --log-level 1 --asm-text 'call f; r0 = 0; exit; f: call f; r0 = 1; exit'"),
    ("recursion_self_l2", f"{SF} --log-level 2 --asm-text 'call f; r0 = 0; exit; f: call f; r0 = 1; exit'"),
    ("recursion_mutual", f"{SF} --log-level 2 --asm-text 'call f; r0 = 0; exit; f: call g; r0 = 1; exit; g: call f; r0 = 2; exit'"),
    ("recursion_main", f"{SF} --log-level 1 --asm-text 'call f; r0 = 0; exit; f: call -2; r0 = 1; exit'"),
    ("recursion_l4", f"{SF} --log-level 4 --asm-text 'call f; r0 = 0; exit; f: call f; r0 = 1; exit'"),
    ("recursion_global", f"{SF} --log-level 1 --global f --asm-text 'call f; r0 = 0; exit; f: call f; r0 = 1; exit'"),
    ("recursion_nobtf", f"{SF} --log-level 2 --no-btf --asm-text 'call f; r0 = 0; exit; f: call f; r0 = 1; exit'"),
    ("recursion_after_fold", f"{SF} --log-level 2 --asm-text 'call f; r0 = 0; exit; f: r1 = 1; if r1 == 1 goto +1; call f; r0 = 1; exit'"),
    # ---- the log buffer
    ("log_small_rotating", f"{SF} --log-level 1 --log-size 50 --asm-text 'goto +5; r0 = 0; exit'"),
    ("log_size1", f"{SF} --log-level 1 --log-size 1 --asm-text 'goto +5; r0 = 0; exit'"),
    ("log_size2", f"{SF} --log-level 1 --log-size 2 --asm-text 'goto +5; r0 = 0; exit'"),
    ("log_exact_fit", f"{SF} --log-level 1 --log-size 117 {hexprog(ins(0xff), EXIT)}"),
    ("log_one_short", f"{SF} --log-level 1 --log-size 116 {hexprog(ins(0xff), EXIT)}"),
    ("log_fixed_small", f"{SF} --log-level 9 --log-size 40 --asm-text 'goto +5; r0 = 0; exit'"),
    ("log_fixed_stats", f"{SF} --log-level 12 --log-size 30 {hexprog(ins(0xff), EXIT)}"),
    ("log_level3", f"{SF} --log-level 3 --asm-text 'goto +5; r0 = 0; exit'"),
    ("log_level5", f"{SF} --log-level 5 --asm-text 'goto +5; r0 = 0; exit'"),
    ("log_level6", f"{SF} --log-level 6 --asm-text 'call f; r0 = 0; exit; f: r0 = 1'"),
    ("log_level7_ok", f"{SF} --log-level 7 --asm-text 'r0 = 0; exit'"),
    ("log_level15", f"{SF} --log-level 15 --log-size 200 --asm-text 'goto +5; r0 = 0; exit'"),
    ("log_small_l2_prelude", f"{SF} --log-level 2 --log-size 100 --asm-text 'r0 = 0; goto +7; exit'"),
    ("log_small_rotating_l2_diag", f"{SF} --log-level 2 --log-size 300 --asm-text 'r0 = 0; exit; r0 = 1; exit'"),
    # ---- get past the front end: the level-2 prelude up to the main pass
    ("pre_ret", f"{SF} --log-level 2 --asm-text 'r0 = 0; exit'"),
    ("pre_zext", f"{SF} --log-level 2 --asm-text 'r1 = 5; if r1 > 2 goto +1; r0 = 1; r0 = 0; w2 = 1; r3 = r2; exit'"),
    ("pre_fold_not_taken", f"{SF} --log-level 2 --asm-text 'r1 = 1; if r1 > 2 goto +1; r0 = 1; r0 = 0; exit'"),
    ("pre_fold_jmp32", f"{SF} --log-level 2 --asm-text 'w1 = -1; if w1 s< 0 goto +1; r0 = 1; r0 = 0; exit'"),
    ("pre_fold_and", f"{SF} --log-level 2 --asm-text 'r1 = *(u32 *)(r1 + 0); r1 &= 0; if r1 == 0 goto +1; r0 = 1; r0 = 0; exit'"),
    ("pre_nofold_big", f"{SF} --log-level 2 --asm-text 'r1 = -1; if r1 == -1 goto +1; r0 = 1; r0 = 0; exit'"),
    ("pre_stack", f"{SF} --log-level 2 --asm-text 'r1 = 5; *(u64 *)(r10 - 8) = r1; r0 = *(u64 *)(r10 - 8); exit'"),
    ("pre_stack_half", f"{SF} --log-level 2 --asm-text 'r1 = 5; *(u32 *)(r10 - 4) = r1; *(u32 *)(r10 - 16) = r1; r0 = *(u32 *)(r10 - 4); r0 = *(u16 *)(r10 - 14); exit'"),
    ("pre_stack_run", f"{SF} --log-level 2 --asm-text '*(u64 *)(r10 - 8) = 0; *(u64 *)(r10 - 16) = 0; *(u64 *)(r10 - 24) = 0; *(u64 *)(r10 - 32) = 0; r0 = *(u64 *)(r10 - 8); r1 = *(u64 *)(r10 - 16); r1 = *(u64 *)(r10 - 24); r1 = *(u64 *)(r10 - 32); exit'"),
    ("pre_stack_ptr", f"{SF} --log-level 2 --asm-text 'r6 = r10; r6 += -16; *(u64 *)(r6 + 0) = 1; *(u64 *)(r6 + 8) = 2; r0 = *(u64 *)(r6 + 0); r2 = *(u64 *)(r10 - 8); exit'"),
    ("pre_spill_fp", f"{SF} --log-level 2 --asm-text 'r1 = r10; r1 += -8; *(u64 *)(r10 - 16) = r1; r2 = *(u64 *)(r10 - 16); *(u64 *)(r2 + 0) = 7; r0 = *(u64 *)(r10 - 8); exit'"),
    ("pre_branch_ptrs", f"{SF} --log-level 2 --asm-text 'r0 = *(u32 *)(r1 + 0); r2 = r10; r2 += -8; if r0 > 3 goto +2; r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; r0 = 0; exit'"),
    ("pre_subprog_fp_arg", f"{SF} --log-level 2 --asm-text 'r1 = r10; r1 += -8; *(u64 *)(r10 - 8) = 0; call f; r0 = *(u64 *)(r10 - 8); exit; f: r0 = *(u64 *)(r1 + 0); *(u64 *)(r1 + 0) = 3; exit'"),
    ("pre_subprog_two_sites", f"{SF} --log-level 2 --asm-text 'r1 = r10; r1 += -8; call f; r1 = r10; r1 += -16; call f; r0 = 0; exit; f: *(u64 *)(r1 + 0) = 3; r0 = 0; exit'"),
    ("pre_subprog_nested", f"{SF} --log-level 2 --asm-text 'r1 = r10; r1 += -24; call f; r0 = 0; exit; f: r1 += 8; call g; exit; g: r0 = *(u64 *)(r1 + 0); exit'"),
    ("pre_subprog_no_fp", f"{SF} --log-level 2 --asm-text 'r1 = 1; call f; exit; f: r0 = r1; exit'"),
    ("pre_global_sub", f"{SF} --log-level 2 --global f --asm-text 'r1 = r10; r1 += -8; call f; r0 = 0; exit; f: r0 = 0; exit'"),
    ("pre_loop", f"{SF} --log-level 2 --asm-text 'r0 = 0; l: r0 += 1; if r0 < 5 goto l; exit'"),
    ("pre_two_loops", f"{SF} --log-level 2 --asm-text 'r0 = 0; a: r0 += 1; if r0 < 5 goto a; b: r0 -= 1; if r0 > 2 goto b; exit'"),
    ("pre_infinite", f"{SF} --log-level 2 --asm-text 'l: goto l'"),
    ("pre_map", f"{SF} --log-level 2 --map m:array:4:8:1 --asm-text 'r1 = m ll; r0 = 0; exit'"),
    ("pre_map_unpriv", f"{SF} --log-level 2 --unpriv --map m:array:4:8:1 --asm-text 'r1 = m ll; r0 = 0; exit'"),
    ("pre_map_value", f"{SF} --log-level 2 --map m:array:4:8:1 --asm-text 'r1 = m__value ll; r0 = *(u32 *)(r1 + 4); exit'"),
    ("pre_ldimm64", f"{SF} --log-level 2 --asm-text 'r1 = 0x123456789 ll; r0 = 0; exit'"),
    ("pre_alu32_ops", f"{SF} --log-level 2 --asm-text 'r0 = *(u32 *)(r1 + 0); w0 += 1; w1 = w0; r1 <<= 32; w0 = -w0; r2 = be16 r2; r0 |= r2; r0 += r1; exit'"),
    ("pre_atomics", f"{SF} --log-level 2 --asm-text '*(u64 *)(r10 - 8) = 0; r1 = 1; lock *(u64 *)(r10 - 8) += r1; r1 = atomic_fetch_add((u64 *)(r10 - 8), r1); r0 = r1; exit'"),
    ("pre_ld_abs", f"{SF} --log-level 2 {hexprog(ins(0xbf, 6, 1), ins(0x30, imm=0), ins(0xbf, 7, 0), ins(0x48, 0, 7, 0, 2), EXIT)}"),
    ("pre_callback_ref", f"{SF} --log-level 2 --asm-text 'r2 = f ll; r0 = 0; exit; f: r0 = 0; exit'"),
    ("pre_raw_tp", "--type raw_tp --log-level 2 --asm-text 'r2 = *(u64 *)(r1 + 0); r0 = 0; exit'"),
    ("pre_xdp", "--type xdp --log-level 2 --asm-text 'r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r0 = 2; exit'"),
    ("pre_movsx", f"{SF} --log-level 2 --asm-text 'r0 = *(u32 *)(r1 + 0); r1 = (s8)r0; w2 = (s16)w0; r3 = *(s8 *)(r10 - 1); r0 = r1; exit'"),
    ("pre_level1_ok", f"{SF} --log-level 1 --asm-text 'r0 = 0; exit'"),
    ("pre_level4_ok", f"{SF} --log-level 4 --asm-text 'r0 = 0; exit'"),
    ("pre_reuse_instance", f"{SF} --log-level 2 --asm-text 'r1 = r10; r1 += -8; call f; r1 = r10; r1 += -16; call f; r0 = 0; exit; f: r6 = r1; call g; r0 = 0; exit; g: *(u64 *)(r1 + 0) = 1; r0 = 0; exit'"),
    ("pre_reuse_read", f"{SF} --log-level 2 --asm-text 'r1 = r10; r1 += -8; call f; r1 = r10; r1 += -24; call f; r0 = 0; exit; f: call g; exit; g: r0 = *(u64 *)(r1 + 0); r2 = *(u32 *)(r1 + 4); exit'"),
    ("pre_parent_spill", f"{SF} --log-level 2 --asm-text 'r1 = r10; r1 += -8; *(u64 *)(r10 - 16) = r1; r1 = r10; r1 += -16; call f; r0 = 0; exit; f: r2 = *(u64 *)(r1 + 0); *(u64 *)(r2 + 0) = 5; r0 = 0; exit'"),
    ("pre_imprecise", f"{SF} --log-level 2 --asm-text 'r2 = *(u32 *)(r1 + 0); r1 = r10; r1 += r2; r0 = *(u64 *)(r1 - 8); r3 = r10; r3 *= 2; *(u64 *)(r3 - 8) = 0; exit'"),
    ("pre_merge_many_offsets", f"{SF} --log-level 2 --asm-text 'r0 = *(u32 *)(r1 + 0); r2 = r10; r2 += -8; if r0 == 1 goto a; r2 += -8; if r0 == 2 goto a; r2 += -8; if r0 == 3 goto a; r2 += -8; if r0 == 4 goto a; r2 += -8; a: r0 = *(u64 *)(r2 + 0); *(u64 *)(r2 + 0) = 1; r0 = 0; exit'"),
    ("pre_fill_ptr_multi", f"{SF} --log-level 2 --asm-text 'r0 = *(u32 *)(r1 + 0); r2 = r10; r2 += -8; *(u64 *)(r10 - 24) = r2; r3 = r10; r3 += -24; if r0 > 1 goto +1; r3 += -8; r4 = *(u64 *)(r3 + 0); r0 = *(u64 *)(r4 + 0); exit'"),
    ("pre_atomic_fp", f"{SF} --log-level 2 --asm-text 'r1 = r10; r1 += -8; *(u64 *)(r10 - 8) = 0; r2 = 1; lock *(u64 *)(r1 + 0) += r2; r0 = cmpxchg_64(r10 - 8, r0, r2); r0 = 0; exit'"),
    ("pre_stack_arg", f"{SF} --log-level 2 {hexprog(ins(0xbf, 1, 10), ins(0x07, 1, imm=-8), ins(0x7a, 10, 0, -8, 7), ins(0x7b, 11, 1, -8), CALL_PC(2), R0_0, EXIT, ins(0x79, 2, 11, 8), ins(0x79, 0, 2, 0), EXIT)}"),
    ("liveness_depth_limit", f"{SF} --log-level 2 --asm-text '" + "r1 = r10; r1 += -8; call f1; exit; " + "".join(f"f{k}: call f{k + 1}; exit; " for k in range(1, 16)) + "f16: r0 = 0; exit'"),
    ("liveness_depth_limit_small_log", f"{SF} --log-level 2 --log-size 700 --asm-text '" + "r1 = r10; r1 += -8; call f1; exit; " + "".join(f"f{k}: call f{k + 1}; exit; " for k in range(1, 16)) + "f16: r0 = 0; exit'"),
    ("liveness_complexity", f"{SF} --log-level 1 --asm-text 'r1 = r10; r1 += -8; call f1; r1 = r10; r1 += -8; call f1; r0 = 0; exit; " + "".join(f"f{k}: r6 = r1; call f{k + 1}; r1 = r6; call f{k + 1}; r0 = 0; exit; " for k in range(1, 14)) + "f14: r0 = 0; exit'"),
    ("pre_fold_jset", f"{SF} --log-level 2 --asm-text 'r1 = 6; if r1 & 1 goto +1; r0 = 1; r2 = 3; if r1 != r2 goto +1; r0 = 2; if w1 <= 5 goto +1; r0 = 3; r0 = 0; exit'"),
    ("pre_fold_merge_unknown", f"{SF} --log-level 2 --asm-text 'r0 = *(u32 *)(r1 + 0); r2 = 1; if r0 > 1 goto +1; r2 = 2; if r2 == 1 goto +1; r0 = 0; r3 = 4; r3 &= 6; if r3 == 4 goto +1; r0 = 1; exit'"),
    ("pre_loop_in_sub", f"{SF} --log-level 2 --asm-text 'call f; exit; f: r0 = 0; a: r0 += 1; if r0 < 3 goto a; b: r0 += 2; if r0 < 9 goto b; exit'"),
    ("pre_nested_loops", f"{SF} --log-level 2 --asm-text 'r1 = 0; a: r2 = 0; b: r2 += 1; if r2 < 2 goto b; r1 += 1; if r1 < 2 goto a; r0 = 0; exit'"),
    ("stats_global_front", f"{SF} --log-level 4 --global g --asm-text 'call f; call g; r0 = 0; exit; f: r0 = 0; exit; g: r0 = 1; exit; r0 = 2; exit'"),
    ("stats_global_front_l6", f"{SF} --log-level 6 --global g --asm-text 'call f; call g; r0 = 0; exit; f: r0 = 0; exit; g: r0 = 1; exit; r0 = 2; exit'"),
    ("unpriv_caps_bpf_perfmon", f"{SF} --log-level 2 --unpriv 39,38 --map m:array:4:8:1 --asm-text 'r1 = m ll; call f; r0 = 0; exit; f: r0 = 0; goto +1; exit'"),
    ("unpriv_backedge_map_context", f"{SF} --log-level 1 --unpriv --map m:array:4:8:1 --asm-text 'r1 = m ll; r0 = 0; l: r0 += 1; if r0 < 3 goto l; exit'"),
    ("pre_rdonly_fold", f"{SF} --log-level 2 --map ro:array:4:8:1:0x80 --map-update ro:00000000:0700000000000000 --asm-text 'r1 = ro__value ll; r2 = *(u32 *)(r1 + 0); if r2 == 7 goto +1; r0 = 1; r0 = 0; exit'"),
]


def slots_of(hexes):
    out = []
    for h in hexes:
        for k in range(0, len(h), 16):
            out.append(h[k:k + 16])
    return out


LABEL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):\s*(.*)$")


def label_slots(asm):
    """Label -> insn slot of a one-line asm text (statements split at ';')."""
    labels, slot = {}, 0
    for st in re.split(r"[;\n]", asm):
        st = st.strip()
        while True:
            m = LABEL.match(st)
            if not m:
                break
            labels[m.group(1)] = slot
            st = m.group(2).strip()
        if st:
            slot += 2 if re.search(r"\bll$", st) else 1
    return labels


def c_ident(name):
    n = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return n if n and not n[0].isdigit() else "_" + n


def funcs_of(name, opts, slots):
    """The func_info the oracle builds: main named after the job, other
    subprogram starts (bpf-to-bpf call and callback targets) after their
    label, else sub_<insn>."""
    starts = {0}
    i = 0
    n = len(slots)
    while i < n:
        b = bytes.fromhex(slots[i])
        code, regs, off, imm = struct.unpack("<BBhi", b)
        src = regs >> 4
        if code == 0x85 and src == 1:
            starts.add(i + imm + 1)
        if code == 0x18 and src == 4:
            starts.add(i + imm + 1)
        i += 2 if code == 0x18 else 1
    m = re.search(r"--asm-text '([^']*)'", opts)
    labels = {v: k for k, v in label_slots(m.group(1)).items()} if m else {}
    globs = set(re.findall(r"--global (\S+)", opts))
    out = []
    for st in sorted(x for x in starts if 0 <= x < n):
        nm = name if st == 0 else labels.get(st, f"sub_{st}")
        out.append([st, c_ident(nm), st == 0 or nm in globs])
    return out


def run_oracle(arch, cases):
    with tempfile.TemporaryDirectory() as d:
        jf = os.path.join(d, "jobs.txt")
        with open(jf, "w") as f:
            for name, opts in cases:
                f.write(f"{name}: {opts}\n")
        r = subprocess.run([os.path.join(ORACLE, "vm_oracle.py"), "--arch", arch, "--jobs", jf, "--json", "--jited", "none"],
                           capture_output=True, text=True)
        try:
            return json.loads(r.stdout)["programs"]
        except ValueError:
            sys.exit(f"vm_oracle.py failed:\n{r.stderr[-3000:]}{r.stdout[-2000:]}")


def golden(case, p):
    name, opts = case
    slots = slots_of([x["hex"] for x in p["input"]["insns"]])
    lic = re.search(r"--license (\S+)", opts)
    size = re.search(r"--log-size (\d+)", opts)
    return {
        "name": name,
        "job": opts if len(opts) < 2000 else opts[:2000] + "...",
        "prog_type": p["prog_type_id"],
        "prog_flags": p["prog_flags"],
        "expected_attach_type": p["expected_attach_type"],
        "log_level": p["log_level"],
        "log_size": int(size.group(1)) if size else 16 << 20,
        "unpriv": p["unpriv"],
        "license": lic.group(1) if lic else "GPL",
        "btf": "--no-btf" not in opts,
        "insns": slots,
        "fixups": p["input"]["fixups"],
        "maps": [{k: m[k] for k in ("name", "type_id", "key_size", "value_size", "max_entries", "flags")} for m in p["maps"]],
        "map_updates": re.findall(r"--map-update (\S+)", opts),
        "funcs": funcs_of(name, opts, slots),
        "kernel": {
            "release": p["kernel"]["release"],
            "accepted": p["accepted"],
            "errno": p["errno"],
            "log": p["log"],
            "log_true_size": p["log_true_size"],
            "verified_insns": p.get("verified_insns") or 0,
        },
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default="both")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    cases = [c for c in CASES if not only or c[0] in only]
    names = [c[0] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    for arch in (["x86_64", "arm64"] if a.arch == "both" else [a.arch]):
        progs = run_oracle(arch, cases)
        out = os.path.join(ROOT, "expected", "linux-7.3", arch, "verifier-front")
        os.makedirs(out, exist_ok=True)
        by = {p["name"]: p for p in progs}
        for c in cases:
            p = by.get(c[0])
            if p is None or "input" not in p:
                print(f"{arch}: {c[0]}: no result ({(p or {}).get('error', 'missing')})", file=sys.stderr)
                continue
            with open(os.path.join(out, c[0] + ".json"), "w") as f:
                json.dump(golden(c, p), f, indent=1, sort_keys=True)
                f.write("\n")
        print(f"{arch}: {len(progs)} programs -> {out}")


if __name__ == "__main__":
    main()
