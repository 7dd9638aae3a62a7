//! The arm64 instruction corpus: the A64 forms `arch/arm64/net/bpf_jit_comp.c`
//! emits through `arch/arm64/lib/insn.c` (learned from reading them), each
//! with register, size, shift and immediate variants, and the aliases LLVM
//! prints for them. Only the words come from here; the text is
//! llvm-objdump-19's (`--mattr=+all`).

/// A register spread: low, argument, callee-saved, frame, link and 31.
const REGS: [u32; 12] = [0, 1, 7, 8, 9, 10, 19, 25, 26, 29, 30, 31];

fn rd_rn_rm(base: u32, rd: u32, rn: u32, rm: u32) -> u32 {
    base | rm << 16 | rn << 5 | rd
}

/// Register triples: each register in each slot, against a couple of partners.
fn triples() -> Vec<(u32, u32, u32)> {
    let mut v = Vec::new();
    for (i, &a) in REGS.iter().enumerate() {
        let b = REGS[(i + 3) % REGS.len()];
        let c = REGS[(i + 7) % REGS.len()];
        v.push((a, b, c));
        v.push((b, a, c));
        v.push((c, b, a));
        v.push((a, a, a));
    }
    v
}

/// Valid logical-immediate fields (N, immr, imms) for a register width.
fn bitmasks(width: u32) -> Vec<(u32, u32, u32)> {
    let mut v = Vec::new();
    for (e, prefix) in [(2u32, 0x3cu32), (4, 0x38), (8, 0x30), (16, 0x20), (32, 0), (64, 0)] {
        if e > width {
            continue;
        }
        let n = (e == 64) as u32;
        for ones in [1, e / 2, e - 1] {
            if ones == 0 || ones >= e {
                continue;
            }
            for r in [0, 1, e / 2, e - 1] {
                v.push((n, r, prefix | (ones - 1)));
            }
        }
    }
    v
}

pub fn corpus() -> Vec<Vec<u8>> {
    let mut w: Vec<u32> = Vec::new();
    let t = triples();

    for sf in [0u32, 1] {
        let sfb = sf << 31;
        // ADD/SUB/ADDS/SUBS (immediate), incl. mov-to/from-sp, cmp, cmn.
        for op in [0x1100_0000u32, 0x3100_0000, 0x5100_0000, 0x7100_0000] {
            for &(d, n, _) in &t {
                for (sh, imm) in [(0u32, 0u32), (0, 1), (0, 0x10), (0, 0x7ff), (0, 0xfff), (1, 0x800), (1, 1), (1, 0)] {
                    w.push(sfb | op | sh << 22 | imm << 10 | n << 5 | d);
                }
            }
        }
        // ADD/SUB/ADDS/SUBS (shifted register), incl. neg, negs, cmp, cmn.
        for op in [0x0b00_0000u32, 0x2b00_0000, 0x4b00_0000, 0x6b00_0000] {
            for &(d, n, m) in &t {
                w.push(sfb | rd_rn_rm(op, d, n, m));
                for (shift, amt) in [(0u32, 3u32), (1, 1), (2, 31)] {
                    w.push(sfb | rd_rn_rm(op, d, n, m) | shift << 22 | amt << 10);
                }
            }
        }
        // ADD/SUB (extended register): the JIT's `add xd, xn, wm, uxtw`.
        for op in [0x0b20_0000u32, 0x2b20_0000, 0x4b20_0000, 0x6b20_0000] {
            for &(d, n, m) in t.iter().step_by(3) {
                for (opt, amt) in [(2u32, 0u32), (3, 0), (0, 0), (6, 2), (3, 3), (7, 1)] {
                    w.push(sfb | rd_rn_rm(op, d, n, m) | opt << 13 | amt << 10);
                }
            }
        }
        // Logical (shifted register): and/orr/eor/ands, bic/orn/eon/bics; mov, mvn, tst.
        for op in [0x0a00_0000u32, 0x2a00_0000, 0x4a00_0000, 0x6a00_0000] {
            for neg in [0u32, 1 << 21] {
                for &(d, n, m) in &t {
                    w.push(sfb | rd_rn_rm(op | neg, d, n, m));
                    w.push(sfb | rd_rn_rm(op | neg, d, n, m) | 1 << 22 | 4 << 10);
                    w.push(sfb | rd_rn_rm(op | neg, d, n, m) | 3 << 22 | 31 << 10);
                }
            }
        }
        // Logical (immediate): and/orr/eor/ands with every bitmask shape; mov, tst.
        for op in [0x1200_0000u32, 0x3200_0000, 0x5200_0000, 0x7200_0000] {
            for (k, (n, r, s)) in bitmasks(if sf == 1 { 64 } else { 32 }).into_iter().enumerate() {
                let (d, rn, _) = t[k % t.len()];
                w.push(sfb | op | n << 22 | r << 16 | s << 10 | rn << 5 | d);
                w.push(sfb | op | n << 22 | r << 16 | s << 10 | 31 << 5 | d);
            }
        }
        // Move wide: movn/movz/movk at every shift, values that do and do not
        // make LLVM print the `mov` alias.
        for op in [0x1280_0000u32, 0x5280_0000, 0x7280_0000] {
            for hw in 0..(2 + 2 * sf) {
                for imm in [0u32, 1, 0x16, 0x7fff, 0x8000, 0xfffe, 0xffff, 0x1234] {
                    for d in [0u32, 9, 31] {
                        w.push(sfb | op | hw << 21 | imm << 5 | d);
                    }
                }
            }
        }
        // Bitfield: sbfm/bfm/ubfm as lsl/lsr/asr, [su]xt[bhw], [su]bfx, [su]bfiz, bfi/bfxil.
        let n = sf << 22;
        let top = 31 + 32 * sf;
        for op in [0x1300_0000u32, 0x3300_0000, 0x5300_0000] {
            for &(d, rn, _) in t.iter().step_by(2) {
                let mut fields =
                    vec![(0, 7), (0, 15), (0, top), (1, top), (top, top), (0, 0), (4, 3), (top, top - 1), (8, 15), (4, 20), (20, 4), (1, 0), (top, 0)];
                if sf == 1 {
                    fields.extend([(0, 31), (32, 31), (32, 63), (61, 60), (3, 63)]);
                }
                for (r, s) in fields {
                    w.push(sfb | op | n | r << 16 | s << 10 | rn << 5 | d);
                }
            }
        }
        // Data processing, 2 sources: udiv, sdiv, lslv, lsrv, asrv, rorv.
        for opc in [2u32, 3, 8, 9, 10, 11] {
            for &(d, rn, m) in &t {
                w.push(sfb | rd_rn_rm(0x1ac0_0000 | opc << 10, d, rn, m));
            }
        }
        // Data processing, 1 source: rbit, rev16, rev32/rev, rev, clz.
        for opc in [0u32, 1, 2, 3, 4] {
            if opc == 3 && sf == 0 {
                continue;
            }
            for &(d, rn, _) in &t {
                w.push(sfb | 0x5ac0_0000 | opc << 10 | rn << 5 | d);
            }
        }
        // Data processing, 3 sources: madd/msub (mul, mneg).
        for o0 in [0u32, 1 << 15] {
            for &(d, rn, m) in &t {
                for a in [31u32, d, 10] {
                    w.push(sfb | rd_rn_rm(0x1b00_0000 | o0, d, rn, m) | a << 10);
                }
            }
        }
        // Conditional select (cset/csetm/cinc/cneg/csel), for completeness.
        for op in [0x1a80_0000u32, 0x1a80_0400, 0x5a80_0000, 0x5a80_0400] {
            for cond in [0u32, 1, 3, 8, 11, 14] {
                for &(d, rn, m) in t.iter().step_by(5) {
                    w.push(sfb | rd_rn_rm(op, d, rn, m) | cond << 12);
                    w.push(sfb | rd_rn_rm(op, d, 31, 31) | cond << 12);
                    w.push(sfb | rd_rn_rm(op, d, rn, rn) | cond << 12);
                }
            }
        }
        // Compare and branch, test and branch.
        for op in [0x3400_0000u32, 0x3500_0000] {
            for imm in [0u32, 1, 2, 0x3ffff, 0x7ffff, 0x40000] {
                for rt in [0u32, 8, 31] {
                    w.push(sfb | op | imm << 5 | rt);
                }
            }
        }
    }
    for op in [0x3600_0000u32, 0x3700_0000] {
        for (b5, b40) in [(0u32, 0u32), (0, 31), (1, 0), (1, 31)] {
            for imm in [0u32, 3, 0x1fff, 0x2000] {
                w.push(b5 << 31 | op | b40 << 19 | imm << 5 | 8);
            }
        }
    }
    // Unconditional and conditional branches, both directions.
    for imm in [0u32, 1, 2, 0x1ff_ffff, 0x200_0000, 0x3ff_ffff, 0x1234] {
        w.push(0x1400_0000 | imm);
        w.push(0x9400_0000 | imm);
    }
    for cond in 0..16u32 {
        for imm in [0u32, 1, 0x7ffff, 0x40000, 0x3ffff] {
            w.push(0x5400_0000 | imm << 5 | cond);
        }
    }
    // Register branches.
    for r in REGS {
        w.push(0xd61f_0000 | r << 5);
        w.push(0xd63f_0000 | r << 5);
        w.push(0xd65f_0000 | r << 5);
    }

    // Loads and stores, unsigned scaled offset: every size and signedness.
    for base in [
        0x3900_0000u32,
        0x3940_0000,
        0x3980_0000,
        0x39c0_0000,
        0x7900_0000,
        0x7940_0000,
        0x7980_0000,
        0x79c0_0000,
        0xb900_0000,
        0xb940_0000,
        0xb980_0000,
        0xf900_0000,
        0xf940_0000,
    ] {
        for &(rt, rn, _) in &t {
            for imm in [0u32, 1, 2, 0x7ff, 0xfff] {
                w.push(base | imm << 10 | rn << 5 | rt);
            }
        }
        // Register offset (the JIT's `ldr xt, [xn, xm]`), with extends and shifts.
        let reg = ((base & 0xff00_0000) - 0x0100_0000) | (base & 0x00c0_0000) | 0x0020_0800;
        for &(rt, rn, m) in &t {
            for (opt, s) in [(3u32, 0u32), (3, 1), (2, 0), (6, 1), (7, 0)] {
                w.push(reg | m << 16 | opt << 13 | s << 12 | rn << 5 | rt);
            }
        }
        // Unscaled (ldur/stur), post-index and pre-index.
        let unscaled = ((base & 0xff00_0000) - 0x0100_0000) | (base & 0x00c0_0000);
        for &(rt, rn, _) in t.iter().step_by(3) {
            for imm in [0u32, 1, 0xff, 0x100, 0x1f8, 0x1f0] {
                for idx in [0u32, 1, 3] {
                    w.push(unscaled | imm << 12 | idx << 10 | rn << 5 | rt);
                }
            }
        }
    }
    // Load/store pair, 32 and 64 bit, offset/pre/post.
    for opc in [0x2800_0000u32, 0xa800_0000, 0x6800_0000] {
        for mode in [1u32, 2, 3] {
            for l in [0u32, 1 << 22] {
                if opc == 0x6800_0000 && l == 0 {
                    continue; // ldpsw only
                }
                for &(a, b, n) in t.iter().step_by(2) {
                    for imm in [0u32, 0x7e, 0x40, 0x7f, 2, 1] {
                        w.push(opc | mode << 23 | l | imm << 15 | b << 10 | n << 5 | a);
                    }
                }
            }
        }
    }
    // Literal loads: ldr w/x, ldrsw, prfm.
    for op in [0x1800_0000u32, 0x5800_0000, 0x9800_0000, 0xd800_0000] {
        for imm in [0u32, 1, 2, 0x7ffff, 0x40000] {
            w.push(op | imm << 5 | 10);
        }
    }
    // Exclusives and acquire/release, all sizes.
    for size in 0..4u32 {
        for &(rt, rn, rs) in t.iter().step_by(4) {
            let sz = size << 30;
            w.push(sz | 0x085f_7c00 | rn << 5 | rt); // ldxr
            w.push(sz | 0x085f_fc00 | rn << 5 | rt); // ldaxr
            w.push(sz | 0x0800_7c00 | rs << 16 | rn << 5 | rt); // stxr
            w.push(sz | 0x0800_fc00 | rs << 16 | rn << 5 | rt); // stlxr
            w.push(sz | 0x08df_fc00 | rn << 5 | rt); // ldar
            w.push(sz | 0x089f_fc00 | rn << 5 | rt); // stlr
            // LSE: ldadd/ldclr/ldeor/ldset/swp with every A/R, and st* aliases.
            for opc in [0u32, 1 << 12, 2 << 12, 3 << 12, 1 << 15] {
                for ar in [0u32, 1 << 22, 2 << 22, 3 << 22] {
                    w.push(sz | 0x3820_0000 | ar | opc | rs << 16 | rn << 5 | rt);
                    w.push(sz | 0x3820_0000 | ar | opc | rs << 16 | rn << 5 | 31);
                }
            }
            // cas, casa, casl, casal.
            for lo in [0u32, 1 << 15, 1 << 22, 1 << 22 | 1 << 15] {
                w.push(sz | 0x08a0_7c00 | lo | rs << 16 | rn << 5 | rt);
            }
        }
    }
    // System: hints (nop, pac, bti, ...), barriers, sysregs the JIT reads, brk, udf.
    for crm_op2 in 0..64u32 {
        w.push(0xd503_201f | crm_op2 << 5);
    }
    for crm in 0..16u32 {
        w.push(0xd503_309f | crm << 8); // dsb
        w.push(0xd503_30bf | crm << 8); // dmb
        w.push(0xd503_30df | crm << 8); // isb
    }
    w.push(0xd503_30ff); // sb
    for (sysreg, rt) in [(0xd538_d080u32, 10u32), (0xd53c_d040, 10), (0xd538_4100, 10), (0xd53b_d040, 1), (0xd53b_4200, 0)] {
        w.push(sysreg | rt);
    }
    for imm in [0u32, 0x100, 0x800, 0xffff] {
        w.push(0xd420_0000 | imm << 5);
        w.push(imm);
    }
    // adr (the trampoline's `adr x30, #8`).
    for (lo, hi) in [(0u32, 2u32), (0, 0), (3, 0x7ffff), (1, 0x40000)] {
        w.push(0x1000_0000 | lo << 29 | hi << 5 | 30);
    }
    // adrp (a symbolizer comment in the C API) and encodings LLVM decodes as
    // SoftFail, which the C API refuses: pairs loading one register twice or
    // writing back to a transfer register, ldxp/ldaxp into one register,
    // unprivileged loads (ldtr) writing back.
    for (lo, hi) in [(0u32, 0u32), (1, 0), (0, 4), (3, 0x7ffff)] {
        w.push(0x9000_0000 | lo << 29 | hi << 5 | 3);
    }
    for (rt, rt2, rn) in [(1u32, 1u32, 3u32), (1, 2, 1), (1, 2, 2), (31, 31, 31), (1, 2, 31)] {
        for base in [0xa8c0_0000u32, 0xa940_0000, 0xa9c0_0000, 0xa980_0000, 0x2940_0000, 0x6940_0000, 0xa840_0000, 0xad40_0000] {
            w.push(base | 2 << 15 | rt2 << 10 | rn << 5 | rt);
        }
        for base in [0x887f_0000u32, 0xc87f_8000, 0x887f_8000] {
            w.push(base | rt2 << 10 | rn << 5 | rt);
        }
    }
    for base in [0xf840_0800u32, 0x3840_0800, 0xb880_0800, 0x38c0_0800] {
        w.push(base | 1 << 5 | 1);
    }
    w.into_iter().map(|x| x.to_le_bytes().to_vec()).collect()
}
