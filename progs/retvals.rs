//! Computations whose results the test run checks: loops with constant
//! inputs the verifier walks to the end, signed arithmetic, byte swaps,
//! 32-bit wrap-around, and values derived from the packet length.

use bpf_selftest::prelude::*;

// The 10th Fibonacci number.
#[sec("socket")]
#[success]
#[retval(55)]
pub fn fibonacci_10() {
    bpf_asm!(
        "r1 = 0;"
        "r2 = 1;"
        "r3 = 10;"
    "1:"
        "r4 = r1;"
        "r4 += r2;"
        "r1 = r2;"
        "r2 = r4;"
        "r3 -= 1;"
        "if r3 != 0 goto 1b;"
        "r0 = r1;"
        "exit;"
    )
}

// Population count of 0xf0f0 by clearing the lowest set bit.
#[sec("socket")]
#[success]
#[retval(8)]
pub fn popcount_loop() {
    bpf_asm!(
        "r1 = 0xf0f0;"
        "r0 = 0;"
    "1:"
        "if r1 == 0 goto 2f;"
        "r2 = r1;"
        "r2 -= 1;"
        "r1 &= r2;"
        "r0 += 1;"
        "goto 1b;"
    "2:"
        "exit;"
    )
}

// Euclid's gcd(1071, 462) with a modulo loop: BPF_MOD by a register
// leaves an unknown scalar even for constants, so the loop has no known
// end and the verifier gives up on the jump sequence.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[log_level(2)]
#[msg("4: (9f) r3 %= r2                      ; R2=scalar(id=3874,umin=1) R3=scalar()")]
#[msg("The sequence of 8193 jumps is too complex.")]
pub fn gcd_loop_too_complex() {
    bpf_asm!(
        "r1 = 1071;"
        "r2 = 462;"
    "1:"
        "if r2 == 0 goto 2f;"
        "r3 = r1;"
        "r3 %= r2;"
        "r1 = r2;"
        "r2 = r3;"
        "goto 1b;"
    "2:"
        "r0 = r1;"
        "exit;"
    )
}

// Collatz steps from 27: 111.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(111)]
#[log_level(2)]
#[msg("3: (07) r0 += 1                       ; R0=111")]
pub fn collatz_27() {
    bpf_asm!(
        "r1 = 27;"
        "r0 = 0;"
    "1:"
        "if r1 == 1 goto 3f;"
        "r0 += 1;"
        "r2 = r1;"
        "r2 &= 1;"
        "if r2 != 0 goto 2f;"
        "r1 >>= 1;"
        "goto 1b;"
    "2:"
        "r1 *= 3;"
        "r1 += 1;"
        "goto 1b;"
    "3:"
        "exit;"
    )
}

// -7 s/ 2 = -3 and -7 s% 2 = -1, combined as (-3 * 16) + (-1): -49.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(-49)]
#[log_level(2)]
#[msg("3: (97) r2 s%= 2                      ; R2=scalar(smin=smin32=-1,smax=smax32=0)")]
#[arch(x86_64)]
#[jited("\tmovq\t$0x2, %r11")]
#[jited("\tmovq\t%rdi, %rax")]
#[jited("\tcqto")]
#[jited("\tidivq\t%r11")]
#[jited("\tmovq\t%rax, %rdi")]
#[arch(arm64)]
#[jited("\tsdiv\tx0, x0, x10")]
pub fn sdiv_smod_negative() {
    bpf_asm!(
        "r1 = -7;"
        "r2 = r1;"
        "r1 s/= 2;"
        "r2 s%= 2;"
        "r1 *= 16;"
        "r0 = r1;"
        "r0 += r2;"
        "exit;"
    )
}

// 0x10000 * 0x10001 in 32 bits wraps to 0x10000. (7.3 numbers the hidden
// AX register r12; older kernels print it as r11.)
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(0x10000)]
#[xlated("0: w0 = 65536")]
#[xlated("1: r12 = {{.*}}")]
#[xlated("2: r12 <<= 32")]
#[xlated("3: r0 |= r12")]
#[xlated("4: w1 = 65537")]
#[xlated("5: r12 = {{.*}}")]
#[xlated("6: r12 <<= 32")]
#[xlated("7: r1 |= r12")]
#[xlated("8: w0 *= w1")]
pub fn mul32_wraps() {
    bpf_asm!(
        "w0 = 0x10000;"
        "w1 = 0x10001;"
        "w0 *= w1;"
        "exit;"
    )
}

// be16 of the packet length in tc (64 = 0x40): 0x4000.
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(0x4000)]
#[log_level(2)]
#[msg("1: (dc) r0 = be16 r0                  ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=0xffff,var_off=(0x0; 0xffff))")]
#[arch(x86_64)]
#[jited("\trorw\t$0x8, %ax")]
#[jited("\tmovzwl\t%ax, %eax")]
#[arch(arm64)]
#[jited("\trev16\tw8, w8")]
#[jited("\tuxth\tw8, w8")]
pub fn be16_of_len() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "r0 = be16 r0;"
        "exit;"
    )
}

// skb->len * 3 / 7 (tc: len 64 -> 27).
#[sec("tc")]
#[kernel("7.3")]
#[success]
#[retval(27)]
#[log_level(2)]
#[msg("2: (37) r0 /= 7                       ; R0=scalar(smin=smin32=0,smax=umax=smax32=umax32=0x6db6db6d,var_off=(0x0; 0x7fffffff))")]
pub fn len_times_3_div_7() {
    bpf_asm!(
        "r0 = *(u32 *)(r1 + 0);"
        "r0 *= 3;"
        "r0 /= 7;"
        "exit;"
    )
}

// Arithmetic shift of a negative 32-bit value, then zero extension:
// (0x80000000 s>> 4) = 0xf8000000, >> 24 = 0xf8.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[retval(248)]
#[log_level(2)]
#[msg("1: (c4) w0 s>>= 4                     ; R0=0xf8000000")]
pub fn arsh32_then_rsh() {
    bpf_asm!(
        "w0 = 0x80000000;"
        "w0 s>>= 4;"
        "r0 >>= 24;"
        "exit;"
    )
}

// (s16) of 0xfffe and a 64-bit rotate-free mix: -2 * -3 = 6.
#[sec("socket")]
#[success]
#[retval(6)]
pub fn movsx16_negative_product() {
    bpf_asm!(
        "r1 = 0xfffe;"
        "r1 = (s16)r1;"
        "r2 = -3;"
        "r1 *= r2;"
        "r0 = r1;"
        "exit;"
    )
}

#[map]
static tc_count: Map = Map::new(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
#[map]
static tc_self: Map = Map::new(BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 1).prog_slots(&[(0, "tail_call_self_counts")]);
#[map]
static tc_sub: Map = Map::new(BPF_MAP_TYPE_PROG_ARRAY, 4, 4, 1).prog_slots(&[(0, "tail_call_from_subprog_counts")]);

// A program in slot 0 of its prog array tail-calls itself: it runs once
// and then once per taken tail call until MAX_TAIL_CALL_CNT (33) stops
// the chain and the call falls through: 34 entries counted.
#[sec("socket")]
#[success]
#[retval(34)]
pub fn tail_call_self_counts() {
    bpf_asm!(
        "r6 = r1;"
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[tc_count] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r7 = r0;"
        "r1 = *(u64 *)(r7 + 0);"
        "r1 += 1;"
        "*(u64 *)(r7 + 0) = r1;"
        "r1 = r6;"
        "r2 = %[tc_self] ll;"
        "r3 = 0;"
        "call %[bpf_tail_call];"
        "r0 = *(u64 *)(r7 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(tc_count),
        imm_addr(tc_self),
        imm(bpf_map_lookup_elem),
        imm(bpf_tail_call),
    )
}

// The index is the ctx pointer: only a scalar constant is a key the
// verifier records (record_func_key's is_reg_const), so the call is left
// to the runtime's bounds check, which a kernel address's low 32 bits
// fail: the call falls through.
#[sec("socket")]
#[success]
#[retval(7)]
pub fn tail_call_index_is_a_pointer() {
    bpf_asm!(
        "r3 = r1;"
        "r2 = %[tc_self] ll;"
        "call %[bpf_tail_call];"
        "r0 = 7;"
        "exit;",
        imm_addr(tc_self),
        imm(bpf_tail_call),
    )
}

// An index past max_entries: the tail call falls through.
#[sec("socket")]
#[success]
#[retval(7)]
pub fn tail_call_index_out_of_range() {
    bpf_asm!(
        "r2 = %[tc_self] ll;"
        "r3 = 1;"
        "call %[bpf_tail_call];"
        "r0 = 7;"
        "exit;",
        imm_addr(tc_self),
        imm(bpf_tail_call),
    )
}

#[subprog]
fn tail_call_sub() {
    bpf_asm!(
        "r2 = %[tc_sub] ll;"
        "r3 = 0;"
        "call %[bpf_tail_call];"
        "r0 = 0;"
        "exit;",
        imm_addr(tc_sub),
        imm(bpf_tail_call),
    )
}

// The tail call in a subprogram: each entry of the program calls the
// subprogram, whose tail call re-enters the program on the subprogram's
// frame; the chain stops after 33 and every level returns the count, 34.
#[sec("socket")]
#[success]
#[retval(34)]
pub fn tail_call_from_subprog_counts() {
    bpf_asm!(
        "r6 = r1;"
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[tc_count] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r7 = r0;"
        "r1 = *(u64 *)(r7 + 0);"
        "r1 += 1;"
        "*(u64 *)(r7 + 0) = r1;"
        "r1 = r6;"
        "call %[tail_call_sub];"
        "r0 = *(u64 *)(r7 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(tc_count),
        imm(bpf_map_lookup_elem),
        imm(tail_call_sub),
    )
}

#[subprog]
fn stack_ptr_to_map_inner() {
    bpf_asm!(
        "r6 = r1;"
        "r1 = 0;"
        "*(u64 *)(r10 - 8) = r1;"
        "*(u32 *)(r10 - 12) = r1;"
        "r2 = r10;"
        "r2 += -12;"
        "r1 = %[tc_count] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "*(u64 *)(r0 + 0) = r10;"
    "1:"
        "r0 = r6;"
        "exit;",
        imm_addr(tc_count),
        imm(bpf_map_lookup_elem),
    )
}

#[subprog]
fn stack_ptr_to_map_outer() {
    bpf_asm!(
        "r6 = r1;"
        "*(u64 *)(r10 - 24) = r6;"
        "r1 = 3;"
        "call %[stack_ptr_to_map_inner];"
        "r0 += r6;"
        "exit;",
        imm(stack_ptr_to_map_inner),
    )
}

// Privileged, a subprogram two calls deep stores its frame pointer in a
// map value and the program returns it (no retval: a kernel stack
// address; native runs of the JIT's code and the interpreter must agree
// on it, tests/model/exec_native.rs).
#[sec("socket")]
#[success]
pub fn subprog_frame_pointer_escapes() {
    bpf_asm!(
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r1 = 5;"
        "call %[stack_ptr_to_map_outer];"
        "r1 = 0;"
        "*(u32 *)(r10 - 4) = r1;"
        "r2 = r10;"
        "r2 += -4;"
        "r1 = %[tc_count] ll;"
        "call %[bpf_map_lookup_elem];"
        "if r0 == 0 goto 1f;"
        "r0 = *(u64 *)(r0 + 0);"
        "exit;"
    "1:"
        "r0 = 0;"
        "exit;",
        imm_addr(tc_count),
        imm(bpf_map_lookup_elem),
        imm(stack_ptr_to_map_outer),
    )
}

// The gso fields of a tc program's skb live in `skb_shinfo(skb)` (at
// `skb->head + skb->end`): the conversions load `end` and `head` first. A
// test run without a ctx leaves them zero: 3.
#[sec("tc")]
#[success]
#[retval(3)]
pub fn gso_fields_zero_in_a_test_run() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 164);" // gso_segs
        "r3 = *(u32 *)(r1 + 176);" // gso_size
        "r4 = *(u64 *)(r1 + 184);" // hwtstamp
        "r0 = 3;"
        "r0 += r2;"
        "r0 += r3;"
        "r0 += r4;"
        "exit;"
    )
}

// A socket filter reads gso_segs and gso_size too: zero, so 5.
#[sec("socket")]
#[success]
#[retval(5)]
pub fn gso_segs_socket_filter() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 164);" // gso_segs
        "r3 = *(u32 *)(r1 + 176);" // gso_size
        "r0 = 5;"
        "r0 |= r2;"
        "r0 |= r3;"
        "exit;"
    )
}
