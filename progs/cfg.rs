//! Program structure and encoding errors the verifier reports before (or
//! while) walking the program: unreachable code, jumps out of range or
//! into an ld_imm64, infinite loops, bad registers, reserved fields and
//! unknown opcodes or helpers (raw encodings through `.8byte`).

use bpf_selftest::prelude::*;

// Code after an unconditional exit that nothing jumps to.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("unreachable insn 2")]
#[msg("Verification failed: Program Structure: Unreachable instruction")]
pub fn unreachable_insn() {
    bpf_asm!(
        "r0 = 0;"
        "exit;"
        "r0 = 1;"
        "exit;"
    )
}

// A jump past the end of the program.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("jump out of range from insn 1 to 7")]
#[msg("Verification failed: Program Structure: Jump out of range")]
pub fn jump_past_end() {
    bpf_asm!(
        "r0 = 0;"
        "goto +5;"
        "exit;"
    )
}

// A program that falls off its end.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("last insn is not an exit or jmp")]
#[msg("Verification failed: Program Structure: Subprogram can fall through")]
pub fn last_insn_not_exit() {
    bpf_asm!(
        "r0 = 0;"
        "exit;"
    "1:"
        "r0 = 1;"
        "if r0 == 1 goto 1b;"
        "r0 = 2;",
    )
}

// A jump to itself that is always taken: the verifier sees the same
// state again at the same insn.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
// the always-taken compare was rewritten to a goto first
#[msg("1: (05) goto pc-1")]
#[msg("infinite loop detected at insn 1")]
pub fn infinite_loop() {
    bpf_asm!(
        "r0 = 0;"
    "1:"
        "if r0 == 0 goto 1b;"
        "exit;"
    )
}

// A jump into the second half of an ld_imm64.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("jump into the middle of ldimm64 insn 2")]
#[msg("Verification failed: Program Structure: Jump into ldimm64 immediate")]
pub fn jump_into_ld_imm64() {
    bpf_asm!(
        "r0 = 0;"
        "if r0 == 0 goto +1;"
        "r1 = 0x100000000 ll;"
        "exit;"
    )
}

// An ld_imm64 whose second half is missing (the last insn of the program).
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("invalid bpf_ld_imm64 insn")]
pub fn ld_imm64_truncated() {
    bpf_asm!(
        "r0 = 0;"
        "exit;"
        ".8byte %[ld];",
        imm_insn(ld = Insn::new(BPF_LD | BPF_IMM | BPF_DW, 0, 0, 0, 1)),
    )
}

// Register r11 does not exist for programs.
#[sec("socket")]
#[failure]
#[msg("R11 is invalid")]
pub fn bad_register() {
    bpf_asm!(
        ".8byte %[mov];"
        "r0 = 0;"
        "exit;",
        imm_insn(mov = Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 11, 0, 0, 1)),
    )
}

// A 64-bit mov with a non-zero off that is not a movsx width.
#[sec("socket")]
#[failure]
#[msg("BPF_MOV uses reserved fields")]
pub fn mov_reserved_off() {
    bpf_asm!(
        "r1 = 1;"
        ".8byte %[mov];"
        "exit;",
        imm_insn(mov = Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, 0, 1, 3, 0)),
    )
}

// A conditional jump on an immediate with a non-zero src_reg.
#[sec("socket")]
#[failure]
#[msg("BPF_JMP/JMP32 uses reserved fields")]
pub fn jmp_reserved_src() {
    bpf_asm!(
        "r0 = 0;"
        ".8byte %[jeq];"
        "exit;",
        imm_insn(jeq = Insn::new(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0, 0)),
    )
}

// A byte swap of 17 bits.
#[sec("socket")]
#[failure]
#[msg("BPF_END uses reserved fields")]
pub fn bswap_bad_width() {
    bpf_asm!(
        "r0 = 1;"
        ".8byte %[end];"
        "exit;",
        imm_insn(end = Insn::new(BPF_ALU | BPF_END | BPF_TO_BE, 0, 0, 0, 17)),
    )
}

// An opcode that is no BPF instruction (class ALU64, op 0xf0).
#[sec("socket")]
#[failure]
#[msg("unknown opcode f7")]
pub fn unknown_opcode() {
    bpf_asm!(
        ".8byte %[bad];"
        "r0 = 0;"
        "exit;",
        imm_insn(bad = Insn::new(BPF_ALU64 | 0xf0, 0, 0, 0, 0)),
    )
}

// A helper id no kernel has.
#[sec("socket")]
#[failure]
#[msg("invalid func unknown#99999")]
pub fn unknown_helper() {
    bpf_asm!(
        "call 99999;"
        "r0 = 0;"
        "exit;"
    )
}

// exit with r0 never written.
#[sec("socket")]
#[kernel("7.3")]
#[failure]
#[msg("R0 !read_ok")]
#[msg("Verification failed: Register Type Safety: Unreadable register")]
pub fn exit_without_r0() {
    bpf_asm!(
        "r1 = 0;"
        "exit;"
    )
}

// gotol: the 32-bit-offset jump (cpu v4) over a block.
#[sec("socket")]
#[success]
#[retval(1)]
#[xlated("2: if r1 == 0x0 goto pc+1")]
#[xlated("3: gotol pc+1")]
#[xlated("4: r0 = 2")]
pub fn gotol_forward() {
    bpf_asm!(
        "r0 = 1;"
        "r1 = *(u32 *)(r1 + 0);"
        "if r1 == 0 goto 1f;"
        "gotol 2f;"
    "1:"
        "r0 = 2;"
    "2:"
        "exit;"
    )
}
