//! Global data: `.bss`, `.data`, `.rodata` and a custom `.data.*` section,
//! each a single-entry array map libbpf-style, referenced by direct value
//! access (`BPF_PSEUDO_MAP_VALUE` ld_imm64 with the variable's offset).
//! Read-only `.rodata` values are constants to the verifier.

use bpf_selftest::prelude::*;

#[global]
static bss_a: u64 = 0;
#[global]
static bss_b: u64 = 0;
#[global]
static data_a: u64 = 0x1_0000_0002;
#[global]
static data_b: u32 = 7;
#[global]
static data_arr: [u32; 4] = [10, 20, 30, 40];
#[global(rodata)]
static ro_seven: u64 = 7;
#[global(rodata)]
static ro_arr: [u32; 2] = [100, 200];
#[global(".data.custom")]
static custom: u64 = 99;

// A .bss variable starts zeroed; the pointer is a map value of the
// internal .bss map (global_d.bss: the object name cut to fit).
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(0)]
#[msg("R1=map_value(map=global_d.bss,ks=4,vs=16)")]
#[msg(
    "2: (79) r0 = *(u64 *)(r1 +0)          ; R0=scalar() R1=map_value(map=global_d.bss,ks=4,vs=16)"
)]
pub fn bss_read_zero() {
    bpf_asm!(
        "r1 = %[bss_a] ll;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm_addr(bss_a),
    )
}

// Write then read a .bss variable; unprivileged programs may too.
#[sec("socket")]
#[success]
#[success_unpriv]
#[retval(5)]
#[msg_unpriv("0: (18) r1 = 0x0                      ; R1=map_value(map=global_d.bss,ks=4,vs=16)")]
#[log_level(2)]
pub fn bss_write_read() {
    bpf_asm!(
        "r1 = %[bss_a] ll;"
        "r2 = 5;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm_addr(bss_a),
    )
}

// The second .bss variable is at offset 8 of the same value: the ld_imm64
// carries the offset in its second half ((8 << 32) | map id in xlated).
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(3)]
#[msg("R1=map_value(map=global_d.bss,ks=4,vs=16,imm=8)")]
// the value offset rides in the ld_imm64's second half
#[xlated("0: r1 = 0x8000{{[0-9a-f]+}}")]
#[xlated("2: r2 = 3")]
pub fn bss_second_var_offset() {
    bpf_asm!(
        "r1 = %[bss_b] ll;"
        "r2 = 3;"
        "*(u64 *)(r1 + 0) = r2;"
        "r1 = %[bss_a] ll;"
        "r0 = *(u64 *)(r1 + 8);"
        "exit;",
        imm_addr(bss_a),
        imm_addr(bss_b),
    )
}

// .data holds the initial values: the low word of 0x100000002.
#[sec("socket")]
#[success]
#[retval(2)]
pub fn data_read_initial() {
    bpf_asm!(
        "r1 = %[data_a] ll;"
        "r0 = *(u32 *)(r1 + 0);"
        "exit;",
        imm_addr(data_a),
    )
}

// A 4-byte read at a constant offset inside the variable: its high word.
#[sec("socket")]
#[success]
#[retval(1)]
pub fn data_read_high_word() {
    bpf_asm!(
        "r1 = %[data_a] ll;"
        "r0 = *(u32 *)(r1 + 4);"
        "exit;",
        imm_addr(data_a),
    )
}

// data_b follows data_a at offset 8.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(7)]
#[msg("R1=map_value(map=global_d.data,ks=4,vs=28,imm=8)")]
#[xlated("0: r1 = 0x8000{{[0-9a-f]+}}")]
pub fn data_second_var() {
    bpf_asm!(
        "r1 = %[data_b] ll;"
        "r0 = *(u32 *)(r1 + 0);"
        "exit;",
        imm_addr(data_b),
    )
}

// An array in .data indexed by skb->len & 3 (50 & 3 == 2): 30. The
// variable offset stays inside the value, so no bounds check is needed.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(30)]
#[msg("3: (18) r1 = {{.*}}R1=map_value(map=global_d.data,ks=4,vs=28,imm=12)")]
#[msg(
    "6: R1=map_value(map=global_d.data,ks=4,vs=28,smin=umin=smin32=umin32=12,smax=umax=smax32=umax32=24,var_off=(0x0; 0x1c))"
)]
#[xlated("3: r1 = 0xc000{{[0-9a-f]+}}")]
pub fn data_array_var_index() {
    bpf_asm!(
        "r2 = *(u32 *)(r1 + 0);"
        "r2 &= 3;"
        "r2 <<= 2;"
        "r1 = %[data_arr] ll;"
        "r1 += r2;"
        "r0 = *(u32 *)(r1 + 0);"
        "exit;",
        imm_addr(data_arr),
    )
}

// Past the end of the .bss value (16 bytes).
#[sec("socket")]
#[failure]
#[msg("invalid access to map value, value_size=16 off=16 size=8")]
pub fn bss_read_past_end() {
    bpf_asm!(
        "r1 = %[bss_b] ll;"
        "r0 = *(u64 *)(r1 + 8);"
        "exit;",
        imm_addr(bss_b),
    )
}

// Before the start of the value.
#[sec("socket")]
#[failure]
#[msg("invalid access to map value, value_size=16 off=-8 size=8")]
pub fn bss_read_before_start() {
    bpf_asm!(
        "r1 = %[bss_a] ll;"
        "r0 = *(u64 *)(r1 - 8);"
        "exit;",
        imm_addr(bss_a),
    )
}

// A frozen .rodata value is a constant to the verifier (R0=7).
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(7)]
#[msg("2: (79) r0 = *(u64 *)(r1 +0)          ; R0=7 R1=map_value(map=global_d.rodata,ks=4,vs=16)")]
pub fn rodata_is_const() {
    bpf_asm!(
        "r1 = %[ro_seven] ll;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm_addr(ro_seven),
    )
}

// A branch on a .rodata constant is resolved: the other arm (which reads
// an uninitialized register) is never verified and is removed.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(1)]
#[msg("2: (79) r1 = *(u64 *)(r1 +0)          ; R1=7")]
#[msg("4: (05) goto pc+1")]
#[xlated("2: r1 = *(u64 *)(r1 +0)")]
#[xlated("3: r0 = 1")]
#[xlated("4: exit")]
pub fn rodata_branch_resolved() {
    bpf_asm!(
        "r1 = %[ro_seven] ll;"
        "r1 = *(u64 *)(r1 + 0);"
        "r0 = 1;"
        "if r1 == 7 goto 1f;"
        "r0 = r5;"
    "1:"
        "exit;",
        imm_addr(ro_seven),
    )
}

// The second element of a .rodata array, also a constant.
#[sec("socket")]
#[kernel("7.3")]
#[success]
#[log_level(2)]
#[retval(200)]
#[msg(
    "2: (61) r0 = *(u32 *)(r1 +4)          ; R0=200 R1=map_value(map=global_d.rodata,ks=4,vs=16,imm=8)"
)]
pub fn rodata_array_elem() {
    bpf_asm!(
        "r1 = %[ro_arr] ll;"
        "r0 = *(u32 *)(r1 + 4);"
        "exit;",
        imm_addr(ro_arr),
    )
}

// .rodata is read-only for the program.
#[sec("socket")]
#[failure]
#[msg("write into map forbidden, value_size=16 off=0 size=8")]
pub fn rodata_write_rejected() {
    bpf_asm!(
        "r1 = %[ro_seven] ll;"
        "r2 = 1;"
        "*(u64 *)(r1 + 0) = r2;"
        "r0 = 0;"
        "exit;",
        imm_addr(ro_seven),
    )
}

// A custom .data.custom section is its own map, named after the section.
#[sec("socket")]
#[success]
#[log_level(2)]
#[retval(99)]
#[msg("R1=map_value(map=.data.custom,ks=4,vs=8)")]
pub fn custom_section() {
    bpf_asm!(
        "r1 = %[custom] ll;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm_addr(custom),
    )
}

// An atomic add on a .bss counter, twice: 2.
#[sec("socket")]
#[success]
#[retval(2)]
#[xlated("3: lock *(u64 *)(r1 +0) += r2")]
#[xlated("4: lock *(u64 *)(r1 +0) += r2")]
pub fn bss_atomic_counter() {
    bpf_asm!(
        "r1 = %[bss_a] ll;"
        "r2 = 1;"
        "lock *(u64 *)(r1 + 0) += r2;"
        "lock *(u64 *)(r1 + 0) += r2;"
        "r0 = *(u64 *)(r1 + 0);"
        "exit;",
        imm_addr(bss_a),
    )
}
