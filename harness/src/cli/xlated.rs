//! `bpf-selftest xlated FILE.s`: the program's xlated dump as attributes to
//! paste above a test: for each target arch (`--arch x86_64,arm64,riscv64`),
//! an `#[arch(..)]` block of one `#[xlated("N: text")]` per insn, arches
//! with the same dump sharing a block. The load is the one a test makes:
//! the runner's default flags (`spec::TESTING_PROG_FLAGS`) unless `--flags`
//! or `--flag` say otherwise.

use bpf_isa::Insn;
use bpf_isa::op::{BPF_ADDR_PERCPU, BPF_ALU64, BPF_MOV, BPF_PSEUDO_MAP_FD, BPF_PSEUDO_MAP_VALUE, BPF_X};

use super::check::{CheckArgs, request};
use crate::backend::{self, LoadOutcome};
use crate::target::Arch;

pub fn run(a: &CheckArgs) -> Result<(), String> {
    let src = super::read_asm_input(&a.file)?;
    let arches = target_arches(a.arch.as_deref())?;
    let be = backend::by_name(&a.backend)?;
    let several = arches.len() > 1;
    let mut dumps = Vec::new();
    for arch in arches {
        let one = CheckArgs { arch: Some(arch.name().to_string()), ..a.clone() };
        let req = request(&one, &src)?;
        let out = super::check::load(&*be, &req)?;
        if !out.accepted {
            let on = if several { format!(" on {arch}") } else { String::new() };
            return Err(format!("{}{on}: rejected: {}", req.name, super::check::rejection(&req, &out)));
        }
        dumps.push((arch, xlated_lines(&out)));
    }
    print!("{}", attribute_blocks(&dumps));
    Ok(())
}

/// `--arch A[,B...]`, each once; default: the host.
fn target_arches(s: Option<&str>) -> Result<Vec<Arch>, String> {
    let Some(s) = s else {
        return Ok(vec![Arch::host().ok_or("the host arch is not one the model targets; give --arch")?]);
    };
    let mut v: Vec<Arch> = Vec::new();
    for name in s.split(',').map(str::trim) {
        let arch: Arch = name.parse()?;
        if v.contains(&arch) {
            return Err(format!("--arch: {arch} is named twice"));
        }
        v.push(arch);
    }
    Ok(v)
}

/// One `#[arch]` block per distinct dump, in the order the arches were
/// given, each arch in the block of its dump. With two or more blocks the
/// pasted lines are scoped by arch (`spec::xlated_blocks`); with one, they
/// hold on every arch it names.
pub fn attribute_blocks(dumps: &[(Arch, Vec<String>)]) -> String {
    let mut blocks: Vec<(Vec<Arch>, &Vec<String>)> = Vec::new();
    for (arch, lines) in dumps {
        match blocks.iter_mut().find(|(_, l)| *l == lines) {
            Some(b) => b.0.push(*arch),
            None => blocks.push((vec![*arch], lines)),
        }
    }
    let mut s = String::new();
    for (arches, lines) in blocks {
        let names: Vec<&str> = arches.iter().map(|a| a.name()).collect();
        s.push_str(&format!("#[arch({})]\n", names.join(", ")));
        for l in lines {
            s.push_str(&format!("#[xlated({l:?})]\n"));
        }
    }
    s
}

/// `#[arch(A)]` and the dump as `#[xlated]` lines.
pub fn attribute_block(arch: Arch, out: &LoadOutcome) -> String {
    attribute_blocks(&[(arch, xlated_lines(out))])
}

/// The dump's lines as patterns. Lines whose text differs from load to
/// load or boot to boot on a real kernel (a map's id or address, a kernel
/// address, `BPF_F_TEST_RND_HI32` poison) match anything after the `=`.
pub fn xlated_lines(out: &LoadOutcome) -> Vec<String> {
    let varying = varying_lines(&out.xlated_insns);
    out.xlated
        .iter()
        .map(|line| {
            let idx = line.split_once(": ").and_then(|(n, _)| n.parse::<usize>().ok());
            match (idx, line.split_once(" = ")) {
                (Some(i), Some((lhs, _))) if varying.contains(&i) => format!("{lhs} = {{{{.*}}}}"),
                _ => line.clone(),
            }
        })
        .collect()
}

/// Whether `i` makes a per-CPU pointer of its own register's value
/// (`BPF_MOV64_PERCPU_REG`), that value being a per-CPU variable's address.
fn percpu_of(i: Option<&Insn>, dst: u8) -> bool {
    i.is_some_and(|n| n.code == BPF_ALU64 | BPF_MOV | BPF_X && n.off == BPF_ADDR_PERCPU && n.src == dst)
}

/// Indexes of the insns whose value varies: `ld_imm64` of a map or map
/// value; a kernel address, as an `ld_imm64` (`jiffies`, a ksym) or as the
/// 32-bit address of a per-CPU variable made a pointer on the next insn
/// (x86-64's inlined `bpf_get_smp_processor_id`); the random immediate of
/// `r12 = imm; r12 <<= 32`.
pub(crate) fn varying_lines(insns: &[Insn]) -> Vec<usize> {
    let mut v = Vec::new();
    let mut k = 0;
    while k < insns.len() {
        let i = insns[k];
        let wide = i.is_ld_imm64();
        let next = insns.get(k + if wide { 2 } else { 1 });
        if wide {
            let value = insns.get(k + 1).map_or(0, |h| (h.imm as u32 as u64) << 32) | i.imm as u32 as u64;
            let kernel_address = i.src == 0 && (value >> 52 == 0xfff || percpu_of(next, i.dst));
            if matches!(i.src, BPF_PSEUDO_MAP_FD | BPF_PSEUDO_MAP_VALUE) || kernel_address {
                v.push(k);
            }
        }
        if i.code == 0xb7 && percpu_of(next, i.dst) {
            v.push(k);
        }
        let shl = insns.get(k + 1).is_some_and(|n| n.code == 0x67 && n.dst == 12 && n.imm == 32);
        if i.code == 0xb7 && i.dst == 12 && shl {
            v.push(k);
        }
        k += if wide { 2 } else { 1 };
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_masks_map_loads_and_quotes() {
        let out = LoadOutcome {
            accepted: true,
            xlated: vec!["0: r1 = 0x1".into(), "2: r0 = *(u32 *)(r1 +0)".into(), "3: exit".into()],
            xlated_insns: vec![Insn::new(0x18, 1, BPF_PSEUDO_MAP_FD, 0, 1), Insn::new(0, 0, 0, 0, 0), Insn::new(0x61, 0, 1, 0, 0), Insn::new(0x95, 0, 0, 0, 0)],
            ..LoadOutcome::default()
        };
        assert_eq!(
            attribute_block(Arch::X86_64, &out),
            "#[arch(x86_64)]\n#[xlated(\"0: r1 = {{.*}}\")]\n#[xlated(\"2: r0 = *(u32 *)(r1 +0)\")]\n#[xlated(\"3: exit\")]\n"
        );
    }

    /// 7.3's x86_64 xlated program of `call bpf_get_smp_processor_id; exit`,
    /// text and insns as recorded: the address of `cpu_number` is masked.
    #[test]
    fn per_cpu_addresses_are_masked() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../expected/linux-7.3/x86_64/jited/smp_processor_id_x86_64.txt");
        let g = crate::golden::Golden::parse(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(g.xlated[0].starts_with("0: r0 = -"), "a kernel address as the kernel prints it: {:?}", g.xlated);
        let out = LoadOutcome { accepted: true, xlated: g.xlated.clone(), xlated_insns: g.xlated_insns.clone(), ..LoadOutcome::default() };
        assert_eq!(xlated_lines(&out), ["0: r0 = {{.*}}", "1: r0 = &(void __percpu *)(r0)", "2: r0 = *(u32 *)(r0 +0)", "3: exit"]);

        // an ld_imm64 of a kernel address (`&jiffies`), and a plain constant kept
        let out = LoadOutcome {
            accepted: true,
            xlated: vec!["0: r0 = 0xffffffff82e05900".into(), "2: r1 = 7".into(), "3: exit".into()],
            xlated_insns: vec![
                Insn::new(0x18, 0, 0, 0, 0x82e05900u32 as i32),
                Insn::new(0, 0, 0, 0, -1),
                Insn::new(0xb7, 1, 0, 0, 7),
                Insn::new(0x95, 0, 0, 0, 0),
            ],
            ..LoadOutcome::default()
        };
        assert_eq!(xlated_lines(&out), ["0: r0 = {{.*}}", "2: r1 = 7", "3: exit"]);
    }

    #[test]
    fn arches_with_one_dump_share_a_block() {
        let a = vec!["0: w0 = 1".to_string(), "1: exit".to_string()];
        let b = vec!["0: w0 = 1".to_string(), "1: w0 = w0".to_string(), "2: exit".to_string()];
        let s = attribute_blocks(&[(Arch::X86_64, a.clone()), (Arch::Arm64, a), (Arch::Riscv64, b)]);
        assert_eq!(
            s,
            "#[arch(x86_64, arm64)]\n#[xlated(\"0: w0 = 1\")]\n#[xlated(\"1: exit\")]\n\
             #[arch(riscv64)]\n#[xlated(\"0: w0 = 1\")]\n#[xlated(\"1: w0 = w0\")]\n#[xlated(\"2: exit\")]\n"
        );
        assert_eq!(target_arches(Some("x86_64, arm64")), Ok(vec![Arch::X86_64, Arch::Arm64]));
        assert!(target_arches(Some("x86_64,x86_64")).unwrap_err().contains("named twice"));
    }
}
