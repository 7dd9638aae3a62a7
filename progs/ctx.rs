//! The program context per program type: which fields a type may read or
//! write, how 7.3 rewrites each access to the kernel structure behind it
//! (the xlated offsets), and the errors for modified, misaligned and
//! out-of-range ctx accesses and for return values out of range.

use bpf_selftest::prelude::*;

// skb->len (__sk_buff offset 0) becomes a load from struct sk_buff; the
// socket filter test run pulls the 14-byte Ethernet header, so 64 - 14.
#[sec("socket")]
#[success]
#[retval(50)]
#[xlated("0: r0 = *(u32 *)(r1 +112)")]
#[xlated("1: exit")]
pub fn socket_len() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "exit;"
    )
}

// A one-byte load of skb->len: narrow loads of ctx fields are allowed and
// rewritten as a full load plus a mask.
#[sec("socket")]
#[success]
#[retval(50)]
#[xlated("0: r0 = *(u32 *)(r1 +112)")]
#[xlated("1: w0 &= 255")]
#[xlated("2: exit")]
pub fn socket_len_narrow() {
    bpf_asm!(
        "r0 = *(u8 *)(r1 + 0);"
        "exit;"
    )
}

// skb->protocol as the test run's eth_type_trans() left it for a zeroed
// frame.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(1024)]
// a 16-bit field of struct sk_buff behind a 32-bit __sk_buff field
#[xlated("0: r0 = *(u16 *)(r1 +180)")]
pub fn socket_protocol() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 16);"
        "exit;"
    )
}

// skb->cb[] is scratch space a socket filter may write and read back.
#[sec("socket")]
#[success]
#[retval(7)]
#[xlated("1: *(u32 *)(r1 +48) = r2")]
#[xlated("2: r0 = *(u32 *)(r1 +48)")]
pub fn socket_cb_write_read() {
    bpf_asm!(
        "r2 = 7;"
        "*(u32 *)(r1 + 48) = r2;"
        "r0 = *(u32 *)(r1 + 48);"
        "exit;"
    )
}

// A socket filter may not write skb->mark.
#[sec("socket")]
#[failure]
#[msg("invalid bpf_context access off=8 size=4")]
pub fn socket_mark_write_rejected() {
    bpf_asm!(
        "r2 = 7;"
        "*(u32 *)(r1 + 8) = r2;"
        "r0 = 0;"
        "exit;"
    )
}

// ... nor see skb->data: no direct packet access for socket filters.
#[sec("socket")]
#[failure]
#[msg("invalid bpf_context access off=76 size=4")]
pub fn socket_data_rejected() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 76);"
        "exit;"
    )
}

// A ctx pointer moved by a constant cannot be dereferenced.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("dereference of modified ctx ptr R1 off=4 disallowed")]
#[msg("Verification failed: Register Type Safety: Invalid dereference")]
pub fn ctx_modified_ptr() {
    bpf_asm!(
        "r1 += 4;"
        "r0 = *(u32 *)(r1 + 0);"
        "exit;"
    )
}

// ... nor one moved by a variable.
#[sec("socket")]
#[failure]
#[msg("variable ctx access var_off=(0x0; 0x4) disallowed")]
pub fn ctx_var_offset() {
    bpf_asm!(
        "r6 = r1;"
        "call %[bpf_get_prandom_u32];"
        "r0 &= 4;"
        "r6 += r0;"
        "r0 = *(u32 *)(r6 + 0);"
        "exit;",
        imm(bpf_get_prandom_u32),
    )
}

// A 4-byte load at offset 1 is not a field access.
#[sec("socket")]
#[failure]
#[msg("invalid bpf_context access off=1 size=4")]
#[arch(x86_64, arm64)]
pub fn ctx_misaligned() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 1);"
        "exit;"
    )
}

// BPF_ST (store immediate) into a writable ctx field is allowed.
#[sec("socket")]
#[success]
#[retval(7)]
#[xlated("0: *(u32 *)(r1 +48) = 7")]
pub fn ctx_store_imm_cb() {
    bpf_asm!(
        "*(u32 *)(r1 + 48) = 7;"
        "r0 = *(u32 *)(r1 + 48);"
        "exit;"
    )
}

// Past the end of struct __sk_buff.
#[sec("socket")]
#[failure]
#[msg("invalid bpf_context access off=256 size=4")]
pub fn ctx_past_end() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 256);"
        "exit;"
    )
}

// tc may write skb->mark; reading it back gives the value.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(7)]
#[xlated("1: *(u32 *)(r1 +168) = r2")]
#[xlated("2: r0 = *(u32 *)(r1 +168)")]
pub fn tc_mark_write_read() {
    bpf_asm!(
        "r2 = 7;"
        "*(u32 *)(r1 + 8) = r2;"
        "r0 = *(u32 *)(r1 + 8);"
        "exit;"
    )
}

// tc sees skb->data and skb->data_end as packet pointers.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(64)]
#[msg("0: (61) r2 = *(u32 *)(r1 +76)         ; R1=ctx() R2=pkt(r=0)")]
#[msg("1: (61) r3 = *(u32 *)(r1 +80)         ; R1=ctx() R3=pkt_end()")]
#[msg("3: (1f) r0 -= r2                      ; R0=scalar() R2=pkt(r=0)")]
// data is skb->data, data_end lives in the skb's cb
#[xlated("0: r2 = *(u64 *)(r1 +208)")]
#[xlated("1: r3 = *(u64 *)(r1 +80)")]
pub fn tc_data_pointers() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r0 = r3;"
        "r0 -= r2;"
        "exit;"
    )
}

// skb->len seen from tc.
#[sec("tc")]
#[success]
#[retval(64)]
#[xlated("0: r0 = *(u32 *)(r1 +112)")]
pub fn tc_len() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "exit;"
    )
}

// skb->tc_classid may be written by tc.
#[sec("tc")]
#[success]
#[retval(0)]
#[xlated("1: *(u16 *)(r1 +46) = r2")]
pub fn tc_classid_write() {
    bpf_asm!(
        "r2 = 5;"
        "*(u32 *)(r1 + 72) = r2;"
        "r0 = 0;"
        "exit;"
    )
}

// xdp_md->data and data_end: 64 bytes of packet.
#[sec("xdp")]
#[success]
#[log_level(2)]
#[retval(64)]
#[msg("0: (61) r2 = *(u32 *)(r1 +0)          ; R1=ctx() R2=pkt(r=0)")]
#[msg("1: (61) r3 = *(u32 *)(r1 +4)          ; R1=ctx() R3=pkt_end()")]
#[xlated("0: r2 = *(u64 *)(r1 +0)")]
#[xlated("1: r3 = *(u64 *)(r1 +8)")]
pub fn xdp_data_len() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r3 = *(u32 *)(r1 + 4);"
        "r0 = r3;"
        "r0 -= r2;"
        "exit;"
    )
}

// xdp_md->ingress_ifindex is two loads (rxq, then rxq->dev->ifindex);
// the test run's device is lo (1).
#[sec("xdp")]
#[success]
#[retval(1)]
#[xlated("0: r0 = *(u64 *)(r1 +32)")]
#[xlated("1: r0 = *(u64 *)(r0 +0)")]
#[xlated("2: r0 = *(u32 *)(r0 +224)")]
#[xlated("3: exit")]
pub fn xdp_ingress_ifindex() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 12);"
        "exit;"
    )
}

// xdp_md->rx_queue_index.
#[sec("xdp")]
#[success]
#[retval(0)]
#[xlated("0: r0 = *(u64 *)(r1 +32)")]
#[xlated("1: r0 = *(u32 *)(r0 +8)")]
pub fn xdp_rx_queue_index() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 16);"
        "exit;"
    )
}

// The XDP ctx is read-only.
#[sec("xdp")]
#[failure]
#[msg("invalid bpf_context access off=0 size=4")]
pub fn xdp_ctx_write_rejected() {
    bpf_asm!(
        "r2 = 0;"
        "*(u32 *)(r1 + 0) = r2;"
        "r0 = 2;"
        "exit;"
    )
}

// XDP_PASS from an XDP program.
#[sec("xdp")]
#[success]
#[retval(2)]
pub fn xdp_pass() {
    bpf_asm!(
        "r0 = 2;"
        "exit;"
    )
}

// A raw tracepoint's ctx is an array of u64 arguments.
#[sec("raw_tp")]
#[success]
#[log_level(2)]
#[msg("1: (79) r0 = *(u64 *)(r1 +8)          ; R0=scalar() R1=ctx()")]
#[xlated("0: r0 = *(u64 *)(r1 +0)")]
#[xlated("1: r0 = *(u64 *)(r1 +8)")]
pub fn raw_tp_args() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 0);"
        "r0 = *(u64 *)(r1 + 8);"
        "r0 = 0;"
        "exit;"
    )
}

// Beyond the 12 arguments a raw tracepoint can have.
#[sec("raw_tp")]
#[failure]
#[msg("invalid bpf_context access off=96 size=8")]
pub fn raw_tp_arg_out_of_range() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 96);"
        "r0 = 0;"
        "exit;"
    )
}

// Raw tracepoint arguments are read-only.
#[sec("raw_tp")]
#[failure]
#[msg("invalid bpf_context access off=0 size=8")]
pub fn raw_tp_args_write_rejected() {
    bpf_asm!(
        "r2 = 0;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;"
    )
}

// cgroup_skb programs return 0 (drop) or 1 (allow).
#[sec("cgroup/skb")]
#[failure]
#[msg("At program exit the register R0 has smin=2 smax=2 should have been in [0, 1]")]
pub fn cgroup_skb_bad_return() {
    bpf_asm!(
        "r0 = 2;"
        "exit;"
    )
}

// An unknown return value is not provably in [0, 1] either.
#[sec("cgroup/skb")]
#[failure]
#[msg("At program exit the register R0 has smin=0 smax=4294967295 should have been in [0, 1]")]
pub fn cgroup_skb_unknown_return() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "exit;"
    )
}

// A masked return value is in range.
#[sec("cgroup/skb")]
#[success]
#[retval(0)]
#[xlated("0: r0 = *(u32 *)(r1 +112)")]
#[xlated("1: r0 &= 1")]
pub fn cgroup_skb_masked_return() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "r0 &= 1;"
        "exit;"
    )
}

// cgroup_skb may write skb->mark (struct sk_buff offset 168).
#[sec("cgroup/skb")]
#[kernel("7.3")]
#[success]
#[retval(1)]
#[xlated("1: *(u32 *)(r1 +168) = r2")]
pub fn cgroup_skb_mark_write() {
    bpf_asm!(
        "r2 = 1;"
        "*(u32 *)(r1 + 8) = r2;"
        "r0 = 1;"
        "exit;"
    )
}

// A socket filter's return value is not range-checked.
#[sec("socket")]
#[success]
#[retval(-1)]
pub fn socket_any_return() {
    bpf_asm!(
        "r0 = -1;"
        "exit;"
    )
}

// kprobe: the ctx is struct pt_regs, read as is (x86_64: di is at 112).
#[sec("kprobe")]
#[success]
#[arch(x86_64)]
#[xlated("0: r0 = *(u64 *)(r1 +112)")]
pub fn kprobe_pt_regs_di_x86_64() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 112);"
        "r0 = 0;"
        "exit;"
    )
}

// kprobe: arm64's struct pt_regs (x0 at 0).
#[sec("kprobe")]
#[success]
#[arch(arm64)]
#[xlated("0: r0 = *(u64 *)(r1 +0)")]
pub fn kprobe_pt_regs_x0_arm64() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 0);"
        "r0 = 0;"
        "exit;"
    )
}

// kprobe programs may even write the registers.
#[sec("kprobe")]
#[kernel("7.3")]
#[success]
#[xlated("1: *(u64 *)(r1 +0) = r2")]
pub fn kprobe_ctx_write() {
    bpf_asm!(
        "r2 = 0;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;"
    )
}

// A tracepoint's ctx: the first 8 bytes (the common fields) are hidden
// from the program.
#[sec("tracepoint")]
#[failure]
#[msg("invalid bpf_context access off=0 size=8")]
pub fn tracepoint_common_fields() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 0);"
        "r0 = 0;"
        "exit;"
    )
}

// perf_event: bpf_perf_event_data->sample_period follows the arch's
// pt_regs (168 bytes on x86_64) and is rewritten through the kernel's
// perf_sample_data.
#[sec("perf_event")]
#[success]
#[arch(x86_64)]
// data->sample_period, then sample_period in struct perf_sample_data
#[xlated("0: r0 = *(u64 *)(r1 +8)")]
#[xlated("1: r0 = *(u64 *)(r0 +8)")]
pub fn perf_event_sample_period_x86_64() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 168);"
        "r0 = 0;"
        "exit;"
    )
}

// On arm64 the same field is at 272 (its user_pt_regs is bigger); offset
// 168 is a register there, read through the regs pointer.
#[sec("perf_event")]
#[success]
#[arch(arm64)]
#[xlated("0: r0 = *(u64 *)(r1 +8)")]
#[xlated("1: r0 = *(u64 *)(r0 +8)")]
// a register: through the regs pointer at offset 0
#[xlated("2: r0 = *(u64 *)(r1 +0)")]
#[xlated("3: r0 = *(u64 *)(r0 +168)")]
pub fn perf_event_sample_period_arm64() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 272);"
        "r0 = *(u64 *)(r1 + 168);"
        "r0 = 0;"
        "exit;"
    )
}

// sk_skb may read skb->data and skb->len (parser/verdict programs).
#[sec("sk_skb")]
#[success]
#[xlated("0: r0 = *(u32 *)(r1 +112)")]
pub fn sk_skb_len() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "r0 = 0;"
        "exit;"
    )
}

// sock_ops: struct bpf_sock_ops->op, then a field it may not write.
#[sec("sockops")]
#[success]
// op is a u8 of struct bpf_sock_ops_kern
#[xlated("0: r0 = *(u8 *)(r1 +48)")]
pub fn sock_ops_op() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "r0 = 1;"
        "exit;"
    )
}

#[sec("sockops")]
#[failure]
#[msg("invalid bpf_context access off=0 size=4")]
pub fn sock_ops_write_op() {
    bpf_asm!(
        "r2 = 0;"
        "*(u32 *)(r1 + 0) = r2;"
        "r0 = 1;"
        "exit;"
    )
}

// flow_dissector: skb->flow_keys is a pointer to the flow keys.
#[sec("flow_dissector")]
#[success]
#[log_level(2)]
#[msg("0: (79) r2 = *(u64 *)(r1 +144)        ; R1=ctx() R2=flow_keys()")]
#[xlated("0: r2 = *(u64 *)(r1 +0)")]
#[xlated("1: r0 = *(u16 *)(r2 +0)")]
pub fn flow_dissector_keys() {
    bpf_asm!(
        "r2 = *(u64 *)(r1 + 144);"
        "r0 = *(u16 *)(r2 + 0);"
        "r0 = 0;"
        "exit;"
    )
}

// lwt_in: skb->mark readable, the packet not writable.
#[sec("lwt_in")]
#[kernel("7.3")]
#[success]
#[xlated("0: r0 = *(u32 *)(r1 +168)")]
pub fn lwt_in_mark() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 8);"
        "r0 = 0;"
        "exit;"
    )
}

#[sec("lwt_in")]
#[failure]
#[msg("cannot write into packet")]
pub fn lwt_in_write_packet() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 76);"
        "r3 = *(u32 *)(r1 + 80);"
        "r4 = r2;"
        "r4 += 1;"
        "r0 = 0;"
        "if r4 > r3 goto 1f;"
        "*(u8 *)(r2 + 0) = r0;"
    "1:"
        "exit;"
    )
}

// sk_lookup: struct bpf_sk_lookup->family, a read-only field.
#[sec("sk_lookup")]
#[success]
#[xlated("0: r0 = *(u16 *)(r1 +0)")]
pub fn sk_lookup_family() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 8);"
        "r0 = 1;"
        "exit;"
    )
}

// sk_lookup returns SK_PASS (1) or SK_DROP (0).
#[sec("sk_lookup")]
#[failure]
#[msg("At program exit the register R0 has smin=3 smax=3 should have been in [0, 1]")]
pub fn sk_lookup_bad_return() {
    bpf_asm!(
        "r0 = 3;"
        "exit;"
    )
}

// syscall programs get a user buffer as ctx: reads of it are checked
// against the ctx size at run time, the verifier only bounds them.
#[sec("syscall")]
#[success]
#[log_level(2)]
#[msg("0: (79) r0 = *(u64 *)(r1 +0)          ; R0=scalar() R1=ctx()")]
#[xlated("0: r0 = *(u64 *)(r1 +0)")]
pub fn syscall_ctx_read() {
    bpf_asm!(
        "r0 = *(u64 *)(r1 + 0);"
        "r0 = 0;"
        "exit;"
    )
}
