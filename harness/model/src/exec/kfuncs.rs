//! Kernel functions (kfuncs) by name, with their 7.3 semantics
//! (kernel/bpf/helpers.c, bpf_iter.c), and the dynptr operations helpers
//! and kfuncs share.

use bpf_isa::helper_ids::bpf_func_id;

use super::interp::Flow;
use super::maps::{self, neg};
use super::mem::{Addr, RegionKind};
use super::{ExecError, Runtime};
use crate::limits::BPF_MAX_LOOPS;
use crate::target::Arch;
use crate::verifier::errno::*;
use crate::verifier::kfuncs::dynptr;

/// A kfunc the model implements, or the name of one it does not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kfunc {
    IterNumNew,
    IterNumNext,
    IterNumDestroy,
    IterBitsNew,
    IterBitsNext,
    IterBitsDestroy,
    /// `bpf_rdonly_cast`: the pointer itself.
    Cast,
    /// `bpf_cast_to_kern_ctx`: the kernel's own object behind the ctx
    /// (`struct sk_buff`, `struct xdp_buff`, ...), whose layout the runtime
    /// does not model: reading it through the uapi ctx would give wrong
    /// values, so the run stops as not modelled.
    CastToKernCtx,
    /// Kfuncs with no effect a test run can see (RCU, preemption, IRQ
    /// flags saved to a stack slot).
    Nop,
    DynptrSlice,
    DynptrAdjust,
    DynptrIsNull,
    DynptrIsRdonly,
    DynptrSize,
    DynptrClone,
    /// `bpf_dynptr_memset` and `bpf_dynptr_copy`, on local and ring
    /// buffer dynptrs (contiguous data).
    DynptrMemset,
    DynptrCopy,
    /// The string kfuncs (`bpf_strcmp`, `bpf_strlen`, ...), by kind.
    Str(StrFn),
    /// `bpf_copy_from_user_str`.
    CopyFromUserStr,
    /// `bpf_arena_alloc_pages` (and the non-sleepable variant
    /// `specialize_kfunc` calls in non-sleepable contexts: the same for a
    /// test run).
    ArenaAllocPages,
    /// `bpf_arena_free_pages` (`sleepable`) and
    /// `bpf_arena_free_pages_non_sleepable`, whose free is deferred.
    ArenaFreePages {
        sleepable: bool,
    },
    /// `bpf_arena_reserve_pages`.
    ArenaReservePages,
    /// A call, in the program as loaded, of a kfunc whose behaviour
    /// depends on the function `specialize_kfunc` put in its place, which
    /// only the xlated program shows.
    Specialized(&'static str),
    /// `bpf_dynptr_from_skb` (and its read-only variant),
    /// `bpf_dynptr_from_xdp`, `bpf_xdp_pull_data`: defined in
    /// net/core/filter.c, which the model does not have; a run reaching one
    /// stops as not modelled.
    NetKfunc(&'static str),
    /// `bpf_stream_vprintk` (kernel/bpf/stream.c).
    StreamVprintk,
    /// `bpf_stream_print_stack`.
    StreamPrintStack,
    Unknown(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrFn {
    Cmp,
    CaseCmp,
    NCaseCmp,
    NChr,
    Chr,
    ChrNul,
    RChr,
    NLen,
    Len,
    Spn,
    CSpn,
    Str,
    CaseStr,
    NStr,
    NCaseStr,
}

impl Kfunc {
    /// A kfunc of the program as loaded, by its BTF name.
    pub fn as_loaded(name: &str) -> Kfunc {
        match name {
            "bpf_arena_free_pages" => Kfunc::Specialized("bpf_arena_free_pages"),
            n => Kfunc::by_name(n),
        }
    }

    /// The kernel function a call reaches, by name.
    pub fn by_name(name: &str) -> Kfunc {
        use Kfunc::*;
        match name {
            "bpf_iter_num_new" => IterNumNew,
            "bpf_iter_num_next" => IterNumNext,
            "bpf_iter_num_destroy" => IterNumDestroy,
            "bpf_iter_bits_new" => IterBitsNew,
            "bpf_iter_bits_next" => IterBitsNext,
            "bpf_iter_bits_destroy" => IterBitsDestroy,
            "bpf_rdonly_cast" => Cast,
            "bpf_cast_to_kern_ctx" => CastToKernCtx,
            "bpf_rcu_read_lock" | "bpf_rcu_read_unlock" | "bpf_preempt_disable" | "bpf_preempt_enable" | "bpf_local_irq_save" | "bpf_local_irq_restore" => Nop,
            "bpf_dynptr_slice" | "bpf_dynptr_slice_rdwr" => DynptrSlice,
            "bpf_dynptr_adjust" => DynptrAdjust,
            "bpf_dynptr_is_null" => DynptrIsNull,
            "bpf_dynptr_is_rdonly" => DynptrIsRdonly,
            "bpf_dynptr_size" => DynptrSize,
            "bpf_dynptr_clone" => DynptrClone,
            "bpf_dynptr_memset" => DynptrMemset,
            "bpf_dynptr_copy" => DynptrCopy,
            "bpf_strcmp" => Str(StrFn::Cmp),
            "bpf_strcasecmp" => Str(StrFn::CaseCmp),
            "bpf_strncasecmp" => Str(StrFn::NCaseCmp),
            "bpf_strnchr" => Str(StrFn::NChr),
            "bpf_strchr" => Str(StrFn::Chr),
            "bpf_strchrnul" => Str(StrFn::ChrNul),
            "bpf_strrchr" => Str(StrFn::RChr),
            "bpf_strnlen" => Str(StrFn::NLen),
            "bpf_strlen" => Str(StrFn::Len),
            "bpf_strspn" => Str(StrFn::Spn),
            "bpf_strcspn" => Str(StrFn::CSpn),
            "bpf_strstr" => Str(StrFn::Str),
            "bpf_strcasestr" => Str(StrFn::CaseStr),
            "bpf_strnstr" => Str(StrFn::NStr),
            "bpf_strncasestr" => Str(StrFn::NCaseStr),
            "bpf_copy_from_user_str" => CopyFromUserStr,
            "bpf_arena_alloc_pages" | "bpf_arena_alloc_pages_non_sleepable" => ArenaAllocPages,
            "bpf_arena_free_pages" => ArenaFreePages { sleepable: true },
            "bpf_arena_free_pages_non_sleepable" => ArenaFreePages { sleepable: false },
            "bpf_arena_reserve_pages" => ArenaReservePages,
            "bpf_dynptr_from_skb" => NetKfunc("bpf_dynptr_from_skb"),
            "bpf_dynptr_from_skb_rdonly" => NetKfunc("bpf_dynptr_from_skb_rdonly"),
            "bpf_dynptr_from_xdp" => NetKfunc("bpf_dynptr_from_xdp"),
            "bpf_dynptr_from_skb_meta" => NetKfunc("bpf_dynptr_from_skb_meta"),
            "bpf_xdp_pull_data" => NetKfunc("bpf_xdp_pull_data"),
            "bpf_stream_vprintk" => StreamVprintk,
            "bpf_stream_print_stack" => StreamPrintStack,
            _ => Unknown(name.to_string()),
        }
    }
}

fn fault(f: super::mem::Fault) -> ExecError {
    ExecError::Fault { pc: 0, fault: f }
}

/// Calls kfunc `k` with r1-r5.
pub(crate) fn call(rt: &mut Runtime, k: &Kfunc, a: [u64; 5]) -> Result<Flow, ExecError> {
    let ret = match k {
        Kfunc::IterNumNew => {
            let (start, end) = (a[1] as i32, a[2] as i32);
            let (cur, end, ret) = if start > end {
                (0, 0, neg(EINVAL))
            } else if end.wrapping_sub(start) as u32 > BPF_MAX_LOOPS {
                (0, 0, neg(E2BIG))
            } else {
                (start.wrapping_sub(1), end, 0)
            };
            rt.mem.store(a[0], 4, cur as u32 as u64).map_err(fault)?;
            rt.mem.store(a[0].wrapping_add(4), 4, end as u32 as u64).map_err(fault)?;
            ret
        }
        Kfunc::IterNumNext => {
            let cur = rt.mem.load(a[0], 4).map_err(fault)? as i32;
            let end = rt.mem.load(a[0].wrapping_add(4), 4).map_err(fault)? as i32;
            if cur.wrapping_add(1) >= end {
                rt.mem.store(a[0], 8, 0).map_err(fault)?;
                0
            } else {
                rt.mem.store(a[0], 4, cur.wrapping_add(1) as u32 as u64).map_err(fault)?;
                a[0]
            }
        }
        Kfunc::IterNumDestroy | Kfunc::Nop => 0,
        Kfunc::IterBitsNew => iter_bits_new(rt, a[0], a[1], a[2] as u32)?,
        Kfunc::IterBitsNext => iter_bits_next(rt, a[0])?,
        Kfunc::IterBitsDestroy => {
            let nr_bits = rt.mem.load(a[0].wrapping_add(8), 4).map_err(fault)? as i32;
            if nr_bits > 64 {
                let bits = rt.mem.load(a[0], 8).map_err(fault)?;
                rt.mem.free(bits);
            }
            0
        }
        Kfunc::Cast => a[0],
        Kfunc::CastToKernCtx => {
            return Err(ExecError::Unsupported("bpf_cast_to_kern_ctx: the kernel's ctx object (struct sk_buff, ...) is not modelled".into()));
        }
        Kfunc::DynptrSlice => {
            // (dynptr, offset, buffer, buffer size): a pointer into the data
            let d = Dynptr::read(rt, a[0])?;
            let len = a[3];
            if d.data == 0 || d.check(a[1], len).is_err() {
                0
            } else {
                match d.kind() {
                    dynptr::LOCAL | dynptr::RINGBUF => d.data.wrapping_add(d.offset as u64).wrapping_add(a[1]),
                    dynptr::SKB | dynptr::XDP => {
                        let p = rt.env.pkt.unwrap_or_default();
                        (p.buf + p.data).wrapping_add(d.offset as u64).wrapping_add(a[1])
                    }
                    _ => 0,
                }
            }
        }
        Kfunc::DynptrAdjust => {
            let mut d = Dynptr::read(rt, a[0])?;
            let (start, end) = (a[1], a[2]);
            if d.data == 0 || start > end {
                neg(EINVAL)
            } else if end > d.size() {
                neg(ERANGE)
            } else {
                d.offset = d.offset.wrapping_add(start as u32);
                d.set_size(end - start);
                d.write(rt, a[0])?;
                0
            }
        }
        Kfunc::DynptrIsNull => (Dynptr::read(rt, a[0])?.data == 0) as u64,
        Kfunc::DynptrIsRdonly => {
            let d = Dynptr::read(rt, a[0])?;
            (d.data != 0 && d.rdonly()) as u64
        }
        Kfunc::DynptrSize => {
            let d = Dynptr::read(rt, a[0])?;
            if d.data == 0 { neg(EINVAL) } else { d.size() }
        }
        Kfunc::DynptrClone => {
            let d = Dynptr::read(rt, a[0])?;
            if d.data == 0 {
                Dynptr::default().write(rt, a[1])?;
                neg(EINVAL)
            } else {
                d.write(rt, a[1])?;
                0
            }
        }
        Kfunc::DynptrMemset => dynptr_memset(rt, a[0], a[1], a[2], a[3] as u8)?,
        Kfunc::DynptrCopy => dynptr_copy(rt, a[0], a[1], a[2], a[3], a[4])?,
        Kfunc::Str(f) => string_kfunc(rt, *f, a)?,
        Kfunc::CopyFromUserStr => copy_from_user_str(rt, a[0], a[1] as u32, a[3])?,
        // the map must be the arena; `flags` must be 0
        Kfunc::ArenaAllocPages => match arena_of(rt, "bpf_arena_alloc_pages", a[0])? {
            Some(ar) if a[4] == 0 && a[2] as u32 != 0 => ar.arena_alloc_pages(a[1], a[2] as u32, a[3] as i32),
            _ => 0,
        },
        Kfunc::ArenaReservePages => match arena_of(rt, "bpf_arena_reserve_pages", a[0])? {
            Some(_) if a[2] as u32 == 0 => 0,
            Some(ar) => ar.arena_reserve_pages(a[1], a[2] as u32) as u64,
            None => neg(EINVAL),
        },
        Kfunc::NetKfunc(name) => {
            return Err(ExecError::Unsupported(format!("{name} (net/core/filter.c, not in the kernel source the model reads)")));
        }
        Kfunc::Specialized(name) => {
            return Err(ExecError::Unsupported(format!("{name} in the program as loaded (whether specialize_kfunc made it the non-sleepable variant)")));
        }
        Kfunc::ArenaFreePages { sleepable } => {
            if let Some(ar) = arena_of(rt, "bpf_arena_free_pages", a[0])?
                && a[2] as u32 != 0
                && a[1] != 0
            {
                ar.arena_free_pages(a[1], a[2] as u32, *sleepable);
            }
            0
        }
        Kfunc::StreamVprintk => stream_vprintk(rt, a[0] as i32, a[1], a[2], a[3] as u32)?,
        Kfunc::StreamPrintStack => match bpf_stream_get(a[0] as i32) {
            // the dump's text goes to the stream, which no test run reads
            Some(_) => 0,
            None => neg(ENOENT),
        },
        Kfunc::Unknown(name) => return Err(ExecError::Unsupported(format!("kfunc {name}"))),
    };
    Ok(Flow::Ret(ret))
}

/// `BPF_STREAM_MAX_CAPACITY`: what a program's stream may hold.
const BPF_STREAM_MAX_CAPACITY: u32 = 100 * 1000;
/// `MAX_BPRINTF_VARARGS`, `MAX_BPRINTF_BUF`.
const MAX_BPRINTF_VARARGS: u32 = 12;
const MAX_BPRINTF_BUF: usize = 512;

/// `bpf_stream_get`: the index of `BPF_STDOUT` (1) or `BPF_STDERR` (2) in
/// `prog->aux->stream`.
fn bpf_stream_get(stream_id: i32) -> Option<usize> {
    matches!(stream_id, 1 | 2).then(|| stream_id as usize - 1)
}

/// `bpf_stream_vprintk`: formats `fmt` with the `len` bytes of arguments
/// at `args` and pushes the text to the stream, within its capacity
/// (`bpf_stream_consume_capacity`). Formats with conversions stop the run
/// as not modelled.
fn stream_vprintk(rt: &mut Runtime, stream_id: i32, fmt: Addr, args: Addr, len: u32) -> Result<u64, ExecError> {
    let Some(i) = bpf_stream_get(stream_id) else { return Ok(neg(ENOENT)) };
    if len & 7 != 0 || len > MAX_BPRINTF_VARARGS * 8 || (len != 0 && args == 0) {
        return Ok(neg(EINVAL));
    }
    // the verifier saw a constant string: it is NUL-terminated
    let (text, _) = rt.mem.read_cstr(fmt, usize::MAX).map_err(fault)?;
    // bpf_bprintf_prepare: ASCII control bytes other than white space are
    // refused
    if text.iter().any(|&c| c.is_ascii() && c.is_ascii_control() && !c.is_ascii_whitespace() && c != 0x0b) {
        return Ok(neg(EINVAL));
    }
    if text.contains(&b'%') {
        return Err(ExecError::Unsupported("bpf_stream_vprintk of a format with conversions (bpf_bprintf_prepare, bstr_printf)".into()));
    }
    // bstr_printf writes at most MAX_BPRINTF_BUF bytes with the NUL; the
    // push leaves the NUL out
    let n = text.len().min(MAX_BPRINTF_BUF - 1) as u32;
    let cap = &mut rt.stream_capacity[i];
    if *cap >= BPF_STREAM_MAX_CAPACITY || cap.saturating_add(n) >= BPF_STREAM_MAX_CAPACITY {
        return Ok(neg(ENOSPC));
    }
    *cap += n;
    Ok(0)
}

/// The run's arena when `map` (a kfunc's `p__map`) is the arena map, `None`
/// for another map (the kfunc's `map_type != BPF_MAP_TYPE_ARENA` check).
fn arena_of<'a>(rt: &'a mut Runtime, kfunc: &str, map: Addr) -> Result<Option<&'a mut super::arena::Arena>, ExecError> {
    let Some(i) = rt.map_at(map) else {
        return Err(ExecError::Unsupported(format!("{kfunc}: a map argument that is not one of the run's maps")));
    };
    if rt.maps[i].def.map_type != crate::map::types::BPF_MAP_TYPE_ARENA {
        return Ok(None);
    }
    match rt.arena.as_mut() {
        Some(ar) => Ok(Some(ar)),
        None => Err(ExecError::Unsupported(format!("{kfunc} without an arena"))),
    }
}

const BITS_ITER_NR_WORDS_MAX: u32 = 511;

/// `bpf_iter_bits_new(it, ptr, nr_words)`: `{ bits or bits_copy, nr_bits, bit }`.
fn iter_bits_new(rt: &mut Runtime, it: Addr, ptr: Addr, nr_words: u32) -> Result<u64, ExecError> {
    rt.mem.store(it, 8, 0).map_err(fault)?;
    rt.mem.store(it.wrapping_add(8), 4, 0).map_err(fault)?;
    rt.mem.store(it.wrapping_add(12), 4, u32::MAX as u64).map_err(fault)?;
    if ptr == 0 || nr_words == 0 {
        return Ok(neg(EINVAL));
    }
    if nr_words > BITS_ITER_NR_WORDS_MAX {
        return Ok(neg(E2BIG));
    }
    let nr_bytes = nr_words as usize * 8;
    let Ok(bits) = rt.mem.read(ptr, nr_bytes).map(<[u8]>::to_vec) else {
        return Ok(neg(EFAULT));
    };
    if nr_words == 1 {
        rt.mem.write(it, &bits).map_err(fault)?;
    } else {
        let copy = rt.mem.alloc(RegionKind::Scratch, bits, false).map_err(fault)?;
        rt.mem.store(it, 8, copy).map_err(fault)?;
    }
    rt.mem.store(it.wrapping_add(8), 4, nr_bytes as u64 * 8).map_err(fault)?;
    Ok(0)
}

fn iter_bits_next(rt: &mut Runtime, it: Addr) -> Result<u64, ExecError> {
    let nr_bits = rt.mem.load(it.wrapping_add(8), 4).map_err(fault)? as i32;
    let bit = rt.mem.load(it.wrapping_add(12), 4).map_err(fault)? as i32;
    if nr_bits == 0 || bit >= nr_bits {
        return Ok(0);
    }
    let bits_at = if nr_bits == 64 { it } else { rt.mem.load(it, 8).map_err(fault)? };
    let words = rt.mem.read(bits_at, nr_bits as usize / 8).map_err(fault)?.to_vec();
    let mut next = nr_bits;
    for b in (bit.wrapping_add(1).max(0))..nr_bits {
        let (w, i) = (b as usize / 8, b as usize % 8);
        if words[w] >> i & 1 != 0 {
            next = b;
            break;
        }
    }
    rt.mem.store(it.wrapping_add(12), 4, next as u32 as u64).map_err(fault)?;
    Ok(if next >= nr_bits { 0 } else { it.wrapping_add(12) })
}

/// `BPF_F_PAD_ZEROS`.
const BPF_F_PAD_ZEROS: u64 = 1;

/// `bpf_copy_from_user_str(dst, dst__sz, unsafe_ptr, flags)`: a test run
/// has no user memory, so `strncpy_from_user` of the `dst__sz - 1` bytes
/// faults unless it is asked for none.
fn copy_from_user_str(rt: &mut Runtime, dst: Addr, dst_sz: u32, flags: u64) -> Result<u64, ExecError> {
    if flags & !BPF_F_PAD_ZEROS != 0 {
        return Ok(neg(EINVAL));
    }
    if dst_sz == 0 {
        return Ok(0);
    }
    if dst_sz - 1 > 0 {
        if flags & BPF_F_PAD_ZEROS != 0 {
            rt.mem.zero(dst, dst_sz as usize).map_err(fault)?;
        }
        return Ok(neg(EFAULT));
    }
    // nothing copied: the NUL alone (the whole buffer with BPF_F_PAD_ZEROS)
    rt.mem.zero(dst, 1).map_err(fault)?;
    Ok(1)
}

const XATTR_SIZE_MAX: usize = 65536;

/// One byte of a string kfunc's read; `None` for a fault.
fn byte(rt: &Runtime, addr: Addr) -> Option<i32> {
    let b = rt.mem.load(addr, 1).ok()? as u8;
    // `char` is signed on x86-64 and unsigned on arm64
    Some(char_of(rt.opts.arch, b))
}

/// The `char` value of byte `b` on `arch`.
fn char_of(arch: Arch, b: u8) -> i32 {
    if arch == Arch::X86_64 { b as i8 as i32 } else { b as i32 }
}

/// `tolower` of a `char`, stored back in a `char`: the kernel's ctype is
/// Latin-1, whose upper case letters are A-Z and 0xc0-0xde but 0xd7.
fn lower(arch: Arch, c: i32) -> i32 {
    let b = c as u8;
    let upper = b.is_ascii_uppercase() || ((0xc0..=0xde).contains(&b) && b != 0xd7);
    char_of(arch, if upper { b + 32 } else { b })
}

fn string_kfunc(rt: &mut Runtime, f: StrFn, a: [u64; 5]) -> Result<u64, ExecError> {
    use StrFn::*;
    let arch = rt.opts.arch;
    let two = matches!(f, Cmp | CaseCmp | NCaseCmp | Spn | CSpn | Str | CaseStr | NStr | NCaseStr);
    if !rt.kernel_addr_ok(a[0]) || (two && !rt.kernel_addr_ok(a[1])) {
        return Ok(neg(ERANGE));
    }
    let efault = neg(EFAULT);
    macro_rules! get {
        ($addr:expr) => {
            match byte(rt, $addr) {
                Some(c) => c,
                None => return Ok(efault),
            }
        };
    }
    let r: i64 = match f {
        Cmp | CaseCmp | NCaseCmp => {
            let ignore = f != Cmp;
            let len = if f == NCaseCmp { a[2] as usize } else { XATTR_SIZE_MAX };
            let mut i = 0;
            while i < len && i < XATTR_SIZE_MAX {
                let (mut c1, mut c2) = (get!(a[0].wrapping_add(i as u64)), get!(a[1].wrapping_add(i as u64)));
                if ignore {
                    c1 = lower(arch, c1);
                    c2 = lower(arch, c2);
                }
                if c1 != c2 {
                    return Ok(if c1 < c2 { -1i64 as u64 } else { 1 });
                }
                if c1 == 0 {
                    return Ok(0);
                }
                i += 1;
            }
            if i == XATTR_SIZE_MAX { -(E2BIG as i64) } else { 0 }
        }
        NChr | Chr => {
            let count = if f == NChr { a[1] as usize } else { XATTR_SIZE_MAX };
            let c = char_of(arch, if f == NChr { a[2] } else { a[1] } as u8);
            let mut i = 0;
            loop {
                if i >= count || i >= XATTR_SIZE_MAX {
                    break if i == XATTR_SIZE_MAX { -(E2BIG as i64) } else { -(ENOENT as i64) };
                }
                let sc = get!(a[0].wrapping_add(i as u64));
                if sc == c {
                    break i as i64;
                }
                if sc == 0 {
                    break -(ENOENT as i64);
                }
                i += 1;
            }
        }
        ChrNul => {
            let c = char_of(arch, a[1] as u8);
            let mut r = -(E2BIG as i64);
            for i in 0..XATTR_SIZE_MAX {
                let sc = get!(a[0].wrapping_add(i as u64));
                if sc == 0 || sc == c {
                    r = i as i64;
                    break;
                }
            }
            r
        }
        RChr => {
            let c = a[1] as i32;
            let mut last = -(ENOENT as i64);
            let mut r = -(E2BIG as i64);
            for i in 0..XATTR_SIZE_MAX {
                let sc = get!(a[0].wrapping_add(i as u64));
                if sc == c {
                    last = i as i64;
                }
                if sc == 0 {
                    r = last;
                    break;
                }
            }
            r
        }
        NLen | Len => {
            let count = if f == NLen { a[1] as usize } else { XATTR_SIZE_MAX };
            let mut i = 0;
            loop {
                if i >= count || i >= XATTR_SIZE_MAX {
                    break if i == XATTR_SIZE_MAX { -(E2BIG as i64) } else { i as i64 };
                }
                if get!(a[0].wrapping_add(i as u64)) == 0 {
                    break i as i64;
                }
                i += 1;
            }
        }
        Spn | CSpn => {
            let mut r = -(E2BIG as i64);
            'outer: for i in 0..XATTR_SIZE_MAX {
                let cs = get!(a[0].wrapping_add(i as u64));
                if cs == 0 {
                    r = i as i64;
                    break;
                }
                let mut j = 0;
                let mut ca = 0;
                while j < XATTR_SIZE_MAX {
                    ca = get!(a[1].wrapping_add(j as u64));
                    if cs == ca || ca == 0 {
                        break;
                    }
                    j += 1;
                }
                if j == XATTR_SIZE_MAX {
                    r = -(E2BIG as i64);
                    break 'outer;
                }
                if (f == Spn && ca == 0) || (f == CSpn && ca != 0) {
                    r = i as i64;
                    break;
                }
            }
            r
        }
        Str | CaseStr | NStr | NCaseStr => {
            let ignore = matches!(f, CaseStr | NCaseStr);
            let len = if matches!(f, NStr | NCaseStr) { a[2] as usize } else { XATTR_SIZE_MAX };
            let mut r = -(E2BIG as i64);
            'outer: for i in 0..XATTR_SIZE_MAX {
                let s1 = a[0].wrapping_add(i as u64);
                let mut j = 0;
                while i + j <= len && j < XATTR_SIZE_MAX {
                    let mut c2 = get!(a[1].wrapping_add(j as u64));
                    if c2 == 0 {
                        r = i as i64;
                        break 'outer;
                    }
                    if i + j == len {
                        break;
                    }
                    let mut c1 = get!(s1.wrapping_add(j as u64));
                    if ignore {
                        c1 = lower(arch, c1);
                        c2 = lower(arch, c2);
                    }
                    if c1 == 0 {
                        r = -(ENOENT as i64);
                        break 'outer;
                    }
                    if c1 != c2 {
                        break;
                    }
                    j += 1;
                }
                if j == XATTR_SIZE_MAX {
                    r = -(E2BIG as i64);
                    break;
                }
                if i + j == len {
                    r = -(ENOENT as i64);
                    break;
                }
            }
            r
        }
    };
    Ok(r as i32 as i64 as u64)
}

// ---- dynptrs (`struct bpf_dynptr_kern`: data, size with type and rdonly bits, offset)

const DYNPTR_MAX_SIZE: u64 = (1 << 24) - 1;
const DYNPTR_TYPE_SHIFT: u32 = 28;
const DYNPTR_SIZE_MASK: u32 = 0xff_ffff;
const DYNPTR_RDONLY_BIT: u32 = 1 << 31;

#[derive(Clone, Copy, Debug, Default)]
struct Dynptr {
    data: Addr,
    size: u32,
    offset: u32,
}

impl Dynptr {
    fn read(rt: &Runtime, at: Addr) -> Result<Dynptr, ExecError> {
        use crate::kernel_layout::{OFFSETOF_BPF_DYNPTR_KERN_DATA as DATA, OFFSETOF_BPF_DYNPTR_KERN_OFFSET as OFFSET, OFFSETOF_BPF_DYNPTR_KERN_SIZE as SIZE};
        Ok(Dynptr {
            data: rt.mem.load(at.wrapping_add(DATA as u64), 8).map_err(fault)?,
            size: rt.mem.load(at.wrapping_add(SIZE as u64), 4).map_err(fault)? as u32,
            offset: rt.mem.load(at.wrapping_add(OFFSET as u64), 4).map_err(fault)? as u32,
        })
    }
    fn write(&self, rt: &mut Runtime, at: Addr) -> Result<(), ExecError> {
        use crate::kernel_layout::{OFFSETOF_BPF_DYNPTR_KERN_DATA as DATA, OFFSETOF_BPF_DYNPTR_KERN_OFFSET as OFFSET, OFFSETOF_BPF_DYNPTR_KERN_SIZE as SIZE};
        rt.mem.store(at.wrapping_add(DATA as u64), 8, self.data).map_err(fault)?;
        rt.mem.store(at.wrapping_add(SIZE as u64), 4, self.size as u64).map_err(fault)?;
        rt.mem.store(at.wrapping_add(OFFSET as u64), 4, self.offset as u64).map_err(fault)
    }
    fn new(data: Addr, kind: u32, size: u32) -> Dynptr {
        Dynptr { data, size: size | (kind << DYNPTR_TYPE_SHIFT), offset: 0 }
    }
    fn kind(&self) -> u32 {
        (self.size & !DYNPTR_RDONLY_BIT) >> DYNPTR_TYPE_SHIFT
    }
    fn rdonly(&self) -> bool {
        self.size & DYNPTR_RDONLY_BIT != 0
    }
    fn size(&self) -> u64 {
        (self.size & DYNPTR_SIZE_MASK) as u64
    }
    fn set_size(&mut self, n: u64) {
        self.size = (n as u32) | (self.size & !DYNPTR_SIZE_MASK);
    }
    fn check(&self, off: u64, len: u64) -> Result<(), u64> {
        let size = self.size();
        if len > size || off > size - len { Err(neg(E2BIG)) } else { Ok(()) }
    }
    /// The address of byte `off` of the data (local and ring buffer kinds;
    /// skb and xdp data is the packet's).
    fn at(&self, rt: &Runtime, off: u64) -> Addr {
        match self.kind() {
            dynptr::SKB | dynptr::XDP => {
                let p = rt.env.pkt.unwrap_or_default();
                (p.buf + p.data).wrapping_add(self.offset as u64).wrapping_add(off)
            }
            _ => self.data.wrapping_add(self.offset as u64).wrapping_add(off),
        }
    }
}

/// `bpf_dynptr_from_mem(data, size, flags, ptr)`.
pub(crate) fn dynptr_from_mem(rt: &mut Runtime, data: Addr, size: u32, flags: u64, ptr: Addr) -> Result<u64, ExecError> {
    if size as u64 > DYNPTR_MAX_SIZE {
        Dynptr::default().write(rt, ptr)?;
        return Ok(neg(E2BIG));
    }
    if flags != 0 {
        Dynptr::default().write(rt, ptr)?;
        return Ok(neg(EINVAL));
    }
    Dynptr::new(data, dynptr::LOCAL, size).write(rt, ptr)?;
    Ok(0)
}

/// `bpf_dynptr_read(dst, len, src, offset, flags)`.
pub(crate) fn dynptr_read(rt: &mut Runtime, dst: Addr, len: u32, src: Addr, offset: u32, flags: u64) -> Result<u64, ExecError> {
    let d = Dynptr::read(rt, src)?;
    if d.data == 0 || flags != 0 {
        return Ok(neg(EINVAL));
    }
    if let Err(e) = d.check(offset as u64, len as u64) {
        return Ok(e);
    }
    let from = d.at(rt, offset as u64);
    rt.mem.copy(dst, from, len as usize).map_err(fault)?;
    Ok(0)
}

/// `bpf_dynptr_write(dst, offset, src, len, flags)`.
pub(crate) fn dynptr_write(rt: &mut Runtime, dst: Addr, offset: u32, src: Addr, len: u32, flags: u64) -> Result<u64, ExecError> {
    let d = Dynptr::read(rt, dst)?;
    if d.data == 0 || d.rdonly() {
        return Ok(neg(EINVAL));
    }
    if let Err(e) = d.check(offset as u64, len as u64) {
        return Ok(e);
    }
    if flags != 0 && d.kind() != dynptr::SKB {
        return Ok(neg(EINVAL));
    }
    let to = d.at(rt, offset as u64);
    rt.mem.copy(to, src, len as usize).map_err(fault)?;
    Ok(0)
}

/// A dynptr whose data the run holds in one piece (local, ring buffer, or
/// NULL); skb and xdp data may be paged in 7.3, which the run does not
/// model.
fn contiguous_dynptr(d: &Dynptr, kfunc: &str) -> Result<(), ExecError> {
    if d.data == 0 || matches!(d.kind(), dynptr::LOCAL | dynptr::RINGBUF) {
        return Ok(());
    }
    Err(ExecError::Unsupported(format!("{kfunc} of a {} dynptr", crate::verifier::kfuncs::dynptr_type_str(d.kind()))))
}

/// Whether `bpf_dynptr_slice` (`writable`: `bpf_dynptr_slice_rdwr`) of a
/// contiguous dynptr gives a pointer for `len` bytes at `off`.
fn has_slice(d: &Dynptr, off: u64, len: u64, writable: bool) -> bool {
    d.data != 0 && d.check(off, len).is_ok() && !(writable && d.rdonly())
}

/// What `__bpf_dynptr_write` of `len` bytes at `off` returns where no
/// writable slice was had: an error.
fn dynptr_write_error(d: &Dynptr, off: u64, len: u64) -> u64 {
    if d.data == 0 || d.rdonly() { neg(EINVAL) } else { d.check(off, len).err().unwrap_or(0) }
}

/// `bpf_dynptr_memset(p, offset, size, val)`.
fn dynptr_memset(rt: &mut Runtime, p: Addr, offset: u64, size: u64, val: u8) -> Result<u64, ExecError> {
    let d = Dynptr::read(rt, p)?;
    contiguous_dynptr(&d, "bpf_dynptr_memset")?;
    if has_slice(&d, offset, size, true) {
        let to = d.at(rt, offset);
        rt.mem.write(to, &vec![val; size as usize]).map_err(fault)?;
        return Ok(0);
    }
    if d.rdonly() {
        return Ok(neg(EINVAL));
    }
    if let Err(e) = d.check(offset, size) {
        return Ok(e);
    }
    // a NULL dynptr, whose size 0 the check let pass: nothing to write
    Ok(0)
}

/// `bpf_dynptr_copy(dst, dst_off, src, src_off, size)`.
fn dynptr_copy(rt: &mut Runtime, dst_at: Addr, dst_off: u64, src_at: Addr, src_off: u64, size: u64) -> Result<u64, ExecError> {
    let (dst, src) = (Dynptr::read(rt, dst_at)?, Dynptr::read(rt, src_at)?);
    contiguous_dynptr(&dst, "bpf_dynptr_copy")?;
    contiguous_dynptr(&src, "bpf_dynptr_copy")?;
    let (src_slice, dst_slice) = (has_slice(&src, src_off, size, false), has_slice(&dst, dst_off, size, true));
    if src_slice && dst_slice {
        let (to, from) = (dst.at(rt, dst_off), src.at(rt, src_off));
        rt.mem.copy(to, from, size as usize).map_err(fault)?;
        return Ok(0);
    }
    if src_slice {
        return Ok(dynptr_write_error(&dst, dst_off, size));
    }
    if dst_slice {
        // __bpf_dynptr_read from a source with no slice
        return Ok(if src.data == 0 { neg(EINVAL) } else { src.check(src_off, size).err().unwrap_or(0) });
    }
    if dst.check(dst_off, size).is_err() || src.check(src_off, size).is_err() {
        return Ok(neg(E2BIG));
    }
    // a NULL source (or destination) of size 0 passed the checks: the
    // chunked copy has nothing to copy
    Ok(0)
}

/// `bpf_dynptr_data(ptr, offset, len)`: a pointer, or NULL.
pub(crate) fn dynptr_data(rt: &mut Runtime, ptr: Addr, offset: u32, len: u32) -> Result<u64, ExecError> {
    let d = Dynptr::read(rt, ptr)?;
    if d.data == 0 || d.check(offset as u64, len as u64).is_err() || d.rdonly() {
        return Ok(0);
    }
    Ok(match d.kind() {
        dynptr::LOCAL | dynptr::RINGBUF => d.data.wrapping_add(d.offset as u64).wrapping_add(offset as u64),
        _ => 0,
    })
}

/// `bpf_ringbuf_{reserve,submit,discard}_dynptr`.
pub(crate) fn ringbuf_dynptr(rt: &mut Runtime, helper: i32, a: [u64; 5]) -> Result<u64, ExecError> {
    if helper == bpf_func_id::RINGBUF_RESERVE_DYNPTR {
        let m = rt.map_at(a[0]).ok_or_else(|| ExecError::BadInsn { pc: 0, why: "ringbuf_reserve_dynptr: not a map".into() })?;
        let (size, flags, ptr) = (a[1] as u32, a[2], a[3]);
        if flags != 0 {
            Dynptr::default().write(rt, ptr)?;
            return Ok(neg(EINVAL));
        }
        if size as u64 > DYNPTR_MAX_SIZE {
            Dynptr::default().write(rt, ptr)?;
            return Ok(neg(E2BIG));
        }
        let sample = rt.maps[m].ringbuf_reserve(&mut rt.mem, size as u64).map_err(fault)?;
        if sample == 0 {
            Dynptr::default().write(rt, ptr)?;
            return Ok(neg(EINVAL));
        }
        Dynptr::new(sample, dynptr::RINGBUF, size).write(rt, ptr)?;
        return Ok(0);
    }
    let d = Dynptr::read(rt, a[0])?;
    if d.data != 0 {
        maps::ringbuf_commit(&mut rt.mem, d.data, helper == bpf_func_id::RINGBUF_DISCARD_DYNPTR).map_err(fault)?;
    }
    Dynptr::default().write(rt, a[0])?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolower_is_latin1_and_stays_a_char() {
        // x86-64: a signed char
        assert_eq!(lower(Arch::X86_64, b'Q' as i32), b'q' as i32);
        assert_eq!(lower(Arch::X86_64, 0xc0u8 as i8 as i32), 0xe0u8 as i8 as i32);
        assert_eq!(lower(Arch::X86_64, 0xd7u8 as i8 as i32), 0xd7u8 as i8 as i32);
        assert_eq!(lower(Arch::X86_64, 0xdfu8 as i8 as i32), 0xdfu8 as i8 as i32);
        // arm64: an unsigned char
        assert_eq!(lower(Arch::Arm64, 0xde), 0xfe);
        assert_eq!(lower(Arch::Arm64, b'[' as i32), b'[' as i32);
    }
}
