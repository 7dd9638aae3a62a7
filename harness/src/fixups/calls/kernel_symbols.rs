//! What `BPF_CALL_IMM(fn)` and `BPF_EMIT_CALL(fn)` put in a call's imm on
//! the 7.3.4+deb13 images: the function's address minus `__bpf_call_base`,
//! which only depends on the image's layout (KASLR moves both). Also which
//! function a helper's prototype and a map type's ops point to.
//!
//! The facts live in `bpf_call_imms.txt`, generated once from the 7.3
//! sources (`struct bpf_func_proto` `.func`, `struct bpf_map_ops`,
//! `bpf_types.h`) and the images' `kallsyms` (shipped by the oracle kit
//! next to each image). `tests/fixups_calls.rs` re-derives every address
//! from the kallsyms whenever the kit's cache is present.
//!
//! A helper with several prototypes whose functions differ (per program
//! type, attach type or sleepability: `bpf_get_stack`, `bpf_redirect`,
//! `bpf_perf_event_output`, ...) has no `helper` line: the model says it
//! does not know which one 7.3 picks rather than guess.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::target::Arch;

const DATA: &str = include_str!("bpf_call_imms.txt");

#[derive(Default)]
struct Table {
    /// BPF_FUNC_ name (without `bpf_`) -> the function of its only prototype.
    helper: HashMap<&'static str, &'static str>,
    /// (map type, op field) -> the function.
    ops: HashMap<(u32, &'static str), &'static str>,
    /// function -> imm on (x86_64, arm64).
    imm: HashMap<&'static str, [Option<i32>; 2]>,
    /// kernel variable -> address on (x86_64, arm64).
    addr: HashMap<&'static str, [Option<u64>; 2]>,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| parse(DATA))
}

fn num(s: &str) -> Option<i64> {
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let v = i64::try_from(u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()?).ok()?;
    Some(if neg { -v } else { v })
}

fn parse(text: &'static str) -> Table {
    let mut t = Table::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&'static str> = line.split_whitespace().collect();
        match f.as_slice() {
            ["helper", name, func] => {
                t.helper.insert(name, func);
            }
            ["ops", ty, _, op, func] => {
                if let Ok(ty) = ty.parse() {
                    t.ops.insert((ty, op), func);
                }
            }
            ["imm", sym, x, a] => {
                let v = |s: &str| num(s).and_then(|v| i32::try_from(v).ok());
                t.imm.insert(sym, [v(x), v(a)]);
            }
            ["addr", sym, x, a] => {
                let v = |s: &str| num(s).map(|v| v as u64).or_else(|| u64::from_str_radix(s.strip_prefix("0x")?, 16).ok());
                t.addr.insert(sym, [v(x), v(a)]);
            }
            _ => {}
        }
    }
    t
}

fn arch_slot(arch: Arch) -> Option<usize> {
    match arch {
        Arch::X86_64 => Some(0),
        Arch::Arm64 => Some(1),
        _ => None,
    }
}

/// `BPF_CALL_IMM(func)` on the 7.3.4 image of `arch`.
pub fn call_imm(arch: Arch, func: &str) -> Option<i32> {
    table().imm.get(func)?[arch_slot(arch)?]
}

/// The address of kernel variable `var` (`jiffies`, `cpu_number`, ...).
pub fn kernel_var_addr(arch: Arch, var: &str) -> Option<u64> {
    table().addr.get(var)?[arch_slot(arch)?]
}

/// The function of helper `bpf_<name>`'s prototype, when all of its
/// prototypes share one.
pub fn helper_func(name: &str) -> Option<&'static str> {
    table().helper.get(name).copied()
}

/// `map->ops-><op>` of a map type (`op` is the `struct bpf_map_ops` field).
pub fn map_ops_func(map_type: u32, op: &str) -> Option<&'static str> {
    table().ops.get(&(map_type, op)).copied()
}

/// Every (function, [x86_64, arm64] imm) of the table, for the check
/// against kallsyms.
pub fn all_call_imms() -> Vec<(&'static str, [Option<i32>; 2])> {
    let mut v: Vec<_> = table().imm.iter().map(|(k, v)| (*k, *v)).collect();
    v.sort();
    v
}

/// Every (variable, [x86_64, arm64] address) of the table.
pub fn all_var_addrs() -> Vec<(&'static str, [Option<u64>; 2])> {
    let mut v: Vec<_> = table().addr.iter().map(|(k, v)| (*k, *v)).collect();
    v.sort();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_knows_the_common_functions() {
        assert_eq!(helper_func("get_prandom_u32"), Some("bpf_user_rnd_u32"));
        assert_eq!(helper_func("get_stack"), None, "several prototypes");
        assert_eq!(map_ops_func(2, "map_update_elem"), Some("array_map_update_elem"));
        assert_eq!(call_imm(Arch::X86_64, "array_map_update_elem"), Some(0x6c8e0));
        assert!(call_imm(Arch::Riscv64, "array_map_update_elem").is_none());
        assert_eq!(kernel_var_addr(Arch::X86_64, "cpu_number"), Some(0xffff_ffff_83f4_d038));
        assert!(all_call_imms().len() > 400);
    }
}
