//! `kernel/bpf/bpf_iter.c`: the iterator targets BPF programs of
//! `SEC("iter/<target>")` attach to, as their `struct bpf_iter_reg`s
//! register them (`bpf_iter_reg_target`), and `bpf_iter_prog_supported`.
//!
//! A target's registration gives its name and its `ctx_arg_info`: the
//! register type (and BTF struct) `btf_ctx_access` hands out for a field of
//! the ctx `struct bpf_iter__<target>`. Fields without an entry are typed by
//! the prototype of `bpf_iter_<target>` (`DEFINE_BPF_ITER_FUNC`) alone.
//!
//! The targets are those of `kernel/bpf/*_iter.c` and `sock_map.c`'s
//! `sockmap`. The other targets 7.3 registers from `net/` (`tcp`, `udp`,
//! `unix`, `ipv6_route`, `netlink`, `bpf_sk_storage_map`) and
//! `kernel/kallsyms.c` (`ksym`) are known by name only: their registrations
//! are not part of the source the model is written from.

use super::reg::*;

/// `BPF_ITER_FUNC_PREFIX`.
pub const BPF_ITER_FUNC_PREFIX: &str = "bpf_iter_";

/// `struct bpf_ctx_arg_aux` as a registration writes it: the ctx field (by
/// its name in `struct bpf_iter__<target>`, the `offsetof` of the
/// registration), its register type and, for a `PTR_TO_BTF_ID`, the struct
/// the init function sets `btf_id` to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BpfCtxArgAux {
    pub field: &'static str,
    pub reg_type: RegType,
    pub btf_struct: Option<&'static str>,
}

/// `struct bpf_iter_reg`: a target's name and its `ctx_arg_info`.
#[derive(Clone, Copy, Debug)]
pub struct BpfIterReg {
    pub target: &'static str,
    pub ctx_arg_info: &'static [BpfCtxArgAux],
}

const PTR_TO_BTF_ID_OR_NULL: RegType = PTR_TO_BTF_ID | PTR_MAYBE_NULL;

const fn btf(field: &'static str, reg_type: RegType, st: &'static str) -> BpfCtxArgAux {
    BpfCtxArgAux { field, reg_type, btf_struct: Some(st) }
}

const fn buf(field: &'static str, reg_type: RegType) -> BpfCtxArgAux {
    BpfCtxArgAux { field, reg_type, btf_struct: None }
}

/// The registered targets whose `bpf_iter_reg` the model has.
pub const BPF_ITER_TARGETS: &[BpfIterReg] = &[
    // map_iter.c: bpf_map_reg_info, btf_bpf_map_id
    BpfIterReg { target: "bpf_map", ctx_arg_info: &[btf("map", PTR_TO_BTF_ID_OR_NULL | PTR_TRUSTED, "bpf_map")] },
    // map_iter.c: bpf_map_elem_reg_info
    BpfIterReg { target: "bpf_map_elem", ctx_arg_info: &[buf("key", PTR_TO_BUF | PTR_MAYBE_NULL | MEM_RDONLY), buf("value", PTR_TO_BUF | PTR_MAYBE_NULL)] },
    // task_iter.c: task_reg_info, btf_tracing_ids[BTF_TRACING_TYPE_TASK]
    BpfIterReg { target: "task", ctx_arg_info: &[btf("task", PTR_TO_BTF_ID_OR_NULL | PTR_TRUSTED, "task_struct")] },
    // task_iter.c: task_file_reg_info (.._TASK, .._FILE)
    BpfIterReg { target: "task_file", ctx_arg_info: &[btf("task", PTR_TO_BTF_ID_OR_NULL, "task_struct"), btf("file", PTR_TO_BTF_ID_OR_NULL, "file")] },
    // task_iter.c: task_vma_reg_info (.._TASK, .._VMA)
    BpfIterReg { target: "task_vma", ctx_arg_info: &[btf("task", PTR_TO_BTF_ID_OR_NULL, "task_struct"), btf("vma", PTR_TO_BTF_ID_OR_NULL, "vm_area_struct")] },
    // prog_iter.c: bpf_prog_reg_info, btf_bpf_prog_id
    BpfIterReg { target: "bpf_prog", ctx_arg_info: &[btf("prog", PTR_TO_BTF_ID_OR_NULL, "bpf_prog")] },
    // link_iter.c: bpf_link_reg_info, btf_bpf_link_id
    BpfIterReg { target: "bpf_link", ctx_arg_info: &[btf("link", PTR_TO_BTF_ID_OR_NULL, "bpf_link")] },
    // cgroup_iter.c: bpf_cgroup_reg_info, bpf_cgroup_btf_id
    BpfIterReg { target: "cgroup", ctx_arg_info: &[btf("cgroup", PTR_TO_BTF_ID_OR_NULL | PTR_TRUSTED, "cgroup")] },
    // kmem_cache_iter.c: bpf_kmem_cache_reg_info, bpf_kmem_cache_btf_id
    BpfIterReg { target: "kmem_cache", ctx_arg_info: &[btf("s", PTR_TO_BTF_ID_OR_NULL | PTR_TRUSTED, "kmem_cache")] },
    // dmabuf_iter.c: bpf_dmabuf_reg_info, bpf_dmabuf_btf_id
    BpfIterReg { target: "dmabuf", ctx_arg_info: &[btf("dmabuf", PTR_TO_BTF_ID_OR_NULL, "dma_buf")] },
    // sock_map.c: sock_map_iter_reg, btf_sock_ids[BTF_SOCK_TYPE_SOCK]
    BpfIterReg { target: "sockmap", ctx_arg_info: &[buf("key", PTR_TO_BUF | PTR_MAYBE_NULL | MEM_RDONLY), btf("sk", PTR_TO_BTF_ID_OR_NULL, "sock")] },
];

/// Targets 7.3 registers whose `ctx_arg_info` the model does not have.
const UNMODELLED_TARGETS: &[&str] = &["tcp", "udp", "unix", "ipv6_route", "netlink", "bpf_sk_storage_map", "ksym"];

/// What `bpf_iter_prog_supported` finds for an attach function's name.
pub enum IterTarget {
    Registered(&'static BpfIterReg),
    /// Registered by 7.3, its registration not modelled.
    Unmodelled(String),
    /// Not an iterator function, or no such target: `-EINVAL`.
    None,
}

/// `bpf_iter_prog_supported`: the target the attach function
/// `bpf_iter_<target>` names.
pub fn bpf_iter_prog_supported(attach_fname: &str) -> IterTarget {
    let Some(target) = attach_fname.strip_prefix(BPF_ITER_FUNC_PREFIX) else { return IterTarget::None };
    if let Some(reg) = BPF_ITER_TARGETS.iter().find(|r| r.target == target) {
        return IterTarget::Registered(reg);
    }
    if UNMODELLED_TARGETS.contains(&target) {
        return IterTarget::Unmodelled(target.to_string());
    }
    IterTarget::None
}

/// The `offsetof(struct bpf_iter__<target>, field)` of a registration: the
/// ctx struct's members are `__bpf_md_ptr` unions, named inside.
pub fn ctx_field_offset(btf: &crate::vmlinux_btf::VmlinuxBtf, target: &str, field: &str) -> Option<i64> {
    use crate::vmlinux_btf::Kind;
    let members = |id: u32| match btf.type_by_id(id).map(|t| &t.kind) {
        Some(Kind::Struct { members: Some(m), .. }) => Some(m.clone()),
        _ => None,
    };
    let sid = btf.find_by_name_kind(&format!("bpf_iter__{target}"), crate::btf::BTF_KIND_STRUCT)?;
    for m in members(sid)? {
        if m.name == field {
            return Some(i64::from(m.bit_off / 8));
        }
        if m.name.is_empty() {
            let inner = btf.skip_modifiers(m.type_id);
            if members(inner).is_some_and(|im| im.iter().any(|i| i.name == field)) {
                return Some(i64::from(m.bit_off / 8));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_by_function_name() {
        assert!(matches!(bpf_iter_prog_supported("bpf_iter_task"), IterTarget::Registered(r) if r.target == "task"));
        assert!(matches!(bpf_iter_prog_supported("bpf_iter_tcp"), IterTarget::Unmodelled(_)));
        assert!(matches!(bpf_iter_prog_supported("bpf_iter_nope"), IterTarget::None));
        assert!(matches!(bpf_iter_prog_supported("task"), IterTarget::None));
    }

    #[test]
    fn map_elem_fields_by_offsetof() {
        let Some(btf) = crate::vmlinux_btf::VmlinuxBtf::for_arch(crate::target::Arch::X86_64) else { return };
        assert_eq!(ctx_field_offset(btf, "bpf_map_elem", "key"), Some(16));
        assert_eq!(ctx_field_offset(btf, "bpf_map_elem", "value"), Some(24));
        assert_eq!(ctx_field_offset(btf, "sockmap", "sk"), Some(24));
        assert_eq!(ctx_field_offset(btf, "task", "task"), Some(8));
    }
}
