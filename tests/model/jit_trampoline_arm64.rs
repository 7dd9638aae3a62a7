//! The arm64 trampoline (`bpf_selftest::jit::arm64::trampoline`) against
//! the images 7.3 built (`expected/linux-7.3/arm64/trampolines/`, `record
//! --set trampolines`): each case's `btf_func_model`, programs, cookies and kernel
//! addresses given to the model's `arch_prepare_bpf_trampoline`, and its
//! code compared with the recorded bytes, all of them.
//!
//! The recording names every address but two kinds of heap pointers (the
//! `struct bpf_prog *` each program's call loads into x19, the `struct
//! bpf_tramp_image *` loaded into x0 for `__bpf_tramp_enter`/`_exit`):
//! those are read back from the recorded image's move-wide sequences and
//! given to the model as they are, so that the comparison is of every
//! byte.

use std::path::PathBuf;

use bpf_selftest::jit::arm64::Arm64Profile;
use bpf_selftest::jit::arm64::trampoline::arch_prepare_bpf_trampoline;
use bpf_selftest::jit::trampoline::{BtfFuncModel, HeapPtr, ProgEnter, TrampAddrs, TrampFlags, TrampNode, TrampNodes};
use bpf_selftest::recorded::trampolines::{self, TrampGolden};
use bpf_selftest::target::Arch;
use bpf_selftest_suite as _;

/// Recorded images the model builds byte for byte (of 23).
const AT_LEAST_IDENTICAL: usize = 23;

/// The values `movz`/`movn` + `movk` sequences leave in their register,
/// in image order: `(register, value)`.
fn mov_wide_loads(words: &[u32]) -> Vec<(u8, u64)> {
    let field = |w: u32| ((w >> 5) & 0xffff) as u64;
    let shift = |w: u32| 16 * ((w >> 21) & 3);
    let mut out = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let w = words[k];
        // 64-bit movn (0x92800000) or movz (0xd2800000)
        let value = match w & 0xff80_0000 {
            0x9280_0000 => !(field(w) << shift(w)),
            0xd280_0000 => field(w) << shift(w),
            _ => {
                k += 1;
                continue;
            }
        };
        let reg = (w & 31) as u8;
        let mut v = value;
        k += 1;
        // movk of the same register
        while let Some(&m) = words.get(k).filter(|&&m| m & 0xff80_0000 == 0xf280_0000 && (m & 31) as u8 == reg) {
            v = (v & !(0xffff << shift(m))) | field(m) << shift(m);
            k += 1;
        }
        out.push((reg, v));
    }
    out
}

/// What the model is given for the golden's case: the function model,
/// the programs in run order (`tr->progs_hlist[kind]`: each attach adds
/// at the head), the flags `bpf_trampoline_update` chooses on arm64 (no
/// `CONFIG_DYNAMIC_FTRACE_WITH_JMP`) and the recorded addresses, the heap
/// pointers read back from the recorded image.
fn case(g: &TrampGolden) -> Result<(BtfFuncModel, TrampFlags, TrampNodes, TrampAddrs), String> {
    let m = g.func_model()?;
    let sym = |role: &str| g.sym(role).ok_or_else(|| format!("no address of {role}"));
    let words: Vec<u32> = g.image.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap_or_default())).collect();
    let loads = mov_wide_loads(&words);
    let mut nodes = TrampNodes::default();
    for (i, p) in g.progs.iter().enumerate().rev() {
        let enter = if p.sleepable { ProgEnter::SleepableRecur } else { ProgEnter::Recur };
        nodes.push(p.kind, TrampNode { bpf_func: sym(&format!("prog{i}"))?, cookie: p.cookie, enter, ..TrampNode::default() });
    }
    // the struct bpf_prog * each call loads into x19, in image order
    let mut progs = loads.iter().filter(|(r, _)| *r == 19).map(|l| l.1);
    for node in nodes.fentry.iter_mut().chain(&mut nodes.fmod_ret).chain(&mut nodes.fexit) {
        node.prog = progs.next().ok_or("fewer struct bpf_prog loads than programs")?;
    }
    // bpf_get_func_ip callers (prog->call_get_func_ip)
    let ip_arg = g.progs.iter().any(|p| p.func_ip);
    let flags = TrampFlags::bpf_trampoline_update(&nodes, ip_arg, false, false, false);
    // the struct bpf_tramp_image * loaded into x0
    let im = loads.iter().find(|(r, _)| *r == 0).map_or(0, |l| l.1);
    let addrs = g.tramp_addrs(im, false)?;
    Ok((m, flags, nodes, addrs))
}

#[test]
fn arm64_trampolines_match_7_3() {
    let dir = trampolines::dir(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected"), Arch::Arm64);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let (mut compared, mut identical) = (0, 0);
    let mut report = Vec::new();
    for path in &paths {
        let g = trampolines::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let (m, flags, nodes, addrs) = case(&g).unwrap_or_else(|e| panic!("{}: {e}", g.case));
        let img = arch_prepare_bpf_trampoline(&Arm64Profile::default(), g.run_ctx(), &m, flags, &nodes, &addrs).unwrap_or_else(|e| panic!("{}: {e}", g.case));
        compared += 1;
        let code = &img.code[..];
        if code == &g.image[..] {
            identical += 1;
        } else {
            let first = code.chunks(4).zip(g.image.chunks(4)).position(|(a, b)| a != b).unwrap_or(code.len().min(g.image.len()) / 4);
            report.push(format!("{}: {} bytes, 7.3 {}; first difference at {:#x}", g.case, code.len(), g.image.len(), 4 * first));
        }
        // where the model says heap pointers are, 7.3's image loads them
        for r in &img.heap_refs {
            let words: Vec<u32> = g.image.get(r.off..r.off + r.len).unwrap_or_default().chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
            let want = match r.ptr {
                HeapPtr::Im => addrs.im,
                HeapPtr::Prog(kind, i) => nodes.kind(kind)[i].prog,
            };
            assert_eq!(mov_wide_loads(&words).iter().map(|l| l.1).collect::<Vec<_>>(), [want], "{}: {r:?}", g.case);
        }
        // the traced function's patched entry: `mov x9, x30; bl <image>`
        let head: Vec<u32> = g.func_head.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect();
        let bl = ((head[1] & 0x03ff_ffff) << 6) as i32 >> 4;
        assert_eq!((head[0], head[1] >> 26), (0xaa1e_03e9, 0b100101), "{}", g.case);
        assert_eq!(addrs.func.wrapping_add(4).wrapping_add(bl as i64 as u64), addrs.image, "{}", g.case);
    }
    eprintln!("arm64 trampolines: {identical} of {compared} identical to 7.3 byte for byte");
    for r in &report {
        eprintln!("  {r}");
    }
    assert!(compared >= AT_LEAST_IDENTICAL && identical >= AT_LEAST_IDENTICAL, "{identical} of {compared} identical");
    assert!(report.is_empty());
}
