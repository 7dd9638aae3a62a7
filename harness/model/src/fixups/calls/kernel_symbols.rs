//! What `BPF_CALL_IMM(fn)` and `BPF_EMIT_CALL(fn)` put in a call's imm on
//! the 7.3.4+deb13 images: the function's address minus `__bpf_call_base`,
//! which only depends on the image's layout (KASLR moves both). Also which
//! function a helper's prototype and a map type's ops point to.
//!
//! The facts live in `bpf_call_imms.txt`, generated once from the 7.3
//! sources (`struct bpf_func_proto` `.func`, `struct bpf_map_ops`,
//! `bpf_types.h`) and the images' `kallsyms`, and checked against the
//! kallsyms of a booted 7.3 guest. The imms of every kfunc of the images
//! (the `bpf_kfunc`-tagged functions of their BTF) are kept up to date by
//! `bpf-selftest record --set kfunc-imms` (`scripts/record-kfunc-imms.py`).
//!
//! A helper with several prototypes whose functions differ (per program
//! type, attach type or sleepability: `bpf_get_stack`, `bpf_redirect`,
//! `bpf_perf_event_output`, ...) has no `helper` line: its function is the
//! `.func` of the prototype the verifier picked
//! ([`crate::verifier::helper_protos::FuncProto::func`]) where that names
//! one, else the `proto` lines' walk ([`proto_pick`]); where neither
//! does, the model says it does not know which one 7.3 picks rather than
//! guess. The `imm` lines are checked and added by
//! `scripts/record-call-imms.py`.

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
    /// (`*_func_proto` function, helper) -> the function of the prototype
    /// it returns (`None`: chosen by a condition), for helpers with several.
    proto: HashMap<(&'static str, &'static str), Option<&'static str>>,
    /// `*_func_proto` function -> the ones it falls back to, in order.
    chain: HashMap<&'static str, Vec<&'static str>>,
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
            ["proto", f, helper, func] => {
                t.proto.insert((f, helper), (*func != "-").then_some(*func));
            }
            ["chain", f, rest @ ..] => {
                t.chain.insert(f, rest.to_vec());
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

/// What the `*_func_proto` functions of a program type give a helper with
/// several prototypes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProtoPick {
    /// The prototype's function.
    Func(&'static str),
    /// This `*_func_proto` function picks the prototype by a condition
    /// (sleepable, attach type, ...) the table does not hold.
    Conditional(&'static str),
    /// None of them names the helper in a plain `case`.
    NotListed,
}

/// `get_func_proto` of program type `prog_type` for helper `bpf_<name>`,
/// walked through the `*_func_proto` functions it falls back to.
pub fn proto_pick(prog_type: u32, name: &str) -> ProtoPick {
    fn walk(t: &Table, f: &'static str, name: &str, depth: usize) -> ProtoPick {
        if let Some(p) = t.proto.get(&(f, name)) {
            return p.map_or(ProtoPick::Conditional(f), ProtoPick::Func);
        }
        if depth > 8 {
            return ProtoPick::NotListed;
        }
        for &next in t.chain.get(f).map(Vec::as_slice).unwrap_or(&[]) {
            let p = walk(t, next, name, depth + 1);
            if p != ProtoPick::NotListed {
                return p;
            }
        }
        ProtoPick::NotListed
    }
    match prog_func_proto(prog_type) {
        Some(f) => walk(table(), f, name, 0),
        None => ProtoPick::NotListed,
    }
}

/// The `*_func_proto` function `bpf_get_helper_proto` asks for a program
/// type (`prog->aux->ops->get_func_proto`).
fn prog_func_proto(prog_type: u32) -> Option<&'static str> {
    Some(match prog_type {
        1 => "sk_filter_func_proto",
        2 => "kprobe_prog_func_proto",
        3 | 4 => "tc_cls_act_func_proto",
        5 => "tp_prog_func_proto",
        6 => "xdp_func_proto",
        7 => "pe_prog_func_proto",
        8 => "cg_skb_func_proto",
        9 => "sock_filter_func_proto",
        10 => "lwt_in_func_proto",
        11 => "lwt_out_func_proto",
        12 => "lwt_xmit_func_proto",
        13 => "sock_ops_func_proto",
        14 => "sk_skb_func_proto",
        15 => "cgroup_dev_func_proto",
        16 => "sk_msg_func_proto",
        17 | 24 => "raw_tp_prog_func_proto",
        18 => "sock_addr_func_proto",
        19 => "lwt_seg6local_func_proto",
        21 => "sk_reuseport_func_proto",
        22 => "flow_dissector_func_proto",
        23 => "sysctl_func_proto",
        25 => "cg_sockopt_func_proto",
        26 => "tracing_prog_func_proto",
        29 => "bpf_lsm_func_proto",
        30 => "sk_lookup_func_proto",
        31 => "syscall_prog_func_proto",
        _ => return None,
    })
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
        assert_eq!(proto_pick(6, "redirect"), ProtoPick::Func("bpf_xdp_redirect"));
        assert_eq!(proto_pick(3, "redirect"), ProtoPick::Func("bpf_redirect"));
        assert_eq!(proto_pick(12, "redirect"), ProtoPick::Func("bpf_redirect"), "lwt_xmit");
        assert_eq!(proto_pick(10, "skb_load_bytes"), ProtoPick::Func("bpf_skb_load_bytes"), "lwt_in falls back to lwt_out");
        assert_eq!(proto_pick(8, "perf_event_output"), ProtoPick::Func("bpf_skb_event_output"), "cg_skb");
        assert_eq!(proto_pick(1, "get_smp_processor_id"), ProtoPick::Func("bpf_get_raw_cpu_id"));
        assert_eq!(proto_pick(2, "get_stack"), ProtoPick::Conditional("kprobe_prog_func_proto"));
    }
}
