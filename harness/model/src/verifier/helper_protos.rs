//! `struct bpf_func_proto` of every Linux 7.3 helper: the argument and
//! return types `check_helper_call` enforces, read from the 7.3 sources
//! (`kernel/bpf/*.c`, `kernel/trace/bpf_trace.c`, `net/core/filter.c`).
//!
//! A helper id can have several prototypes (`bpf_get_stack` for kprobes,
//! tracepoints, raw tracepoints, perf events...); which one a program gets
//! is decided per program type by [`super::helpers::get_func_proto`]. Each
//! constant is named after the kernel variable it models.
//!
//! Argument and return types use the kernel's encoding: a base type in the
//! low 8 bits and `enum bpf_type_flag` bits above (shared with register
//! types, [`super::reg`]). Pointer-to-BTF arguments name the kernel struct
//! they expect ([`FuncProto::arg_btf`]); this model has no vmlinux BTF, so
//! a name stands for the type id.

use super::reg::{MEM_RDONLY, MEM_RINGBUF, PTR_MAYBE_NULL, PTR_TRUSTED};

/// `enum bpf_arg_type` (base) with flags.
pub type ArgType = u32;
/// `enum bpf_return_type` (base) with flags.
pub type RetType = u32;

pub const ARG_DONTCARE: ArgType = 0;
pub const ARG_CONST_MAP_PTR: ArgType = 1;
pub const ARG_PTR_TO_MAP_KEY: ArgType = 2;
pub const ARG_PTR_TO_MAP_VALUE: ArgType = 3;
pub const ARG_PTR_TO_MEM: ArgType = 4;
pub const ARG_PTR_TO_ARENA: ArgType = 5;
pub const ARG_MEM_SIZE: ArgType = 6;
pub const ARG_MEM_SIZE_OR_ZERO: ArgType = 7;
pub const ARG_PTR_TO_CTX: ArgType = 8;
pub const ARG_ANYTHING: ArgType = 9;
pub const ARG_SCALAR: ArgType = 10;
pub const ARG_PTR_TO_SPIN_LOCK: ArgType = 11;
pub const ARG_PTR_TO_SOCK_COMMON: ArgType = 12;
pub const ARG_PTR_TO_SOCKET: ArgType = 13;
pub const ARG_PTR_TO_BTF_ID: ArgType = 14;
pub const ARG_PTR_TO_RINGBUF_MEM: ArgType = 15;
pub const ARG_CONST_ALLOC_SIZE_OR_ZERO: ArgType = 16;
pub const ARG_PTR_TO_BTF_ID_SOCK_COMMON: ArgType = 17;
pub const ARG_PTR_TO_PERCPU_BTF_ID: ArgType = 18;
pub const ARG_PTR_TO_FUNC: ArgType = 19;
pub const ARG_PTR_TO_STACK: ArgType = 20;
pub const ARG_PTR_TO_CONST_STR: ArgType = 21;
pub const ARG_PTR_TO_TIMER: ArgType = 22;
pub const ARG_KPTR_XCHG_DEST: ArgType = 23;
pub const ARG_PTR_TO_DYNPTR: ArgType = 24;

use super::reg::BASE_BITS;
/// `OBJ_RELEASE`: the argument is released by the call.
pub const OBJ_RELEASE: u32 = 1 << (BASE_BITS + 5);
/// `MEM_UNINIT`: the memory may be uninitialised (the helper fills it).
pub const MEM_UNINIT: u32 = 1 << (BASE_BITS + 7);
pub const DYNPTR_TYPE_LOCAL: u32 = 1 << (BASE_BITS + 8);
pub const DYNPTR_TYPE_RINGBUF: u32 = 1 << (BASE_BITS + 9);
/// `MEM_FIXED_SIZE`: the size is [`FuncProto::arg_size`].
pub const MEM_FIXED_SIZE: u32 = 1 << (BASE_BITS + 10);
pub const DYNPTR_TYPE_SKB: u32 = 1 << (BASE_BITS + 15);
pub const DYNPTR_TYPE_XDP: u32 = 1 << (BASE_BITS + 16);
pub const MEM_ALIGNED: u32 = 1 << (BASE_BITS + 17);
pub const MEM_WRITE: u32 = 1 << (BASE_BITS + 18);
pub const DYNPTR_TYPE_SKB_META: u32 = 1 << (BASE_BITS + 19);
pub const DYNPTR_TYPE_FILE: u32 = 1 << (BASE_BITS + 20);
/// `DYNPTR_TYPE_FLAG_MASK`.
pub const DYNPTR_TYPE_FLAG_MASK: u32 = DYNPTR_TYPE_LOCAL | DYNPTR_TYPE_RINGBUF | DYNPTR_TYPE_SKB | DYNPTR_TYPE_XDP | DYNPTR_TYPE_SKB_META | DYNPTR_TYPE_FILE;

pub const ARG_PTR_TO_MAP_VALUE_OR_NULL: ArgType = PTR_MAYBE_NULL | ARG_PTR_TO_MAP_VALUE;
pub const ARG_PTR_TO_MEM_OR_NULL: ArgType = PTR_MAYBE_NULL | ARG_PTR_TO_MEM;
pub const ARG_PTR_TO_CTX_OR_NULL: ArgType = PTR_MAYBE_NULL | ARG_PTR_TO_CTX;
pub const ARG_PTR_TO_SOCKET_OR_NULL: ArgType = PTR_MAYBE_NULL | ARG_PTR_TO_SOCKET;
pub const ARG_PTR_TO_STACK_OR_NULL: ArgType = PTR_MAYBE_NULL | ARG_PTR_TO_STACK;
pub const ARG_PTR_TO_BTF_ID_OR_NULL: ArgType = PTR_MAYBE_NULL | ARG_PTR_TO_BTF_ID;
pub const ARG_PTR_TO_UNINIT_MEM: ArgType = MEM_UNINIT | MEM_WRITE | ARG_PTR_TO_MEM;
pub const ARG_PTR_TO_FIXED_SIZE_MEM: ArgType = MEM_FIXED_SIZE | ARG_PTR_TO_MEM;

pub const RET_INTEGER: RetType = 0;
pub const RET_VOID: RetType = 1;
pub const RET_PTR_TO_MAP_VALUE: RetType = 2;
pub const RET_PTR_TO_SOCKET: RetType = 3;
pub const RET_PTR_TO_TCP_SOCK: RetType = 4;
pub const RET_PTR_TO_SOCK_COMMON: RetType = 5;
pub const RET_PTR_TO_MEM: RetType = 6;
pub const RET_PTR_TO_MEM_OR_BTF_ID: RetType = 7;
pub const RET_PTR_TO_BTF_ID: RetType = 8;
pub const RET_PTR_TO_MAP_VALUE_OR_NULL: RetType = PTR_MAYBE_NULL | RET_PTR_TO_MAP_VALUE;
pub const RET_PTR_TO_SOCKET_OR_NULL: RetType = PTR_MAYBE_NULL | RET_PTR_TO_SOCKET;
pub const RET_PTR_TO_TCP_SOCK_OR_NULL: RetType = PTR_MAYBE_NULL | RET_PTR_TO_TCP_SOCK;
pub const RET_PTR_TO_SOCK_COMMON_OR_NULL: RetType = PTR_MAYBE_NULL | RET_PTR_TO_SOCK_COMMON;
pub const RET_PTR_TO_RINGBUF_MEM_OR_NULL: RetType = PTR_MAYBE_NULL | MEM_RINGBUF | RET_PTR_TO_MEM;
pub const RET_PTR_TO_DYNPTR_MEM_OR_NULL: RetType = PTR_MAYBE_NULL | RET_PTR_TO_MEM;
pub const RET_PTR_TO_BTF_ID_OR_NULL: RetType = PTR_MAYBE_NULL | RET_PTR_TO_BTF_ID;
pub const RET_PTR_TO_BTF_ID_TRUSTED: RetType = PTR_TRUSTED | RET_PTR_TO_BTF_ID;

/// `BPF_PTR_POISON` as an argument's BTF id: the verifier finds the type
/// elsewhere (spin locks, kptr_xchg).
pub const BTF_POISON: &str = "!poison";

/// The `allowed` callback of a prototype (which attach points may call it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Allowed {
    /// Every program that gets the prototype.
    Always,
    /// `bpf_d_path_allowed`: LSM/tracing attach points on an allow list.
    DPath,
    /// `bpf_ima_inode_hash_allowed`: sleepable programs.
    ImaInodeHash,
    /// `bpf_sk_storage_tracing_allowed`: tracing programs that do not
    /// trace the `bpf_sk_storage*` functions themselves.
    SkStorageTracing,
}

/// `struct bpf_func_proto`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuncProto {
    pub gpl_only: bool,
    pub pkt_access: bool,
    pub might_sleep: bool,
    pub allow_fastcall: bool,
    pub ret: RetType,
    pub args: [ArgType; 5],
    /// `arg_size` of `MEM_FIXED_SIZE` arguments.
    pub arg_size: [u32; 5],
    /// The kernel struct a pointer-to-BTF argument expects ("" for none).
    pub arg_btf: [&'static str; 5],
    /// The struct a `RET_PTR_TO_BTF_ID` helper returns.
    pub ret_btf: &'static str,
    pub allowed: Allowed,
    /// The kernel function `.func` names, where the prototypes of one
    /// helper name different ones (the call `bpf_do_misc_fixups` patches
    /// in); "" where the fixups' table knows the helper's only function.
    pub func: &'static str,
}

impl FuncProto {
    /// The all-zero prototype the constants below start from.
    pub const NONE: FuncProto = FuncProto {
        gpl_only: false,
        pkt_access: false,
        might_sleep: false,
        allow_fastcall: false,
        ret: RET_INTEGER,
        args: [ARG_DONTCARE; 5],
        arg_size: [0; 5],
        arg_btf: [""; 5],
        ret_btf: "",
        allowed: Allowed::Always,
        func: "",
    };
}

// The prototypes, alphabetically by kernel name.

/// `bpf_bind_proto` (filter.c).
pub const BPF_BIND_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_bprm_opts_set_proto` (bpf_lsm.c).
pub const BPF_BPRM_OPTS_SET_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["linux_binprm", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_btf_find_by_name_kind_proto` (btf.c).
pub const BPF_BTF_FIND_BY_NAME_KIND_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    might_sleep: true,
    args: [ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_cgrp_storage_delete_proto` (bpf_cgrp_storage.c).
pub const BPF_CGRP_STORAGE_DELETE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["", "cgroup", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_cgrp_storage_get_proto` (bpf_cgrp_storage.c).
pub const BPF_CGRP_STORAGE_GET_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_MAP_VALUE_OR_NULL,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_OR_NULL, ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING, ARG_DONTCARE],
    arg_btf: ["", "cgroup", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_clone_redirect_proto` (filter.c).
pub const BPF_CLONE_REDIRECT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_copy_from_user_proto` (helpers.c).
pub const BPF_COPY_FROM_USER_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    might_sleep: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_copy_from_user_task_proto` (helpers.c).
pub const BPF_COPY_FROM_USER_TASK_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    might_sleep: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_PTR_TO_BTF_ID, ARG_ANYTHING],
    arg_btf: ["", "", "", "task_struct", ""],
    ..FuncProto::NONE
};
/// `bpf_csum_diff_proto` (filter.c).
pub const BPF_CSUM_DIFF_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    pkt_access: true,
    args: [
        ARG_PTR_TO_MEM | PTR_MAYBE_NULL | MEM_RDONLY,
        ARG_MEM_SIZE_OR_ZERO,
        ARG_PTR_TO_MEM | PTR_MAYBE_NULL | MEM_RDONLY,
        ARG_MEM_SIZE_OR_ZERO,
        ARG_ANYTHING,
    ],
    ..FuncProto::NONE
};
/// `bpf_csum_level_proto` (filter.c).
pub const BPF_CSUM_LEVEL_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_csum_update_proto` (filter.c).
pub const BPF_CSUM_UPDATE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_current_task_under_cgroup_proto` (helpers.c).
pub const BPF_CURRENT_TASK_UNDER_CGROUP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_d_path_proto` (bpf_trace.c).
pub const BPF_D_PATH_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID, ARG_PTR_TO_MEM | MEM_WRITE, ARG_MEM_SIZE_OR_ZERO, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["path", "", "", "", ""],
    allowed: Allowed::DPath,
    ..FuncProto::NONE
};
/// `btf_allowlist_d_path` (bpf_trace.c): the functions a non-LSM tracing
/// program calling `bpf_d_path` may attach to, as the Debian images
/// (`CONFIG_SECURITY`, `CONFIG_SECURITY_PATH`) build it.
pub const BTF_ALLOWLIST_D_PATH: &[&str] = &[
    "security_file_permission",
    "security_inode_getattr",
    "security_file_open",
    "security_path_truncate",
    "vfs_truncate",
    "vfs_fallocate",
    "dentry_open",
    "vfs_getattr",
    "filp_close",
];
/// `bpf_dynptr_data_proto` (helpers.c).
pub const BPF_DYNPTR_DATA_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_DYNPTR_MEM_OR_NULL,
    args: [ARG_PTR_TO_DYNPTR, ARG_ANYTHING, ARG_CONST_ALLOC_SIZE_OR_ZERO, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_dynptr_from_mem_proto` (helpers.c).
pub const BPF_DYNPTR_FROM_MEM_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_LOCAL | MEM_UNINIT | MEM_WRITE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_dynptr_read_proto` (helpers.c).
pub const BPF_DYNPTR_READ_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_PTR_TO_DYNPTR, ARG_ANYTHING, ARG_ANYTHING], ..FuncProto::NONE };
/// `bpf_dynptr_write_proto` (helpers.c).
pub const BPF_DYNPTR_WRITE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_DYNPTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING], ..FuncProto::NONE };
/// `bpf_event_output_data_proto` (helpers.c).
pub const BPF_EVENT_OUTPUT_DATA_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    ..FuncProto::NONE
};
/// `bpf_find_vma_proto` (task_iter.c).
pub const BPF_FIND_VMA_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID, ARG_ANYTHING, ARG_PTR_TO_FUNC, ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING],
    arg_btf: ["task_struct", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_flow_dissector_load_bytes_proto` (filter.c).
pub const BPF_FLOW_DISSECTOR_LOAD_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_for_each_map_elem_proto` (bpf_iter.c).
pub const BPF_FOR_EACH_MAP_ELEM_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_FUNC, ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_attach_cookie_proto` (bpf_lsm.c).
pub const BPF_GET_ATTACH_COOKIE_PROTO: FuncProto = FuncProto {
    func: "bpf_get_attach_cookie",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_attach_cookie_proto_kmulti` (bpf_trace.c).
pub const BPF_GET_ATTACH_COOKIE_PROTO_KMULTI: FuncProto = FuncProto {
    func: "bpf_get_attach_cookie_kprobe_multi",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_attach_cookie_proto_pe` (bpf_trace.c).
pub const BPF_GET_ATTACH_COOKIE_PROTO_PE: FuncProto = FuncProto {
    func: "bpf_get_attach_cookie_pe",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_attach_cookie_proto_trace` (bpf_trace.c).
pub const BPF_GET_ATTACH_COOKIE_PROTO_TRACE: FuncProto = FuncProto {
    func: "bpf_get_attach_cookie_trace",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_attach_cookie_proto_tracing` (bpf_trace.c).
pub const BPF_GET_ATTACH_COOKIE_PROTO_TRACING: FuncProto = FuncProto {
    func: "bpf_get_attach_cookie_tracing",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_attach_cookie_proto_umulti` (bpf_trace.c).
pub const BPF_GET_ATTACH_COOKIE_PROTO_UMULTI: FuncProto = FuncProto {
    func: "bpf_get_attach_cookie_uprobe_multi",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_branch_snapshot_proto` (bpf_trace.c).
pub const BPF_GET_BRANCH_SNAPSHOT_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_cgroup_classid_curr_proto` (filter.c).
pub const BPF_GET_CGROUP_CLASSID_CURR_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_get_cgroup_classid_proto` (filter.c).
pub const BPF_GET_CGROUP_CLASSID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_current_ancestor_cgroup_id_proto` (helpers.c).
pub const BPF_GET_CURRENT_ANCESTOR_CGROUP_ID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_current_cgroup_id_proto` (helpers.c).
pub const BPF_GET_CURRENT_CGROUP_ID_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_get_current_comm_proto` (helpers.c).
pub const BPF_GET_CURRENT_COMM_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_current_pid_tgid_proto` (helpers.c).
pub const BPF_GET_CURRENT_PID_TGID_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_get_current_task_btf_proto` (bpf_trace.c).
pub const BPF_GET_CURRENT_TASK_BTF_PROTO: FuncProto = FuncProto { ret: RET_PTR_TO_BTF_ID_TRUSTED, gpl_only: true, ret_btf: "task_struct", ..FuncProto::NONE };
/// `bpf_get_current_task_proto` (bpf_trace.c).
pub const BPF_GET_CURRENT_TASK_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, gpl_only: true, ..FuncProto::NONE };
/// `bpf_get_current_uid_gid_proto` (helpers.c).
pub const BPF_GET_CURRENT_UID_GID_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_get_func_arg_cnt_proto` (bpf_trace.c).
pub const BPF_GET_FUNC_ARG_CNT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_func_arg_proto` (bpf_trace.c).
pub const BPF_GET_FUNC_ARG_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED, ARG_DONTCARE, ARG_DONTCARE],
    arg_size: [0, 0, 8, 0, 0],
    ..FuncProto::NONE
};
/// `bpf_get_func_ip_proto_kprobe` (bpf_trace.c).
pub const BPF_GET_FUNC_IP_PROTO_KPROBE: FuncProto = FuncProto {
    func: "bpf_get_func_ip_kprobe",
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_func_ip_proto_kprobe_multi` (bpf_trace.c).
pub const BPF_GET_FUNC_IP_PROTO_KPROBE_MULTI: FuncProto = FuncProto {
    func: "bpf_get_func_ip_kprobe_multi",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_func_ip_proto_tracing` (bpf_trace.c).
pub const BPF_GET_FUNC_IP_PROTO_TRACING: FuncProto = FuncProto {
    func: "bpf_get_func_ip_tracing",
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_func_ip_proto_uprobe_multi` (bpf_trace.c).
pub const BPF_GET_FUNC_IP_PROTO_UPROBE_MULTI: FuncProto = FuncProto {
    func: "bpf_get_func_ip_uprobe_multi",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_func_ret_proto` (bpf_trace.c).
pub const BPF_GET_FUNC_RET_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_size: [0, 8, 0, 0, 0],
    ..FuncProto::NONE
};
/// `bpf_get_hash_recalc_proto` (filter.c).
pub const BPF_GET_HASH_RECALC_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_listener_sock_proto` (filter.c).
pub const BPF_GET_LISTENER_SOCK_PROTO: FuncProto =
    FuncProto { ret: RET_PTR_TO_SOCKET_OR_NULL, args: [ARG_PTR_TO_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_local_storage_proto` (cgroup.c).
pub const BPF_GET_LOCAL_STORAGE_PROTO: FuncProto =
    FuncProto { ret: RET_PTR_TO_MAP_VALUE, args: [ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_netns_cookie_proto` (filter.c).
pub const BPF_GET_NETNS_COOKIE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_netns_cookie_sk_msg_proto` (filter.c).
pub const BPF_GET_NETNS_COOKIE_SK_MSG_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_netns_cookie_sock_addr_proto` (filter.c).
pub const BPF_GET_NETNS_COOKIE_SOCK_ADDR_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_netns_cookie_sock_ops_proto` (filter.c).
pub const BPF_GET_NETNS_COOKIE_SOCK_OPS_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_netns_cookie_sock_proto` (filter.c).
pub const BPF_GET_NETNS_COOKIE_SOCK_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_netns_cookie_sockopt_proto` (cgroup.c).
pub const BPF_GET_NETNS_COOKIE_SOCKOPT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_ns_current_pid_tgid_proto` (helpers.c).
pub const BPF_GET_NS_CURRENT_PID_TGID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_numa_node_id_proto` (helpers.c).
pub const BPF_GET_NUMA_NODE_ID_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_get_prandom_u32_proto` (helpers.c).
pub const BPF_GET_PRANDOM_U32_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_get_raw_smp_processor_id_proto` (helpers.c).
pub const BPF_GET_RAW_SMP_PROCESSOR_ID_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_get_retval_proto` (cgroup.c).
pub const BPF_GET_RETVAL_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_get_route_realm_proto` (filter.c).
pub const BPF_GET_ROUTE_REALM_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_smp_processor_id_proto` (helpers.c).
pub const BPF_GET_SMP_PROCESSOR_ID_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, allow_fastcall: true, ..FuncProto::NONE };
/// `bpf_get_socket_cookie_proto` (filter.c).
pub const BPF_GET_SOCKET_COOKIE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_socket_cookie_sock_addr_proto` (filter.c).
pub const BPF_GET_SOCKET_COOKIE_SOCK_ADDR_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_socket_cookie_sock_ops_proto` (filter.c).
pub const BPF_GET_SOCKET_COOKIE_SOCK_OPS_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_socket_cookie_sock_proto` (filter.c).
pub const BPF_GET_SOCKET_COOKIE_SOCK_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_socket_ptr_cookie_proto` (filter.c).
pub const BPF_GET_SOCKET_PTR_COOKIE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON | PTR_MAYBE_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_socket_uid_proto` (filter.c).
pub const BPF_GET_SOCKET_UID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_stack_proto` (stackmap.c).
pub const BPF_GET_STACK_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_stack_proto_pe` (stackmap.c).
pub const BPF_GET_STACK_PROTO_PE: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_stack_proto_raw_tp` (bpf_trace.c).
pub const BPF_GET_STACK_PROTO_RAW_TP: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_stack_proto_tp` (bpf_trace.c).
pub const BPF_GET_STACK_PROTO_TP: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_stack_sleepable_proto` (stackmap.c).
pub const BPF_GET_STACK_SLEEPABLE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    might_sleep: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_get_stackid_proto` (stackmap.c).
pub const BPF_GET_STACKID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_stackid_proto_pe` (stackmap.c).
pub const BPF_GET_STACKID_PROTO_PE: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_stackid_proto_raw_tp` (bpf_trace.c).
pub const BPF_GET_STACKID_PROTO_RAW_TP: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_stackid_proto_tp` (bpf_trace.c).
pub const BPF_GET_STACKID_PROTO_TP: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_get_task_stack_proto` (stackmap.c).
pub const BPF_GET_TASK_STACK_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    arg_btf: ["task_struct", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_get_task_stack_sleepable_proto` (stackmap.c).
pub const BPF_GET_TASK_STACK_SLEEPABLE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    might_sleep: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    arg_btf: ["task_struct", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_ima_file_hash_proto` (bpf_lsm.c).
pub const BPF_IMA_FILE_HASH_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    might_sleep: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["file", "", "", "", ""],
    allowed: Allowed::ImaInodeHash,
    ..FuncProto::NONE
};
/// `bpf_ima_inode_hash_proto` (bpf_lsm.c).
pub const BPF_IMA_INODE_HASH_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    might_sleep: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["inode", "", "", "", ""],
    allowed: Allowed::ImaInodeHash,
    ..FuncProto::NONE
};
/// `bpf_inode_storage_delete_proto` (bpf_inode_storage.c).
pub const BPF_INODE_STORAGE_DELETE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["", "inode", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_inode_storage_get_proto` (bpf_inode_storage.c).
pub const BPF_INODE_STORAGE_GET_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_MAP_VALUE_OR_NULL,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_OR_NULL, ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING, ARG_DONTCARE],
    arg_btf: ["", "inode", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_jiffies64_proto` (helpers.c).
pub const BPF_JIFFIES64_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_kallsyms_lookup_name_proto` (syscall.c).
pub const BPF_KALLSYMS_LOOKUP_NAME_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED, ARG_DONTCARE],
    arg_size: [0, 0, 0, 8, 0],
    ..FuncProto::NONE
};
/// `bpf_kptr_xchg_proto` (helpers.c).
pub const BPF_KPTR_XCHG_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_KPTR_XCHG_DEST, ARG_PTR_TO_BTF_ID_OR_NULL | OBJ_RELEASE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["", BTF_POISON, "", "", ""],
    ret_btf: BTF_POISON,
    ..FuncProto::NONE
};
/// `bpf_ktime_get_boot_ns_proto` (helpers.c).
pub const BPF_KTIME_GET_BOOT_NS_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_ktime_get_coarse_ns_proto` (helpers.c).
pub const BPF_KTIME_GET_COARSE_NS_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_ktime_get_ns_proto` (helpers.c).
pub const BPF_KTIME_GET_NS_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_ktime_get_tai_ns_proto` (helpers.c).
pub const BPF_KTIME_GET_TAI_NS_PROTO: FuncProto = FuncProto { ret: RET_INTEGER, ..FuncProto::NONE };
/// `bpf_l3_csum_replace_proto` (filter.c).
pub const BPF_L3_CSUM_REPLACE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING], ..FuncProto::NONE };
/// `bpf_l4_csum_replace_proto` (filter.c).
pub const BPF_L4_CSUM_REPLACE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING], ..FuncProto::NONE };
/// `bpf_loop_proto` (bpf_iter.c).
pub const BPF_LOOP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_SCALAR, ARG_PTR_TO_FUNC, ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_lwt_in_push_encap_proto` (filter.c).
pub const BPF_LWT_IN_PUSH_ENCAP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_lwt_seg6_action_proto` (filter.c).
pub const BPF_LWT_SEG6_ACTION_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_lwt_seg6_adjust_srh_proto` (filter.c).
pub const BPF_LWT_SEG6_ADJUST_SRH_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_lwt_seg6_store_bytes_proto` (filter.c).
pub const BPF_LWT_SEG6_STORE_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_lwt_xmit_push_encap_proto` (filter.c).
pub const BPF_LWT_XMIT_PUSH_ENCAP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_map_delete_elem_proto` (helpers.c).
pub const BPF_MAP_DELETE_ELEM_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    pkt_access: true,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_map_lookup_elem_proto` (helpers.c).
pub const BPF_MAP_LOOKUP_ELEM_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_MAP_VALUE_OR_NULL,
    pkt_access: true,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_map_lookup_percpu_elem_proto` (helpers.c).
pub const BPF_MAP_LOOKUP_PERCPU_ELEM_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_MAP_VALUE_OR_NULL,
    pkt_access: true,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_map_peek_elem_proto` (helpers.c).
pub const BPF_MAP_PEEK_ELEM_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_VALUE | MEM_UNINIT | MEM_WRITE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_map_pop_elem_proto` (helpers.c).
pub const BPF_MAP_POP_ELEM_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_VALUE | MEM_UNINIT | MEM_WRITE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_map_push_elem_proto` (helpers.c).
pub const BPF_MAP_PUSH_ELEM_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    pkt_access: true,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_map_update_elem_proto` (helpers.c).
pub const BPF_MAP_UPDATE_ELEM_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    pkt_access: true,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_msg_apply_bytes_proto` (filter.c).
pub const BPF_MSG_APPLY_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_msg_cork_bytes_proto` (filter.c).
pub const BPF_MSG_CORK_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_msg_pop_data_proto` (filter.c).
pub const BPF_MSG_POP_DATA_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_msg_pull_data_proto` (filter.c).
pub const BPF_MSG_PULL_DATA_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_msg_push_data_proto` (filter.c).
pub const BPF_MSG_PUSH_DATA_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_override_return_proto` (bpf_trace.c).
pub const BPF_OVERRIDE_RETURN_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_per_cpu_ptr_proto` (helpers.c).
pub const BPF_PER_CPU_PTR_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_MEM_OR_BTF_ID | PTR_MAYBE_NULL | MEM_RDONLY,
    args: [ARG_PTR_TO_PERCPU_BTF_ID, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_perf_event_output_proto` (bpf_trace.c).
pub const BPF_PERF_EVENT_OUTPUT_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    ..FuncProto::NONE
};
/// `bpf_perf_event_output_proto_raw_tp` (bpf_trace.c).
pub const BPF_PERF_EVENT_OUTPUT_PROTO_RAW_TP: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    ..FuncProto::NONE
};
/// `bpf_perf_event_output_proto_tp` (bpf_trace.c).
pub const BPF_PERF_EVENT_OUTPUT_PROTO_TP: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    ..FuncProto::NONE
};
/// `bpf_perf_event_read_proto` (bpf_trace.c).
pub const BPF_PERF_EVENT_READ_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_perf_event_read_value_proto` (bpf_trace.c).
pub const BPF_PERF_EVENT_READ_VALUE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_perf_prog_read_value_proto` (bpf_trace.c).
pub const BPF_PERF_PROG_READ_VALUE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_probe_read_compat_proto` (bpf_trace.c).
pub const BPF_PROBE_READ_COMPAT_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_probe_read_compat_str_proto` (bpf_trace.c).
pub const BPF_PROBE_READ_COMPAT_STR_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_probe_read_kernel_proto` (bpf_trace.c).
pub const BPF_PROBE_READ_KERNEL_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_probe_read_kernel_str_proto` (bpf_trace.c).
pub const BPF_PROBE_READ_KERNEL_STR_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_probe_read_user_proto` (bpf_trace.c).
pub const BPF_PROBE_READ_USER_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_probe_read_user_str_proto` (bpf_trace.c).
pub const BPF_PROBE_READ_USER_STR_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_probe_write_user_proto` (bpf_trace.c).
pub const BPF_PROBE_WRITE_USER_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_read_branch_records_proto` (bpf_trace.c).
pub const BPF_READ_BRANCH_RECORDS_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM_OR_NULL | MEM_WRITE, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_redirect_neigh_proto` (filter.c).
pub const BPF_REDIRECT_NEIGH_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_ANYTHING, ARG_PTR_TO_MEM | PTR_MAYBE_NULL | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_redirect_peer_proto` (filter.c).
pub const BPF_REDIRECT_PEER_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_redirect_proto` (filter.c).
pub const BPF_REDIRECT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_ringbuf_discard_dynptr_proto` (ringbuf.c).
pub const BPF_RINGBUF_DISCARD_DYNPTR_PROTO: FuncProto = FuncProto {
    ret: RET_VOID,
    args: [ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_RINGBUF | OBJ_RELEASE, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_ringbuf_discard_proto` (ringbuf.c).
pub const BPF_RINGBUF_DISCARD_PROTO: FuncProto =
    FuncProto { ret: RET_VOID, args: [ARG_PTR_TO_RINGBUF_MEM | OBJ_RELEASE, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_ringbuf_output_proto` (ringbuf.c).
pub const BPF_RINGBUF_OUTPUT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_ringbuf_query_proto` (ringbuf.c).
pub const BPF_RINGBUF_QUERY_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_ringbuf_reserve_dynptr_proto` (ringbuf.c).
pub const BPF_RINGBUF_RESERVE_DYNPTR_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_RINGBUF | MEM_UNINIT | MEM_WRITE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_ringbuf_reserve_proto` (ringbuf.c).
pub const BPF_RINGBUF_RESERVE_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_RINGBUF_MEM_OR_NULL,
    args: [ARG_CONST_MAP_PTR, ARG_CONST_ALLOC_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_ringbuf_submit_dynptr_proto` (ringbuf.c).
pub const BPF_RINGBUF_SUBMIT_DYNPTR_PROTO: FuncProto = FuncProto {
    ret: RET_VOID,
    args: [ARG_PTR_TO_DYNPTR | DYNPTR_TYPE_RINGBUF | OBJ_RELEASE, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_ringbuf_submit_proto` (ringbuf.c).
pub const BPF_RINGBUF_SUBMIT_PROTO: FuncProto =
    FuncProto { ret: RET_VOID, args: [ARG_PTR_TO_RINGBUF_MEM | OBJ_RELEASE, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_send_signal_proto` (bpf_trace.c).
pub const BPF_SEND_SIGNAL_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_send_signal_thread_proto` (bpf_trace.c).
pub const BPF_SEND_SIGNAL_THREAD_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_seq_printf_btf_proto` (bpf_trace.c).
pub const BPF_SEQ_PRINTF_BTF_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_DONTCARE],
    arg_btf: ["seq_file", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_seq_printf_proto` (bpf_trace.c).
pub const BPF_SEQ_PRINTF_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_PTR_TO_MEM | PTR_MAYBE_NULL | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    arg_btf: ["seq_file", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_seq_write_proto` (bpf_trace.c).
pub const BPF_SEQ_WRITE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["seq_file", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_set_hash_invalid_proto` (filter.c).
pub const BPF_SET_HASH_INVALID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_set_hash_proto` (filter.c).
pub const BPF_SET_HASH_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_set_retval_proto` (cgroup.c).
pub const BPF_SET_RETVAL_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sk_ancestor_cgroup_id_proto` (filter.c).
pub const BPF_SK_ANCESTOR_CGROUP_ID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sk_assign_proto` (filter.c).
pub const BPF_SK_ASSIGN_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sk_cgroup_id_proto` (filter.c).
pub const BPF_SK_CGROUP_ID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sk_fullsock_proto` (filter.c).
pub const BPF_SK_FULLSOCK_PROTO: FuncProto =
    FuncProto { ret: RET_PTR_TO_SOCKET_OR_NULL, args: [ARG_PTR_TO_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sk_getsockopt_proto` (filter.c).
pub const BPF_SK_GETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_getsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_sk_lookup_assign_proto` (filter.c).
pub const BPF_SK_LOOKUP_ASSIGN_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_SOCKET_OR_NULL, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sk_lookup_tcp_proto` (filter.c).
pub const BPF_SK_LOOKUP_TCP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCKET_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_sk_lookup_udp_proto` (filter.c).
pub const BPF_SK_LOOKUP_UDP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCKET_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_sk_release_proto` (filter.c).
pub const BPF_SK_RELEASE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON | OBJ_RELEASE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sk_setsockopt_nodelay_proto` (filter.c).
pub const BPF_SK_SETSOCKOPT_NODELAY_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_setsockopt_nodelay",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_sk_setsockopt_proto` (filter.c).
pub const BPF_SK_SETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_setsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_skb_adjust_room_proto` (filter.c).
pub const BPF_SKB_ADJUST_ROOM_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_ancestor_cgroup_id_proto` (filter.c).
pub const BPF_SKB_ANCESTOR_CGROUP_ID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_cgroup_classid_proto` (filter.c).
pub const BPF_SKB_CGROUP_CLASSID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_cgroup_id_proto` (filter.c).
pub const BPF_SKB_CGROUP_ID_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_change_head_proto` (filter.c).
pub const BPF_SKB_CHANGE_HEAD_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_change_proto_proto` (filter.c).
pub const BPF_SKB_CHANGE_PROTO_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_change_tail_proto` (filter.c).
pub const BPF_SKB_CHANGE_TAIL_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_change_type_proto` (filter.c).
pub const BPF_SKB_CHANGE_TYPE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_check_mtu_proto` (filter.c).
pub const BPF_SKB_CHECK_MTU_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_WRITE | MEM_ALIGNED, ARG_ANYTHING, ARG_ANYTHING],
    arg_size: [0, 0, 4, 0, 0],
    ..FuncProto::NONE
};
/// `bpf_skb_ecn_set_ce_proto` (filter.c).
pub const BPF_SKB_ECN_SET_CE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_event_output_proto` (filter.c).
pub const BPF_SKB_EVENT_OUTPUT_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    ..FuncProto::NONE
};
/// `bpf_skb_fib_lookup_proto` (filter.c).
pub const BPF_SKB_FIB_LOOKUP_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_WRITE, ARG_MEM_SIZE, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_skb_get_tunnel_key_proto` (filter.c).
pub const BPF_SKB_GET_TUNNEL_KEY_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_get_tunnel_opt_proto` (filter.c).
pub const BPF_SKB_GET_TUNNEL_OPT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_get_xfrm_state_proto` (filter.c).
pub const BPF_SKB_GET_XFRM_STATE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_ANYTHING], ..FuncProto::NONE };
/// `bpf_skb_load_bytes_proto` (filter.c).
pub const BPF_SKB_LOAD_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_load_bytes_relative_proto` (filter.c).
pub const BPF_SKB_LOAD_BYTES_RELATIVE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_ANYTHING], ..FuncProto::NONE };
/// `bpf_skb_output_proto` (filter.c).
pub const BPF_SKB_OUTPUT_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    arg_btf: ["sk_buff", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_skb_pull_data_proto` (filter.c).
pub const BPF_SKB_PULL_DATA_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_set_tstamp_proto` (filter.c).
pub const BPF_SKB_SET_TSTAMP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_set_tunnel_key_proto` (filter.c).
pub const BPF_SKB_SET_TUNNEL_KEY_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_set_tunnel_opt_proto` (filter.c).
pub const BPF_SKB_SET_TUNNEL_OPT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_store_bytes_proto` (filter.c).
pub const BPF_SKB_STORE_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_ANYTHING], ..FuncProto::NONE };
/// `bpf_skb_under_cgroup_proto` (filter.c).
pub const BPF_SKB_UNDER_CGROUP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_vlan_pop_proto` (filter.c).
pub const BPF_SKB_VLAN_POP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skb_vlan_push_proto` (filter.c).
pub const BPF_SKB_VLAN_PUSH_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_skc_lookup_tcp_proto` (filter.c).
pub const BPF_SKC_LOOKUP_TCP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCK_COMMON_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_skc_to_mptcp_sock_proto` (filter.c).
pub const BPF_SKC_TO_MPTCP_SOCK_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_PTR_TO_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ret_btf: "mptcp_sock",
    ..FuncProto::NONE
};
/// `bpf_skc_to_tcp6_sock_proto` (filter.c).
pub const BPF_SKC_TO_TCP6_SOCK_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ret_btf: "tcp6_sock",
    ..FuncProto::NONE
};
/// `bpf_skc_to_tcp_request_sock_proto` (filter.c).
pub const BPF_SKC_TO_TCP_REQUEST_SOCK_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ret_btf: "tcp_request_sock",
    ..FuncProto::NONE
};
/// `bpf_skc_to_tcp_sock_proto` (filter.c).
pub const BPF_SKC_TO_TCP_SOCK_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ret_btf: "tcp_sock",
    ..FuncProto::NONE
};
/// `bpf_skc_to_tcp_timewait_sock_proto` (filter.c).
pub const BPF_SKC_TO_TCP_TIMEWAIT_SOCK_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ret_btf: "tcp_timewait_sock",
    ..FuncProto::NONE
};
/// `bpf_skc_to_udp6_sock_proto` (filter.c).
pub const BPF_SKC_TO_UDP6_SOCK_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ret_btf: "udp6_sock",
    ..FuncProto::NONE
};
/// `bpf_skc_to_unix_sock_proto` (filter.c).
pub const BPF_SKC_TO_UNIX_SOCK_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ret_btf: "unix_sock",
    ..FuncProto::NONE
};
/// `bpf_snprintf_btf_proto` (bpf_trace.c).
pub const BPF_SNPRINTF_BTF_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_MEM | MEM_WRITE, ARG_MEM_SIZE, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_snprintf_proto` (helpers.c).
pub const BPF_SNPRINTF_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_MEM_OR_NULL | MEM_WRITE, ARG_MEM_SIZE_OR_ZERO, ARG_PTR_TO_CONST_STR, ARG_PTR_TO_MEM | PTR_MAYBE_NULL | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    ..FuncProto::NONE
};
/// `bpf_sock_addr_getsockopt_proto` (filter.c).
pub const BPF_SOCK_ADDR_GETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_sock_addr_getsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_sock_addr_setsockopt_proto` (filter.c).
pub const BPF_SOCK_ADDR_SETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_sock_addr_setsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_sock_addr_sk_lookup_tcp_proto` (filter.c).
pub const BPF_SOCK_ADDR_SK_LOOKUP_TCP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCKET_OR_NULL,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_sock_addr_sk_lookup_udp_proto` (filter.c).
pub const BPF_SOCK_ADDR_SK_LOOKUP_UDP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCKET_OR_NULL,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_sock_addr_skc_lookup_tcp_proto` (filter.c).
pub const BPF_SOCK_ADDR_SKC_LOOKUP_TCP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCK_COMMON_OR_NULL,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_sock_create_getsockopt_proto` (filter.c).
pub const BPF_SOCK_CREATE_GETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_sock_create_getsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_sock_create_setsockopt_proto` (filter.c).
pub const BPF_SOCK_CREATE_SETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_sock_create_setsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_sock_from_file_proto` (filter.c).
pub const BPF_SOCK_FROM_FILE_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID_OR_NULL,
    args: [ARG_PTR_TO_BTF_ID, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["file", "", "", "", ""],
    ret_btf: "socket",
    ..FuncProto::NONE
};
/// `bpf_sock_ops_cb_flags_set_proto` (filter.c).
pub const BPF_SOCK_OPS_CB_FLAGS_SET_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sock_ops_getsockopt_proto` (filter.c).
pub const BPF_SOCK_OPS_GETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_sock_ops_getsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_sock_ops_load_hdr_opt_proto` (filter.c).
pub const BPF_SOCK_OPS_LOAD_HDR_OPT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_WRITE, ARG_MEM_SIZE, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sock_ops_reserve_hdr_opt_proto` (filter.c).
pub const BPF_SOCK_OPS_RESERVE_HDR_OPT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sock_ops_setsockopt_proto` (filter.c).
pub const BPF_SOCK_OPS_SETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_sock_ops_setsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_sock_ops_store_hdr_opt_proto` (filter.c).
pub const BPF_SOCK_OPS_STORE_HDR_OPT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_spin_lock_proto` (helpers.c).
pub const BPF_SPIN_LOCK_PROTO: FuncProto = FuncProto {
    ret: RET_VOID,
    args: [ARG_PTR_TO_SPIN_LOCK, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: [BTF_POISON, "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_spin_unlock_proto` (helpers.c).
pub const BPF_SPIN_UNLOCK_PROTO: FuncProto = FuncProto {
    ret: RET_VOID,
    args: [ARG_PTR_TO_SPIN_LOCK, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: [BTF_POISON, "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_strncmp_proto` (helpers.c).
pub const BPF_STRNCMP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_PTR_TO_CONST_STR, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_strtol_proto` (helpers.c).
pub const BPF_STRTOL_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_ANYTHING, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED, ARG_DONTCARE],
    arg_size: [0, 0, 0, 8, 0],
    ..FuncProto::NONE
};
/// `bpf_strtoul_proto` (helpers.c).
pub const BPF_STRTOUL_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_ANYTHING, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_UNINIT | MEM_WRITE | MEM_ALIGNED, ARG_DONTCARE],
    arg_size: [0, 0, 0, 8, 0],
    ..FuncProto::NONE
};
/// `bpf_sys_bpf_proto` (syscall.c).
pub const BPF_SYS_BPF_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    might_sleep: true,
    args: [ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sys_close_proto` (syscall.c).
pub const BPF_SYS_CLOSE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, might_sleep: true, args: [ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sysctl_get_current_value_proto` (cgroup.c).
pub const BPF_SYSCTL_GET_CURRENT_VALUE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sysctl_get_name_proto` (cgroup.c).
pub const BPF_SYSCTL_GET_NAME_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_WRITE, ARG_MEM_SIZE, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sysctl_get_new_value_proto` (cgroup.c).
pub const BPF_SYSCTL_GET_NEW_VALUE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_sysctl_set_new_value_proto` (cgroup.c).
pub const BPF_SYSCTL_SET_NEW_VALUE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_tail_call_proto` (core.c).
pub const BPF_TAIL_CALL_PROTO: FuncProto =
    FuncProto { ret: RET_VOID, args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_task_pt_regs_proto` (bpf_trace.c).
pub const BPF_TASK_PT_REGS_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_BTF_ID,
    gpl_only: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["task_struct", "", "", "", ""],
    ret_btf: "pt_regs",
    ..FuncProto::NONE
};
/// `bpf_task_storage_delete_proto` (bpf_task_storage.c).
pub const BPF_TASK_STORAGE_DELETE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["", "task_struct", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_task_storage_get_proto` (bpf_task_storage.c).
pub const BPF_TASK_STORAGE_GET_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_MAP_VALUE_OR_NULL,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_OR_NULL, ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING, ARG_DONTCARE],
    arg_btf: ["", "task_struct", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_tc_sk_lookup_tcp_proto` (filter.c).
pub const BPF_TC_SK_LOOKUP_TCP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCKET_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_tc_sk_lookup_udp_proto` (filter.c).
pub const BPF_TC_SK_LOOKUP_UDP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCKET_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_tc_skc_lookup_tcp_proto` (filter.c).
pub const BPF_TC_SKC_LOOKUP_TCP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCK_COMMON_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_tcp_check_syncookie_proto` (filter.c).
pub const BPF_TCP_CHECK_SYNCOOKIE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    pkt_access: true,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_tcp_gen_syncookie_proto` (filter.c).
pub const BPF_TCP_GEN_SYNCOOKIE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    pkt_access: true,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_tcp_raw_check_syncookie_ipv4_proto` (filter.c).
pub const BPF_TCP_RAW_CHECK_SYNCOOKIE_IPV4_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    pkt_access: true,
    args: [ARG_PTR_TO_FIXED_SIZE_MEM | MEM_RDONLY, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_RDONLY, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_size: [20, 20, 0, 0, 0],
    ..FuncProto::NONE
};
/// `bpf_tcp_raw_check_syncookie_ipv6_proto` (filter.c).
pub const BPF_TCP_RAW_CHECK_SYNCOOKIE_IPV6_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    pkt_access: true,
    args: [ARG_PTR_TO_FIXED_SIZE_MEM | MEM_RDONLY, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_RDONLY, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_size: [40, 20, 0, 0, 0],
    ..FuncProto::NONE
};
/// `bpf_tcp_raw_gen_syncookie_ipv4_proto` (filter.c).
pub const BPF_TCP_RAW_GEN_SYNCOOKIE_IPV4_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    pkt_access: true,
    args: [ARG_PTR_TO_FIXED_SIZE_MEM | MEM_RDONLY, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_DONTCARE, ARG_DONTCARE],
    arg_size: [20, 0, 0, 0, 0],
    ..FuncProto::NONE
};
/// `bpf_tcp_raw_gen_syncookie_ipv6_proto` (filter.c).
pub const BPF_TCP_RAW_GEN_SYNCOOKIE_IPV6_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    pkt_access: true,
    args: [ARG_PTR_TO_FIXED_SIZE_MEM | MEM_RDONLY, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_DONTCARE, ARG_DONTCARE],
    arg_size: [40, 0, 0, 0, 0],
    ..FuncProto::NONE
};
/// `bpf_tcp_sock_proto` (filter.c).
pub const BPF_TCP_SOCK_PROTO: FuncProto =
    FuncProto { ret: RET_PTR_TO_TCP_SOCK_OR_NULL, args: [ARG_PTR_TO_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_this_cpu_ptr_proto` (helpers.c).
pub const BPF_THIS_CPU_PTR_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_MEM_OR_BTF_ID | MEM_RDONLY,
    args: [ARG_PTR_TO_PERCPU_BTF_ID, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_timer_cancel_proto` (helpers.c).
pub const BPF_TIMER_CANCEL_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_TIMER, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_timer_init_proto` (helpers.c).
pub const BPF_TIMER_INIT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_TIMER, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_timer_set_callback_proto` (helpers.c).
pub const BPF_TIMER_SET_CALLBACK_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_TIMER, ARG_PTR_TO_FUNC, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_timer_start_proto` (helpers.c).
pub const BPF_TIMER_START_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, gpl_only: true, args: [ARG_PTR_TO_TIMER, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_trace_printk_proto` (bpf_trace.c).
pub const BPF_TRACE_PRINTK_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_trace_vprintk_proto` (bpf_trace.c).
pub const BPF_TRACE_VPRINTK_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_PTR_TO_MEM | PTR_MAYBE_NULL | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_unlocked_sk_getsockopt_proto` (filter.c).
pub const BPF_UNLOCKED_SK_GETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_unlocked_sk_getsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_unlocked_sk_setsockopt_proto` (filter.c).
pub const BPF_UNLOCKED_SK_SETSOCKOPT_PROTO: FuncProto = FuncProto {
    func: "bpf_unlocked_sk_setsockopt",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_ANYTHING, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE],
    ..FuncProto::NONE
};
/// `bpf_user_ringbuf_drain_proto` (ringbuf.c).
pub const BPF_USER_RINGBUF_DRAIN_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_FUNC, ARG_PTR_TO_STACK_OR_NULL, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_xdp_adjust_head_proto` (filter.c).
pub const BPF_XDP_ADJUST_HEAD_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_xdp_adjust_meta_proto` (filter.c).
pub const BPF_XDP_ADJUST_META_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_xdp_adjust_tail_proto` (filter.c).
pub const BPF_XDP_ADJUST_TAIL_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_xdp_check_mtu_proto` (filter.c).
pub const BPF_XDP_CHECK_MTU_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_FIXED_SIZE_MEM | MEM_WRITE | MEM_ALIGNED, ARG_ANYTHING, ARG_ANYTHING],
    arg_size: [0, 0, 4, 0, 0],
    ..FuncProto::NONE
};
/// `bpf_xdp_event_output_proto` (filter.c).
pub const BPF_XDP_EVENT_OUTPUT_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    ..FuncProto::NONE
};
/// `bpf_xdp_fib_lookup_proto` (filter.c).
pub const BPF_XDP_FIB_LOOKUP_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_WRITE, ARG_MEM_SIZE, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_xdp_get_buff_len_proto` (filter.c).
pub const BPF_XDP_GET_BUFF_LEN_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_xdp_get_buff_len_trace_proto` (filter.c).
pub const BPF_XDP_GET_BUFF_LEN_TRACE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_BTF_ID, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["xdp_buff", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_xdp_load_bytes_proto` (filter.c).
pub const BPF_XDP_LOAD_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_xdp_output_proto` (filter.c).
pub const BPF_XDP_OUTPUT_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    gpl_only: true,
    args: [ARG_PTR_TO_BTF_ID, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO],
    arg_btf: ["xdp_buff", "", "", "", ""],
    ..FuncProto::NONE
};
/// `bpf_xdp_redirect_map_proto` (filter.c).
pub const BPF_XDP_REDIRECT_MAP_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_xdp_redirect_proto` (filter.c).
pub const BPF_XDP_REDIRECT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `bpf_xdp_sk_lookup_tcp_proto` (filter.c).
pub const BPF_XDP_SK_LOOKUP_TCP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCKET_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_xdp_sk_lookup_udp_proto` (filter.c).
pub const BPF_XDP_SK_LOOKUP_UDP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCKET_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_xdp_skc_lookup_tcp_proto` (filter.c).
pub const BPF_XDP_SKC_LOOKUP_TCP_PROTO: FuncProto = FuncProto {
    ret: RET_PTR_TO_SOCK_COMMON_OR_NULL,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE_OR_ZERO, ARG_ANYTHING, ARG_ANYTHING],
    ..FuncProto::NONE
};
/// `bpf_xdp_store_bytes_proto` (filter.c).
pub const BPF_XDP_STORE_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_MEM | MEM_RDONLY, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `sk_reuseport_load_bytes_proto` (filter.c).
pub const SK_REUSEPORT_LOAD_BYTES_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_DONTCARE], ..FuncProto::NONE };
/// `sk_reuseport_load_bytes_relative_proto` (filter.c).
pub const SK_REUSEPORT_LOAD_BYTES_RELATIVE_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_PTR_TO_UNINIT_MEM, ARG_MEM_SIZE, ARG_ANYTHING], ..FuncProto::NONE };
/// `sk_select_reuseport_proto` (filter.c).
pub const SK_SELECT_REUSEPORT_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `sk_skb_adjust_room_proto` (filter.c).
pub const SK_SKB_ADJUST_ROOM_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE], ..FuncProto::NONE };
/// `sk_skb_change_head_proto` (filter.c).
pub const SK_SKB_CHANGE_HEAD_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `sk_skb_change_tail_proto` (filter.c).
pub const SK_SKB_CHANGE_TAIL_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };
/// `sk_skb_pull_data_proto` (filter.c).
pub const SK_SKB_PULL_DATA_PROTO: FuncProto =
    FuncProto { ret: RET_INTEGER, args: [ARG_PTR_TO_CTX, ARG_ANYTHING, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE], ..FuncProto::NONE };

// Prototypes of files outside the cached 7.3 source subset
// (net/core/sock_map.c, net/core/bpf_sk_storage.c): as in 7.x.

/// `bpf_sock_map_update_proto` (sock_map.c).
pub const BPF_SOCK_MAP_UPDATE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sock_hash_update_proto` (sock_map.c).
pub const BPF_SOCK_HASH_UPDATE_PROTO: FuncProto = FuncProto {
    ret: RET_INTEGER,
    pkt_access: true,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sk_redirect_map_proto` (sock_map.c).
pub const BPF_SK_REDIRECT_MAP_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_redirect_map",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sk_redirect_hash_proto` (sock_map.c).
pub const BPF_SK_REDIRECT_HASH_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_redirect_hash",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_msg_redirect_map_proto` (sock_map.c).
pub const BPF_MSG_REDIRECT_MAP_PROTO: FuncProto = FuncProto {
    func: "bpf_msg_redirect_map",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_msg_redirect_hash_proto` (sock_map.c).
pub const BPF_MSG_REDIRECT_HASH_PROTO: FuncProto = FuncProto {
    func: "bpf_msg_redirect_hash",
    ret: RET_INTEGER,
    args: [ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sk_storage_get_proto` (bpf_sk_storage.c).
pub const BPF_SK_STORAGE_GET_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_storage_get",
    ret: RET_PTR_TO_MAP_VALUE_OR_NULL,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sk_storage_get_cg_sock_proto` (bpf_sk_storage.c).
pub const BPF_SK_STORAGE_GET_CG_SOCK_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_storage_get",
    ret: RET_PTR_TO_MAP_VALUE_OR_NULL,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_CTX, ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sk_storage_delete_proto` (bpf_sk_storage.c).
pub const BPF_SK_STORAGE_DELETE_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_storage_delete",
    ret: RET_INTEGER,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_SOCK_COMMON, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    ..FuncProto::NONE
};
/// `bpf_sk_storage_get_tracing_proto` (bpf_sk_storage.c).
pub const BPF_SK_STORAGE_GET_TRACING_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_storage_get_tracing",
    ret: RET_PTR_TO_MAP_VALUE_OR_NULL,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_OR_NULL, ARG_PTR_TO_MAP_VALUE_OR_NULL, ARG_ANYTHING, ARG_DONTCARE],
    arg_btf: ["", "sock", "", "", ""],
    allowed: Allowed::SkStorageTracing,
    ..FuncProto::NONE
};
/// `bpf_sk_storage_delete_tracing_proto` (bpf_sk_storage.c).
pub const BPF_SK_STORAGE_DELETE_TRACING_PROTO: FuncProto = FuncProto {
    func: "bpf_sk_storage_delete_tracing",
    ret: RET_INTEGER,
    args: [ARG_CONST_MAP_PTR, ARG_PTR_TO_BTF_ID_OR_NULL, ARG_DONTCARE, ARG_DONTCARE, ARG_DONTCARE],
    arg_btf: ["", "sock", "", "", ""],
    allowed: Allowed::SkStorageTracing,
    ..FuncProto::NONE
};
