//! The x86-64 trampoline against the images 7.3 built: every golden of
//! `expected/linux-7.3/x86_64/trampolines` (recorded by `record --set
//! trampolines`) is rebuilt by the model from the golden's function model,
//! programs and kernel addresses, at the golden's own image address, and
//! compared byte for byte, and the traced function's patched fentry site
//! must call (or, as the model's flags say, jump to) it. The heap pointers the image embeds (`struct
//! bpf_prog *`, `struct bpf_tramp_image *`) have no symbol: the model puts
//! stand-ins there and says where; those bytes must hold, in 7.3's image,
//! one kernel pointer per object, the same wherever it recurs.

use std::collections::HashMap;
use std::path::PathBuf;

use bpf_selftest::jit::trampoline::{HeapPtr, ProgEnter, TrampFlags, TrampNode, TrampNodes};
use bpf_selftest::jit::x86_64::X86Profile;
use bpf_selftest::jit::x86_64::trampoline::{DYNAMIC_FTRACE_WITH_JMP, arch_prepare_bpf_trampoline, is_endbr};
use bpf_selftest::recorded::trampolines::{TrampGolden, parse};
use bpf_selftest::target::Arch;

/// Images that must stay byte-exact; raise it with the goldens.
const AT_LEAST_EXACT: usize = 23;

fn goldens() -> Vec<TrampGolden> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("expected/linux-7.3/x86_64/trampolines");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).expect("trampoline goldens").filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    files.iter().map(|f| parse(&std::fs::read_to_string(f).expect("golden")).unwrap_or_else(|e| panic!("{}: {e}", f.display()))).collect()
}

/// What the model is given for a golden: the function, its programs (with
/// stand-in `struct bpf_prog *`s), the flags `bpf_trampoline_update`
/// chooses and the addresses kallsyms named.
fn build(g: &TrampGolden) -> Result<(bpf_selftest::jit::trampoline::TrampImage, TrampFlags), String> {
    let m = g.func_model()?;
    let sym = |role: &str| g.sym(role).ok_or_else(|| format!("{}: no sym {role}", g.case));
    let mut nodes = TrampNodes::default();
    // the last attached runs first
    for (i, p) in g.progs.iter().enumerate().rev() {
        let node = TrampNode {
            bpf_func: sym(&format!("prog{i}"))?,
            prog: 0xffff_8880_1000_0000 + 0x1000 * i as u64,
            cookie: p.cookie,
            enter: if p.sleepable { ProgEnter::SleepableRecur } else { ProgEnter::Recur },
        };
        nodes.push(p.kind, node);
    }
    let ip_arg = g.progs.iter().any(|p| p.func_ip);
    let flags = TrampFlags::bpf_trampoline_update(&nodes, ip_arg, false, false, DYNAMIC_FTRACE_WITH_JMP);
    let addrs = g.tramp_addrs(0xffff_8880_2000_0000, is_endbr(&g.func_head))?;
    let img = arch_prepare_bpf_trampoline(&X86Profile::default(), g.run_ctx(), &m, flags, &nodes, &addrs).map_err(|e| format!("{}: {e}", g.case))?;
    Ok((img, flags))
}

/// The patched fentry site of the traced function (`bpf_arch_text_poke`):
/// after its `endbr64`, a `call` of the image, or a `jmp` when the flags
/// the model chose say the trampoline is jumped to (`bpf_trampoline_use_jmp`).
fn fentry_site_differs(g: &TrampGolden, use_jmp: bool) -> Option<String> {
    let at = if is_endbr(&g.func_head) { 4 } else { 0 };
    let op = if use_jmp { 0xe9 } else { 0xe8 };
    let site = g.func_head.get(at..at + 5)?;
    let func = g.sym("func")? + at as u64;
    let target = func.wrapping_add(5).wrapping_add(i32::from_le_bytes([site[1], site[2], site[3], site[4]]) as i64 as u64);
    if site[0] != op || Some(target) != g.sym("image") {
        return Some(format!("{}: the function's fentry site is {site:02x?}, not a {op:#x} to the image", g.case));
    }
    None
}

/// Why the model's image is not 7.3's, or None when it is (heap pointers
/// aside, checked for consistency).
fn difference(g: &TrampGolden) -> Option<String> {
    let (img, flags) = match build(g) {
        Ok(i) => i,
        Err(e) => return Some(e),
    };
    if let Some(d) = fentry_site_differs(g, flags.use_jmp()) {
        return Some(d);
    }
    let mut want = g.image.clone();
    let mut got = img.code.clone();
    let mut seen: HashMap<HeapPtr, Vec<u8>> = HashMap::new();
    for r in &img.heap_refs {
        let Some(value) = want.get(r.off..r.off + r.len) else {
            return Some(format!("heap pointer {:?} at +{:#x} past 7.3's image", r.ptr, r.off));
        };
        if *seen.entry(r.ptr).or_insert_with(|| value.to_vec()) != value {
            return Some(format!("7.3's image holds different {:?} pointers (at +{:#x})", r.ptr, r.off));
        }
        if r.len == 8 && value[7] != 0xff {
            return Some(format!("7.3's image holds no kernel pointer at +{:#x} ({:?})", r.off, r.ptr));
        }
        want[r.off..r.off + r.len].fill(0);
        got[r.off..r.off + r.len].fill(0);
    }
    let mut values: Vec<&Vec<u8>> = seen.values().collect();
    values.sort();
    values.dedup();
    if values.len() != seen.len() {
        return Some("two heap objects share a pointer in 7.3's image".into());
    }
    if want == got {
        return None;
    }
    let k = want.iter().zip(&got).position(|(a, b)| a != b).unwrap_or(want.len().min(got.len()));
    let text = |b: &[u8]| bpf_selftest::jit_disasm::test_loader_text(Arch::X86_64, &[b.to_vec()]);
    let line_at = |lines: Vec<String>| {
        lines
            .into_iter()
            .rev()
            .find(|l| l.split(':').next().and_then(|pc| usize::from_str_radix(pc.trim(), 16).ok()).is_some_and(|pc| pc <= k))
            .unwrap_or_default()
    };
    Some(format!(
        "{}: first difference at +{k:#x} ({} bytes 7.3, {} model)\n    7.3:   {}\n    model: {}",
        g.case,
        want.len(),
        got.len(),
        line_at(text(&g.image)),
        line_at(text(&img.code))
    ))
}

#[test]
fn x86_64_trampolines_match_the_7_3_goldens() {
    let all = goldens();
    let diffs: Vec<String> = all.iter().filter_map(difference).collect();
    let exact = all.len() - diffs.len();
    eprintln!("x86_64 trampolines: {exact} of {} images byte-identical with 7.3's", all.len());
    for d in &diffs {
        eprintln!("{d}");
    }
    assert!(exact >= AT_LEAST_EXACT, "{exact} exact trampolines, at least {AT_LEAST_EXACT} expected:\n{}", diffs.join("\n"));
}
