#!/usr/bin/env python3
"""Records what a real Linux 7.3 verifier does with calls, for
tests/verifier_calls.rs: helper calls and their argument checks, map
helpers per map type, subprogram calls (static and global), callbacks
(bpf_loop, bpf_for_each_map_elem), open-coded iterators, kfuncs, may_goto,
tail calls, reference tracking (sockets, ringbuf records, dynptrs).

Same format and method as scripts/record-do-check-goldens.py (whose
`record` it uses): each program is loaded at log levels 1 and 2 into 7.3
under QEMU by the oracle kit in ../shared/oracle, one boot for all, and
written to expected/linux-7.3/calls/<area>.txt.

  scripts/record-calls-goldens.py [--arch x86_64] [--only AREA] [--dry-run] [--out DIR]
"""
import argparse
import importlib.util
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "expected", "linux-7.3", "calls")

_spec = importlib.util.spec_from_file_location("do_check_rec", os.path.join(ROOT, "scripts", "record-do-check-goldens.py"))
do_check_rec = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(do_check_rec)

ARR = "--map m:array:4:8:1"
ARR4 = "--map m:array:4:48:4"
HASH = "--map h:hash:4:8:16"
RB = "--map rb:ringbuf:0:0:4096"
PA = "--map pa:prog_array:4:4:4"

# key 0 on the stack at fp-4, r2 = &key, r1 = map
KEY0 = "r1 = 0; *(u32 *)(r10 - 4) = r1; r2 = r10; r2 += -4"
LOOKUP = KEY0 + "; r1 = {m} ll; call bpf_map_lookup_elem"

# (name, prog type, extra options, asm)
AREAS = {
    "helper": [
        ("ktime", "socket", "", "call bpf_ktime_get_ns; exit"),
        ("prandom", "socket", "", "call bpf_get_prandom_u32; r0 &= 1; exit"),
        ("smp_id", "socket", "", "call bpf_get_smp_processor_id; exit"),
        ("invalid_id", "socket", "", ".8byte 0x00000fff00000085; r0 = 0; exit"),
        ("not_allowed_type", "socket", "", "r1 = 0; call bpf_skb_store_bytes; r0 = 0; exit"),
        ("gpl_only_nongpl", "kprobe", "--license MIT", "r1 = r10; r1 += -8; r2 = 8; r3 = 0; call bpf_probe_read_kernel; r0 = 0; exit"),
        ("gpl_only_gpl", "kprobe", "", "r1 = r10; r1 += -8; r2 = 8; r3 = 0; call bpf_probe_read_kernel; r0 = 0; exit"),
        ("uninit_arg", "socket", "", "call bpf_skb_load_bytes; r0 = 0; exit"),
        ("ctx_arg_ok", "tc", "", "r2 = 0; r3 = r10; r3 += -8; r4 = 8; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("ctx_arg_bad", "tc", "", "r1 = r10; r2 = 0; r3 = r10; r3 += -8; r4 = 8; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("ctx_arg_modified", "tc", "", "r1 += 4; r2 = 0; r3 = r10; r3 += -8; r4 = 8; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("mem_size_zero", "tc", "", "r2 = 0; r3 = r10; r3 += -8; r4 = 0; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("mem_size_neg", "tc", "", "r2 = 0; r3 = r10; r3 += -8; r4 = -1; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("mem_size_too_big", "tc", "", "r2 = 0; r3 = r10; r3 += -8; r4 = 16; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("mem_size_var", "tc", "", "r6 = r1; call bpf_get_prandom_u32; r4 = r0; r4 &= 7; r4 += 1; r1 = r6; r2 = 0; r3 = r10; r3 += -8; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("mem_size_var_unbounded", "tc", "", "r6 = r1; call bpf_get_prandom_u32; r4 = r0; r1 = r6; r2 = 0; r3 = r10; r3 += -8; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("mem_size_var_uninit_stack", "tc", "--unpriv", "r6 = r1; call bpf_get_prandom_u32; r4 = r0; r4 &= 7; r4 += 1; r1 = r6; r2 = 0; r3 = r10; r3 += -8; call bpf_skb_load_bytes; r0 = 0; exit"),
        ("raw_mode_stack", "tc", "", "r2 = 0; r3 = r10; r3 += -16; r4 = 16; call bpf_skb_load_bytes; r0 = *(u64 *)(r10 - 16); exit"),
        ("read_uninit_stack_unpriv", "socket", "--unpriv " + ARR, "r2 = r10; r2 += -4; r1 = m ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("read_partial_init_unpriv", "socket", "--unpriv " + HASH, "r1 = 0; *(u16 *)(r10 - 4) = r1; r2 = r10; r2 += -4; r1 = h ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("fixed_size_mem", "socket", "", "r1 = r10; r1 += -16; *(u64 *)(r1 + 0) = 0; r2 = 8; r3 = 10; r4 = r10; r4 += -8; call bpf_strtol; r0 = 0; exit"),
        ("fixed_size_misaligned", "socket", "", "r1 = r10; r1 += -16; *(u64 *)(r1 + 0) = 0; r2 = 8; r3 = 10; r4 = r10; r4 += -12; call bpf_strtol; r0 = 0; exit"),
        ("scalar_leak_unpriv", "socket", "--unpriv", "r1 = r10; call bpf_get_ns_current_pid_tgid; r0 = 0; exit"),
        ("anything_ptr_priv", "kprobe", "", "r1 = r10; call bpf_send_signal; r0 = 0; exit"),
        ("map_ptr_expected", "socket", "", KEY0 + "; r1 = 0; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("retval_refine_get_stack", "kprobe", "", "r2 = r10; r2 += -64; r3 = 64; r4 = 0; call bpf_get_stack; exit"),
        ("pkt_helper_ok", "tc", HASH, "r2 = *(u32 *)(r1 + 76); r3 = *(u32 *)(r1 + 80); r4 = r2; r4 += 4; if r4 > r3 goto l0; r1 = h ll; call bpf_map_lookup_elem; l0: r0 = 0; exit"),
        ("pkt_helper_short", "tc", HASH, "r2 = *(u32 *)(r1 + 76); r3 = *(u32 *)(r1 + 80); r4 = r2; r4 += 2; if r4 > r3 goto l0; r1 = h ll; call bpf_map_lookup_elem; l0: r0 = 0; exit"),
        ("pkt_helper_not_allowed", "xdp", "", "r2 = *(u32 *)(r1 + 0); r3 = *(u32 *)(r1 + 4); r4 = r2; r4 += 8; if r4 > r3 goto l0; r1 = r2; r2 = 8; r3 = 0; call bpf_probe_read_kernel; l0: r0 = 2; exit"),
        ("csum_diff_pkt", "tc", "", "r2 = *(u32 *)(r1 + 76); r3 = *(u32 *)(r1 + 80); r4 = r2; r4 += 8; if r4 > r3 goto l0; r1 = r2; r2 = 8; r3 = 0; r4 = 0; r5 = 0; call bpf_csum_diff; l0: r0 = 0; exit"),
        ("pkt_cleared_after_change", "tc", "", "r6 = r1; r2 = *(u32 *)(r1 + 76); r3 = *(u32 *)(r1 + 80); r4 = r2; r4 += 8; if r4 > r3 goto l0; r1 = r6; r2 = 0; call bpf_skb_pull_data; r0 = *(u8 *)(r2 + 0); l0: r0 = 0; exit"),
        ("caller_saved_cleared", "socket", "", "r1 = 1; r6 = 2; call bpf_ktime_get_ns; r0 = r1; exit"),
        ("callee_saved_kept", "socket", "", "r6 = 2; call bpf_ktime_get_ns; r0 = r6; exit"),
        ("get_local_storage_flags", "cgroup_skb", "--attach-type cgroup_inet_ingress --map cs:cgroup_storage:16:8:0", "r1 = cs ll; r2 = 1; call bpf_get_local_storage; r0 = 1; exit"),
        ("get_local_storage_ok", "cgroup_skb", "--attach-type cgroup_inet_ingress --map cs:cgroup_storage:16:8:0", "r1 = cs ll; r2 = 0; call bpf_get_local_storage; r1 = *(u64 *)(r0 + 0); r0 = 1; exit"),
        ("trace_printk", "kprobe", "", "r1 = 0; *(u64 *)(r10 - 8) = r1; r1 = r10; r1 += -8; r2 = 8; call bpf_trace_printk; r0 = 0; exit"),
        ("perf_output_unpriv_socket", "socket", "--unpriv --map pe:perf_event_array:4:4:1", "r2 = pe ll; r3 = 0; r4 = r10; r4 += -8; *(u64 *)(r4 + 0) = 0; r5 = 8; call bpf_perf_event_output; r0 = 0; exit"),
        ("perf_output_socket", "socket", "--map pe:perf_event_array:4:4:1", "r2 = pe ll; r3 = 0; r4 = r10; r4 += -8; *(u64 *)(r4 + 0) = 0; r5 = 8; call bpf_perf_event_output; r0 = 0; exit"),
        ("strncmp_const_str", "socket", ARR, "r1 = r10; r1 += -8; *(u64 *)(r1 + 0) = 0; r2 = 8; r3 = m__value ll; call bpf_strncmp; r0 = 0; exit"),
    ],
    "map": [
        ("lookup_array_const", "socket", ARR, LOOKUP.format(m="m") + "; r0 = *(u64 *)(r0 + 0); r0 = 0; exit"),
        ("lookup_array_oob_key", "socket", ARR, "r1 = 1; *(u32 *)(r10 - 4) = r1; r2 = r10; r2 += -4; r1 = m ll; call bpf_map_lookup_elem; r0 = *(u64 *)(r0 + 0); r0 = 0; exit"),
        ("lookup_array_var_key", "socket", ARR, "r6 = *(u32 *)(r1 + 0); *(u32 *)(r10 - 4) = r6; r2 = r10; r2 += -4; r1 = m ll; call bpf_map_lookup_elem; if r0 == 0 goto l0; r0 = *(u64 *)(r0 + 0); l0: r0 = 0; exit"),
        ("lookup_array_zero_stack", "socket", ARR, "*(u32 *)(r10 - 4) = 0; r2 = r10; r2 += -4; r1 = m ll; call bpf_map_lookup_elem; r0 = *(u64 *)(r0 + 0); r0 = 0; exit"),
        ("lookup_hash_no_check", "socket", HASH, LOOKUP.format(m="h") + "; r0 = *(u64 *)(r0 + 0); r0 = 0; exit"),
        ("lookup_hash_null_check", "socket", HASH, LOOKUP.format(m="h") + "; if r0 == 0 goto l0; r1 = 7; *(u64 *)(r0 + 0) = r1; l0: r0 = 0; exit"),
        ("lookup_hash_ne_check", "socket", HASH, LOOKUP.format(m="h") + "; if r0 != 0 goto l0; r0 = 0; exit; l0: r0 = *(u64 *)(r0 + 0); r0 = 0; exit"),
        ("lookup_hash_copy_check", "socket", HASH, LOOKUP.format(m="h") + "; r6 = r0; if r0 == 0 goto l0; r1 = *(u64 *)(r6 + 0); l0: r0 = 0; exit"),
        ("lookup_hash_spill_check", "socket", HASH, LOOKUP.format(m="h") + "; *(u64 *)(r10 - 16) = r0; if r0 == 0 goto l0; r1 = *(u64 *)(r10 - 16); r0 = *(u64 *)(r1 + 0); l0: r0 = 0; exit"),
        ("lookup_hash_arith_before_check", "socket", HASH, LOOKUP.format(m="h") + "; r0 += 8; r0 = 0; exit"),
        ("lookup_hash_oob", "socket", HASH, LOOKUP.format(m="h") + "; if r0 == 0 goto l0; r0 = *(u64 *)(r0 + 4); l0: r0 = 0; exit"),
        ("lookup_hash_value_var", "socket", "--map h:hash:4:48:16", LOOKUP.format(m="h") + "; if r0 == 0 goto l0; r6 = r0; call bpf_get_prandom_u32; r0 &= 31; r6 += r0; r0 = *(u64 *)(r6 + 0); l0: r0 = 0; exit"),
        ("lookup_hash_value_var_oob", "socket", "--map h:hash:4:48:16", LOOKUP.format(m="h") + "; if r0 == 0 goto l0; r6 = r0; call bpf_get_prandom_u32; r0 &= 63; r6 += r0; r0 = *(u64 *)(r6 + 0); l0: r0 = 0; exit"),
        ("lookup_hash_uninit_key", "socket", HASH, "r2 = r10; r2 += -4; r1 = h ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("lookup_hash_key_oob_stack", "socket", HASH, "r2 = r10; r2 += -2; r1 = h ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("lookup_map_value_key", "socket", ARR + " " + HASH, LOOKUP.format(m="m") + "; r2 = r0; r1 = h ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("update_hash", "socket", HASH, KEY0 + "; r3 = r10; r3 += -16; *(u64 *)(r3 + 0) = 0; r1 = h ll; r4 = 0; call bpf_map_update_elem; exit"),
        ("update_hash_uninit_value", "socket", HASH, KEY0 + "; r3 = r10; r3 += -16; r1 = h ll; r4 = 0; call bpf_map_update_elem; exit"),
        ("update_value_from_map", "socket", ARR + " " + HASH, LOOKUP.format(m="m") + "; r3 = r0; r2 = r10; r2 += -4; r1 = h ll; r4 = 0; call bpf_map_update_elem; r0 = 0; exit"),
        ("delete_hash", "socket", HASH, KEY0 + "; r1 = h ll; call bpf_map_delete_elem; exit"),
        ("delete_array", "socket", ARR, KEY0 + "; r1 = m ll; call bpf_map_delete_elem; exit"),
        ("percpu_array_lookup", "socket", "--map p:percpu_array:4:8:4", LOOKUP.format(m="p") + "; r0 = *(u64 *)(r0 + 0); r0 = 0; exit"),
        ("percpu_hash_lookup", "socket", "--map p:percpu_hash:4:8:4", LOOKUP.format(m="p") + "; if r0 == 0 goto l0; r0 = *(u64 *)(r0 + 0); l0: r0 = 0; exit"),
        ("lru_hash_lookup", "socket", "--map p:lru_hash:4:8:4", LOOKUP.format(m="p") + "; if r0 == 0 goto l0; r0 = *(u64 *)(r0 + 0); l0: r0 = 0; exit"),
        ("lookup_percpu_elem", "socket", "--map p:percpu_array:4:8:4", KEY0 + "; r1 = p ll; r3 = 0; call bpf_map_lookup_percpu_elem; if r0 == 0 goto l0; r0 = *(u64 *)(r0 + 0); l0: r0 = 0; exit"),
        ("lookup_percpu_elem_array", "socket", ARR, KEY0 + "; r1 = m ll; r3 = 0; call bpf_map_lookup_percpu_elem; r0 = 0; exit"),
        ("queue_push", "socket", "--map q:queue:0:8:4", "r2 = r10; r2 += -8; *(u64 *)(r2 + 0) = 0; r1 = q ll; r3 = 0; call bpf_map_push_elem; exit"),
        ("queue_pop", "socket", "--map q:queue:0:8:4", "r2 = r10; r2 += -8; r1 = q ll; call bpf_map_pop_elem; r0 = *(u64 *)(r10 - 8); exit"),
        ("stack_peek", "socket", "--map q:stack:0:8:4", "r2 = r10; r2 += -8; r1 = q ll; call bpf_map_peek_elem; exit"),
        ("queue_lookup", "socket", "--map q:queue:0:8:4", KEY0 + "; r1 = q ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("bloom_push_peek", "socket", "--map bf:bloom_filter:0:8:16", "r2 = r10; r2 += -8; *(u64 *)(r2 + 0) = 0; r1 = bf ll; r3 = 0; call bpf_map_push_elem; r2 = r10; r2 += -8; r1 = bf ll; call bpf_map_peek_elem; exit"),
        ("bloom_peek_uninit", "socket", "--map bf:bloom_filter:0:8:16", "r2 = r10; r2 += -8; r1 = bf ll; call bpf_map_peek_elem; exit"),
        ("ringbuf_lookup", "socket", RB, KEY0 + "; r1 = rb ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("prog_array_lookup", "socket", PA, KEY0 + "; r1 = pa ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("perf_array_lookup", "kprobe", "--map pe:perf_event_array:4:4:1", KEY0 + "; r1 = pe ll; call bpf_map_lookup_elem; r0 = 0; exit"),
        ("stack_trace_stackid", "kprobe", "--map st:stack_trace:4:64:16", "r2 = st ll; r3 = 0; call bpf_get_stackid; r0 = 0; exit"),
        ("stack_trace_wrong_helper", "kprobe", HASH, "r2 = h ll; r3 = 0; call bpf_get_stackid; r0 = 0; exit"),
        ("lpm_lookup", "socket", "--map t:lpm_trie:8:8:16:1", "r1 = 32; *(u32 *)(r10 - 8) = r1; *(u32 *)(r10 - 4) = 0; r2 = r10; r2 += -8; r1 = t ll; call bpf_map_lookup_elem; if r0 == 0 goto l0; r0 = *(u64 *)(r0 + 0); l0: r0 = 0; exit"),
        ("direct_value_read", "socket", ARR, "r1 = m__value ll; r0 = *(u64 *)(r1 + 0); exit"),
        ("direct_value_write", "socket", ARR, "r1 = m__value ll; r2 = 3; *(u64 *)(r1 + 0) = r2; r0 = 0; exit"),
        ("direct_value_oob", "socket", ARR, "r1 = m__value ll; r0 = *(u64 *)(r1 + 4); exit"),
        ("rdonly_prog_write", "socket", "--map ro:array:4:8:1:128", "r1 = ro__value ll; r2 = 3; *(u64 *)(r1 + 0) = r2; r0 = 0; exit"),
        ("rdonly_prog_read", "socket", "--map ro:array:4:8:1:128", "r1 = ro__value ll; r0 = *(u64 *)(r1 + 0); exit"),
        ("rdonly_prog_update", "socket", "--map ro:array:4:8:1:128", KEY0 + "; r3 = r10; r3 += -16; *(u64 *)(r3 + 0) = 0; r1 = ro ll; r4 = 0; call bpf_map_update_elem; exit"),
        ("wronly_prog_read", "socket", "--map wo:array:4:8:1:256", "r1 = wo__value ll; r0 = *(u64 *)(r1 + 0); exit"),
        ("wronly_prog_write", "socket", "--map wo:array:4:8:1:256", "r1 = wo__value ll; r2 = 3; *(u64 *)(r1 + 0) = r2; r0 = 0; exit"),
        ("map_key_write_helper", "socket", ARR, LOOKUP.format(m="m") + "; r1 = r0; r2 = 8; r3 = 0; call bpf_probe_read_kernel; r0 = 0; exit"),
        ("value_to_probe_read", "kprobe", ARR, LOOKUP.format(m="m") + "; r1 = r0; r2 = 8; r3 = 0; call bpf_probe_read_kernel; r0 = 0; exit"),
        ("value_to_probe_read_big", "kprobe", ARR, LOOKUP.format(m="m") + "; r1 = r0; r2 = 16; r3 = 0; call bpf_probe_read_kernel; r0 = 0; exit"),
        ("two_lookups_ids", "socket", HASH, LOOKUP.format(m="h") + "; r6 = r0; " + LOOKUP.format(m="h") + "; r7 = r0; if r6 == 0 goto l0; if r7 == 0 goto l0; r0 = *(u64 *)(r6 + 0); r0 = *(u64 *)(r7 + 0); l0: r0 = 0; exit"),
        ("ptr_eq_nullness", "socket", HASH + " " + ARR, LOOKUP.format(m="h") + "; r6 = r0; " + LOOKUP.format(m="m") + "; if r6 != r0 goto l0; r0 = *(u64 *)(r6 + 0); l0: r0 = 0; exit"),
        ("null_ptr_compare_unpriv", "socket", "--unpriv " + HASH, LOOKUP.format(m="h") + "; if r0 == 0 goto l0; r0 = 0; exit; l0: r0 = 1; exit"),
        ("leak_value_ptr_unpriv", "socket", "--unpriv " + ARR, LOOKUP.format(m="m") + "; r1 = r0; *(u64 *)(r0 + 0) = r1; r0 = 0; exit"),
        ("map_ptr_to_helper_unpriv", "socket", "--unpriv " + ARR, LOOKUP.format(m="m") + "; r0 = 0; exit"),
    ],
    "subprog": [
        ("call_simple", "socket", "", "r1 = 1; call foo; exit; foo: r0 = r1; r0 += 1; exit"),
        ("call_uninit_r0", "socket", "", "call foo; exit; foo: exit"),
        ("call_args", "socket", "", "r1 = 1; r2 = 2; r3 = 3; r4 = 4; r5 = 5; call foo; exit; foo: r0 = r1; r0 += r5; exit"),
        ("caller_regs_saved", "socket", "", "r6 = 7; call foo; r0 = r6; exit; foo: r6 = 1; r0 = 0; exit"),
        ("callee_reads_r6", "socket", "", "r6 = 7; call foo; exit; foo: r0 = r6; exit"),
        ("caller_r1_clobbered", "socket", "", "r1 = 1; call foo; r0 = r1; exit; foo: r0 = 0; exit"),
        ("pass_stack_ptr", "socket", "", "*(u64 *)(r10 - 8) = 0; r1 = r10; r1 += -8; call foo; exit; foo: r0 = *(u64 *)(r1 + 0); exit"),
        ("write_caller_stack", "socket", "", "r1 = r10; r1 += -8; call foo; r0 = *(u64 *)(r10 - 8); exit; foo: r2 = 5; *(u64 *)(r1 + 0) = r2; r0 = 0; exit"),
        ("return_stack_ptr", "socket", "", "call foo; r0 = 0; exit; foo: r0 = r10; r0 += -8; exit"),
        ("return_ctx", "socket", "", "call foo; r0 = *(u32 *)(r0 + 0); exit; foo: r0 = r1; exit"),
        ("nested_calls", "socket", "", "r1 = 1; call a; exit; a: r1 += 1; call b; exit; b: r0 = r1; exit"),
        ("two_call_sites", "socket", "", "r1 = 1; call foo; r6 = r0; r1 = 2; call foo; r0 += r6; exit; foo: r0 = r1; exit"),
        ("callee_branch", "socket", "", "r1 = *(u32 *)(r1 + 0); call foo; exit; foo: r0 = 0; if r1 > 10 goto l0; r0 = 1; l0: exit"),
        ("callee_stack", "socket", "", "*(u64 *)(r10 - 8) = 0; call foo; r0 = *(u64 *)(r10 - 8); exit; foo: *(u64 *)(r10 - 16) = 0; r0 = 0; exit"),
        ("stack_depth_ok", "socket", "", "*(u64 *)(r10 - 256) = 0; call foo; r0 = 0; exit; foo: *(u64 *)(r10 - 256) = 0; r0 = 0; exit"),
        ("stack_depth_combined", "socket", "", "*(u64 *)(r10 - 256) = 0; call foo; r0 = 0; exit; foo: *(u64 *)(r10 - 264) = 0; r0 = 0; exit"),
        ("stack_depth_three", "socket", "", "*(u64 *)(r10 - 200) = 0; call a; r0 = 0; exit; a: *(u64 *)(r10 - 200) = 0; call b; r0 = 0; exit; b: *(u64 *)(r10 - 200) = 0; r0 = 0; exit"),
        ("precision_through_call", "socket", "", "r1 = 8; call foo; r2 = r10; r2 += r0; r2 += -16; *(u64 *)(r2 + 0) = 0; r0 = 0; exit; foo: r0 = r1; exit"),
        ("precision_arg_to_callee", "socket", "", "r6 = *(u32 *)(r1 + 0); r6 &= 7; r1 = r6; call foo; r0 = 0; exit; foo: r2 = r10; r2 += -8; r2 -= r1; *(u8 *)(r2 + 0) = 0; r0 = 0; exit"),
        ("callee_r10_spill_caller", "socket", "", "r1 = r10; r1 += -8; call foo; r0 = 0; exit; foo: *(u64 *)(r1 + 0) = r10; r0 = 0; exit"),
        ("global_simple", "socket", "--global foo", "call foo; exit; foo: r0 = 1; exit"),
        ("global_reads_uninit", "socket", "--global foo", "r1 = 1; call foo; exit; foo: r0 = r1; exit"),
        ("global_ret_ptr", "socket", "--global foo", "call foo; exit; foo: r0 = r10; exit"),
        ("global_stack_depth", "socket", "--global foo", "*(u64 *)(r10 - 504) = 0; call foo; r0 = 0; exit; foo: *(u64 *)(r10 - 504) = 0; r0 = 0; exit"),
        ("global_calls_static", "socket", "--global foo", "call foo; exit; foo: call bar; exit; bar: r0 = 2; exit"),
        ("static_calls_global", "socket", "--global bar", "call foo; exit; foo: call bar; exit; bar: r0 = 2; exit"),
        ("global_not_called", "socket", "--global foo", "r0 = 0; exit; foo: r0 = r10; exit"),
        ("global_r0_kept_clobbered", "socket", "--global foo", "r1 = 5; call foo; r0 = r1; exit; foo: r0 = 0; exit"),
        ("no_btf_static", "socket", "--no-btf", "r1 = 1; call foo; exit; foo: r0 = r1; exit"),
        ("call_in_loop", "socket", "", "r6 = 0; l0: r1 = r6; call foo; r6 += 1; if r6 < 4 goto l0; r0 = 0; exit; foo: r0 = r1; exit"),
        ("bounded_loop_in_callee", "socket", "", "call foo; exit; foo: r0 = 0; l0: r0 += 1; if r0 < 5 goto l0; exit"),
        ("unpriv_call", "socket", "--unpriv", "r1 = 1; call foo; exit; foo: r0 = r1; exit"),
    ],
    "callback": [
        ("loop_simple", "socket", "", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = 0; exit"),
        ("loop_million", "socket", "", "r1 = 1000000; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = 0; exit"),
        ("loop_ctx_stack", "socket", "", "*(u64 *)(r10 - 8) = 0; r1 = 100; r2 = cb ll; r3 = r10; r3 += -8; r4 = 0; call bpf_loop; r0 = *(u64 *)(r10 - 8); exit; cb: r3 = *(u64 *)(r2 + 0); r3 += 1; *(u64 *)(r2 + 0) = r3; r0 = 0; exit"),
        ("loop_bad_ret", "socket", "", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = 2; exit"),
        ("loop_ret_ptr", "socket", "", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = r10; exit"),
        ("loop_uninit_ret", "socket", "", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: exit"),
        ("loop_not_func", "socket", "", "r1 = 4; r2 = 0; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit"),
        ("loop_var_count", "socket", "", "call bpf_get_prandom_u32; r1 = r0; r1 &= 15; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = 0; exit"),
        ("loop_flags_nonzero", "socket", "", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 1; call bpf_loop; r0 = 0; exit; cb: r0 = 0; exit"),
        ("loop_cb_index", "socket", "", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = r1; r0 &= 1; exit"),
        ("loop_cb_oob_ctx", "socket", "", "*(u64 *)(r10 - 8) = 0; r1 = 10; r2 = cb ll; r3 = r10; r3 += -8; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = *(u64 *)(r2 + 8); r0 = 0; exit"),
        ("loop_precise_counter", "socket", "", "*(u64 *)(r10 - 8) = 0; r1 = 5; r2 = cb ll; r3 = r10; r3 += -8; r4 = 0; call bpf_loop; r1 = *(u64 *)(r10 - 8); r2 = r10; r2 += -32; r2 += r1; *(u8 *)(r2 + 0) = 0; r0 = 0; exit; cb: r3 = *(u64 *)(r2 + 0); r3 += 1; *(u64 *)(r2 + 0) = r3; r0 = 0; exit"),
        ("loop_unpriv", "socket", "--unpriv", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = 0; exit"),
        ("loop_no_btf", "socket", "--no-btf", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = 0; exit"),
        ("loop_global_cb", "socket", "--global cb", "r1 = 4; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = 0; exit"),
        ("for_each_array", "socket", ARR4, "r1 = m ll; r2 = cb ll; r3 = 0; r4 = 0; call bpf_for_each_map_elem; r0 = 0; exit; cb: r0 = *(u64 *)(r3 + 0); r0 = 0; exit"),
        ("for_each_hash", "socket", HASH, "r1 = h ll; r2 = cb ll; r3 = 0; r4 = 0; call bpf_for_each_map_elem; r0 = 0; exit; cb: r0 = *(u32 *)(r2 + 0); r0 = 0; exit"),
        ("for_each_key_write", "socket", HASH, "r1 = h ll; r2 = cb ll; r3 = 0; r4 = 0; call bpf_for_each_map_elem; r0 = 0; exit; cb: r0 = 0; *(u32 *)(r2 + 0) = r0; exit"),
        ("for_each_value_oob", "socket", HASH, "r1 = h ll; r2 = cb ll; r3 = 0; r4 = 0; call bpf_for_each_map_elem; r0 = 0; exit; cb: r0 = *(u64 *)(r3 + 8); r0 = 0; exit"),
        ("for_each_ringbuf", "socket", RB, "r1 = rb ll; r2 = cb ll; r3 = 0; r4 = 0; call bpf_for_each_map_elem; r0 = 0; exit; cb: r0 = 0; exit"),
        ("for_each_bad_ret", "socket", HASH, "r1 = h ll; r2 = cb ll; r3 = 0; r4 = 0; call bpf_for_each_map_elem; r0 = 0; exit; cb: r0 = 3; exit"),
        ("timer_no_btf", "socket", ARR, LOOKUP.format(m="m") + "; r1 = r0; r2 = m ll; r3 = 0; call bpf_timer_init; r0 = 0; exit"),
        ("loop_nested_calls", "socket", "", "r1 = 2; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: call sub; r0 = 0; exit; sub: r0 = 1; exit"),
        ("loop_in_subprog", "socket", "", "call foo; r0 = 0; exit; foo: r1 = 3; r2 = cb ll; r3 = 0; r4 = 0; call bpf_loop; r0 = 0; exit; cb: r0 = 0; exit"),
    ],
    "iter": [
        ("num_basic", "raw_tp", "", "r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; l0: r1 = r10; r1 += -8; call bpf_iter_num_next; if r0 == 0 goto l1; goto l0; l1: r1 = r10; r1 += -8; call bpf_iter_num_destroy; r0 = 0; exit"),
        ("num_sum", "raw_tp", "", "r6 = 0; r1 = r10; r1 += -8; r2 = 0; r3 = 1000000; call bpf_iter_num_new; l0: r1 = r10; r1 += -8; call bpf_iter_num_next; if r0 == 0 goto l1; r1 = *(u32 *)(r0 + 0); r6 += r1; goto l0; l1: r1 = r10; r1 += -8; call bpf_iter_num_destroy; r0 = 0; exit"),
        ("num_no_destroy", "raw_tp", "", "r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; r0 = 0; exit"),
        ("num_next_uninit", "raw_tp", "", "r1 = r10; r1 += -8; call bpf_iter_num_next; r0 = 0; exit"),
        ("num_double_new", "raw_tp", "", "r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; r0 = 0; exit"),
        ("num_deref_no_check", "raw_tp", "", "r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; r1 = r10; r1 += -8; call bpf_iter_num_next; r0 = *(u32 *)(r0 + 0); r1 = r10; r1 += -8; call bpf_iter_num_destroy; r0 = 0; exit"),
        ("num_write_ret", "raw_tp", "", "r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; r1 = r10; r1 += -8; call bpf_iter_num_next; if r0 == 0 goto l0; r1 = 1; *(u32 *)(r0 + 0) = r1; l0: r1 = r10; r1 += -8; call bpf_iter_num_destroy; r0 = 0; exit"),
        ("num_overwrite_slot", "raw_tp", "", "r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; *(u64 *)(r10 - 8) = 0; r1 = r10; r1 += -8; call bpf_iter_num_destroy; r0 = 0; exit"),
        ("num_misaligned", "raw_tp", "", "r1 = r10; r1 += -12; r2 = 0; r3 = 10; call bpf_iter_num_new; r0 = 0; exit"),
        ("num_not_stack", "raw_tp", "", "r2 = 0; r3 = 10; call bpf_iter_num_new; r0 = 0; exit"),
        ("num_scalar_args", "raw_tp", "", "r1 = r10; r1 += -8; r2 = r10; r3 = 10; call bpf_iter_num_new; r0 = 0; exit"),
        ("num_state_unpriv", "socket", "--unpriv", "r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; r1 = r10; r1 += -8; call bpf_iter_num_destroy; r0 = 0; exit"),
        ("num_loop_stack_write", "raw_tp", "", "*(u64 *)(r10 - 16) = 0; r1 = r10; r1 += -8; r2 = 0; r3 = 10; call bpf_iter_num_new; l0: r1 = r10; r1 += -8; call bpf_iter_num_next; if r0 == 0 goto l1; r1 = *(u32 *)(r0 + 0); *(u64 *)(r10 - 16) = r1; goto l0; l1: r1 = r10; r1 += -8; call bpf_iter_num_destroy; r0 = 0; exit"),
        ("num_in_subprog", "raw_tp", "", "call foo; r0 = 0; exit; foo: r1 = r10; r1 += -8; r2 = 0; r3 = 3; call bpf_iter_num_new; l0: r1 = r10; r1 += -8; call bpf_iter_num_next; if r0 == 0 goto l1; goto l0; l1: r1 = r10; r1 += -8; call bpf_iter_num_destroy; r0 = 0; exit"),
    ],
    "kfunc": [
        ("cast_to_kern_ctx", "tc", "", "call bpf_cast_to_kern_ctx; r0 = 0; exit"),
        ("cast_to_kern_ctx_xdp", "xdp", "", "call bpf_cast_to_kern_ctx; r0 = 2; exit"),
        ("cast_to_kern_ctx_not_ctx", "tc", "", "r1 = r10; call bpf_cast_to_kern_ctx; r0 = 0; exit"),
        ("rcu_lock_unlock", "raw_tp", "", "call bpf_rcu_read_lock; call bpf_rcu_read_unlock; r0 = 0; exit"),
        ("rcu_unlock_unmatched", "raw_tp", "", "call bpf_rcu_read_unlock; r0 = 0; exit"),
        ("rcu_lock_leak", "raw_tp", "", "call bpf_rcu_read_lock; r0 = 0; exit"),
        ("preempt_leak", "raw_tp", "", "call bpf_preempt_disable; r0 = 0; exit"),
        ("preempt_pair", "raw_tp", "", "call bpf_preempt_disable; call bpf_preempt_enable; r0 = 0; exit"),
        ("preempt_unmatched", "raw_tp", "", "call bpf_preempt_enable; r0 = 0; exit"),
        ("kfunc_unpriv", "socket", "--unpriv", "call bpf_rcu_read_lock; call bpf_rcu_read_unlock; r0 = 0; exit"),
    ],
    "may_goto": [
        ("simple", "raw_tp", "", "r0 = 0; l0: may_goto l1; r0 += 1; goto l0; l1: r0 = 0; exit"),
        ("infinite_with_goto", "raw_tp", "", "r1 = 0; l0: may_goto l1; goto l0; l1: r0 = 0; exit"),
        ("counter_stack", "raw_tp", "", "*(u64 *)(r10 - 8) = 0; l0: may_goto l1; r1 = *(u64 *)(r10 - 8); r1 += 1; *(u64 *)(r10 - 8) = r1; goto l0; l1: r0 = 0; exit"),
        ("jump_forward", "raw_tp", "", "may_goto l0; r0 = 1; exit; l0: r0 = 0; exit"),
        ("unpriv", "socket", "--unpriv", "r0 = 0; l0: may_goto l1; r0 += 1; goto l0; l1: r0 = 0; exit"),
    ],
    "tailcall": [
        ("simple", "socket", PA, "r2 = pa ll; r3 = 0; call bpf_tail_call; r0 = 0; exit"),
        ("var_index", "socket", PA, "r6 = r1; call bpf_get_prandom_u32; r3 = r0; r1 = r6; r2 = pa ll; call bpf_tail_call; r0 = 0; exit"),
        ("wrong_map", "socket", ARR, "r2 = m ll; r3 = 0; call bpf_tail_call; r0 = 0; exit"),
        ("not_ctx", "socket", PA, "r1 = r10; r2 = pa ll; r3 = 0; call bpf_tail_call; r0 = 0; exit"),
        ("in_subprog", "socket", PA, "call foo; exit; foo: r2 = pa ll; r3 = 0; call bpf_tail_call; r0 = 0; exit"),
        ("in_subprog_no_btf", "socket", PA + " --no-btf", "call foo; exit; foo: r2 = pa ll; r3 = 0; call bpf_tail_call; r0 = 0; exit"),
        ("leaks_ref", "tc", PA, "r6 = r1; r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; r7 = r0; r1 = r6; r2 = pa ll; r3 = 0; call bpf_tail_call; if r7 == 0 goto l0; r1 = r7; call bpf_sk_release; l0: r0 = 0; exit"),
        ("clears_pkt", "tc", PA, "r6 = r1; r7 = *(u32 *)(r1 + 76); r8 = *(u32 *)(r1 + 80); r2 = r7; r2 += 8; if r2 > r8 goto l0; r1 = r6; r2 = pa ll; r3 = 0; call bpf_tail_call; r0 = *(u8 *)(r7 + 0); l0: r0 = 0; exit"),
        ("big_stack_subprog", "socket", PA, "*(u64 *)(r10 - 256) = 0; call foo; exit; foo: *(u64 *)(r10 - 8) = 0; r2 = pa ll; r3 = 0; call bpf_tail_call; r0 = 0; exit"),
    ],
    "refs": [
        ("sk_lookup_release", "tc", "", "r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; if r0 == 0 goto l0; r1 = r0; call bpf_sk_release; l0: r0 = 0; exit"),
        ("sk_lookup_leak", "tc", "", "r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; r0 = 0; exit"),
        ("sk_release_null", "tc", "", "r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; r1 = r0; call bpf_sk_release; r0 = 0; exit"),
        ("sk_double_release", "tc", "", "r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; if r0 == 0 goto l0; r6 = r0; r1 = r0; call bpf_sk_release; r1 = r6; call bpf_sk_release; l0: r0 = 0; exit"),
        ("sk_use_after_release", "tc", "", "r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; if r0 == 0 goto l0; r6 = r0; r1 = r0; call bpf_sk_release; r0 = *(u32 *)(r6 + 0); l0: r0 = 0; exit"),
        ("sk_release_unreferenced", "tc", "", "r1 = r10; call bpf_sk_release; r0 = 0; exit"),
        ("sk_spill_release", "tc", "", "r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; *(u64 *)(r10 - 24) = r0; if r0 == 0 goto l0; r1 = *(u64 *)(r10 - 24); call bpf_sk_release; l0: r0 = 0; exit"),
        ("sk_leak_in_branch", "tc", "", "r6 = r1; r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; if r0 == 0 goto l0; r7 = *(u32 *)(r6 + 0); if r7 > 10 goto l0; r1 = r0; call bpf_sk_release; l0: r0 = 0; exit"),
        ("tcp_sock_cast", "tc", "", "r2 = r10; r2 += -16; *(u64 *)(r2 + 0) = 0; *(u64 *)(r2 + 8) = 0; r3 = 16; r4 = 0; r5 = 0; call bpf_sk_lookup_tcp; if r0 == 0 goto l0; r6 = r0; r1 = r0; call bpf_tcp_sock; r1 = r6; call bpf_sk_release; l0: r0 = 0; exit"),
        ("ringbuf_submit", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; call bpf_ringbuf_reserve; if r0 == 0 goto l0; r1 = 0; *(u64 *)(r0 + 0) = r1; r1 = r0; r2 = 0; call bpf_ringbuf_submit; l0: r0 = 0; exit"),
        ("ringbuf_leak", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; call bpf_ringbuf_reserve; r0 = 0; exit"),
        ("ringbuf_discard", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; call bpf_ringbuf_reserve; if r0 == 0 goto l0; r1 = r0; r2 = 0; call bpf_ringbuf_discard; l0: r0 = 0; exit"),
        ("ringbuf_oob", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; call bpf_ringbuf_reserve; if r0 == 0 goto l0; r1 = 0; *(u64 *)(r0 + 4) = r1; r1 = r0; r2 = 0; call bpf_ringbuf_submit; l0: r0 = 0; exit"),
        ("ringbuf_var_size", "socket", RB, "call bpf_get_prandom_u32; r2 = r0; r2 &= 7; r1 = rb ll; r3 = 0; call bpf_ringbuf_reserve; r0 = 0; exit"),
        ("ringbuf_submit_null", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; call bpf_ringbuf_reserve; r1 = r0; r2 = 0; call bpf_ringbuf_submit; r0 = 0; exit"),
        ("ringbuf_submit_modified", "socket", RB, "r1 = rb ll; r2 = 16; r3 = 0; call bpf_ringbuf_reserve; if r0 == 0 goto l0; r0 += 8; r1 = r0; r2 = 0; call bpf_ringbuf_submit; l0: r0 = 0; exit"),
        ("ringbuf_use_after_submit", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; call bpf_ringbuf_reserve; if r0 == 0 goto l0; r6 = r0; r1 = r0; r2 = 0; call bpf_ringbuf_submit; r0 = *(u64 *)(r6 + 0); l0: r0 = 0; exit"),
        ("ringbuf_output", "socket", RB, "r2 = r10; r2 += -8; *(u64 *)(r2 + 0) = 0; r1 = rb ll; r3 = 8; r4 = 0; call bpf_ringbuf_output; r0 = 0; exit"),
        ("ringbuf_leak_in_subprog", "socket", RB, "call foo; r0 = 0; exit; foo: r1 = rb ll; r2 = 8; r3 = 0; call bpf_ringbuf_reserve; r0 = 0; exit"),
        ("ringbuf_ptr_to_subprog", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; call bpf_ringbuf_reserve; if r0 == 0 goto l0; r1 = r0; call foo; l0: r0 = 0; exit; foo: r2 = 0; call bpf_ringbuf_submit; r0 = 0; exit"),
        ("spin_lock_no_btf", "socket", ARR, LOOKUP.format(m="m") + "; r1 = r0; call bpf_spin_lock; r0 = 0; exit"),
        ("dynptr_from_mem", "socket", ARR, LOOKUP.format(m="m") + "; r1 = r0; r2 = 8; r3 = 0; r4 = r10; r4 += -16; call bpf_dynptr_from_mem; r0 = 0; exit"),
        ("dynptr_from_stack", "socket", "", "*(u64 *)(r10 - 24) = 0; r1 = r10; r1 += -24; r2 = 8; r3 = 0; r4 = r10; r4 += -16; call bpf_dynptr_from_mem; r0 = 0; exit"),
        ("dynptr_read", "socket", ARR, LOOKUP.format(m="m") + "; r1 = r0; r2 = 8; r3 = 0; r4 = r10; r4 += -16; call bpf_dynptr_from_mem; r1 = r10; r1 += -24; r2 = 8; r3 = r10; r3 += -16; r4 = 0; r5 = 0; call bpf_dynptr_read; r0 = 0; exit"),
        ("dynptr_read_uninit", "socket", "", "r1 = r10; r1 += -24; r2 = 8; r3 = r10; r3 += -16; r4 = 0; r5 = 0; call bpf_dynptr_read; r0 = 0; exit"),
        ("ringbuf_dynptr_submit", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; r4 = r10; r4 += -16; call bpf_ringbuf_reserve_dynptr; r1 = r10; r1 += -16; r2 = 0; call bpf_ringbuf_submit_dynptr; r0 = 0; exit"),
        ("ringbuf_dynptr_leak", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; r4 = r10; r4 += -16; call bpf_ringbuf_reserve_dynptr; r0 = 0; exit"),
        ("ringbuf_dynptr_overwrite", "socket", RB, "r1 = rb ll; r2 = 8; r3 = 0; r4 = r10; r4 += -16; call bpf_ringbuf_reserve_dynptr; *(u64 *)(r10 - 16) = 0; r1 = r10; r1 += -16; r2 = 0; call bpf_ringbuf_submit_dynptr; r0 = 0; exit"),
        ("ringbuf_dynptr_data", "socket", RB, "r1 = rb ll; r2 = 16; r3 = 0; r4 = r10; r4 += -16; call bpf_ringbuf_reserve_dynptr; r1 = r10; r1 += -16; r2 = 0; r3 = 8; call bpf_dynptr_data; if r0 == 0 goto l0; r1 = 0; *(u64 *)(r0 + 0) = r1; l0: r1 = r10; r1 += -16; r2 = 0; call bpf_ringbuf_discard_dynptr; r0 = 0; exit"),
        ("ringbuf_dynptr_data_after_submit", "socket", RB, "r1 = rb ll; r2 = 16; r3 = 0; r4 = r10; r4 += -16; call bpf_ringbuf_reserve_dynptr; r1 = r10; r1 += -16; r2 = 0; r3 = 8; call bpf_dynptr_data; r6 = r0; r1 = r10; r1 += -16; r2 = 0; call bpf_ringbuf_submit_dynptr; if r6 == 0 goto l0; r0 = *(u64 *)(r6 + 0); l0: r0 = 0; exit"),
    ],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="x86_64")
    ap.add_argument("--only", help="record only this area")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    areas = {a.only: AREAS[a.only]} if a.only else AREAS
    do_check_rec.record(areas, a.out, a.arch, "record-calls-goldens.py", a.dry_run)


if __name__ == "__main__":
    main()
