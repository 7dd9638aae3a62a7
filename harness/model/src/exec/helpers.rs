//! Helpers (`BPF_FUNC_*`) with the semantics of their 7.3 implementations
//! (kernel/bpf/helpers.c, net/core/filter.c, kernel/trace/bpf_trace.c),
//! within what a test run can observe: one CPU, the loopback device, no
//! sockets to look up, a fake clock and a seeded PRNG. Helpers the model
//! does not implement fail the run with [`ExecError::Unsupported`] rather
//! than guess.

use super::interp::Flow;
use super::maps::{self, NR_CPUS, Store, neg};
use super::mem::{Addr, RegionKind};
use super::{ExecError, Runtime};
use crate::kernel_layout::SIZEOF_XDP_FRAME;
use crate::limits::BPF_MAX_LOOPS;
use crate::target::Arch;
use crate::verifier::errno::*;

/// `enum bpf_func_id`.
use bpf_isa::helper_ids::bpf_func_id as id;

/// What `bpf_get_current_pid_tgid` reports: the test process's task.
pub const FAKE_PID: u32 = 4242;
const TC_ACT_SHOT: u64 = crate::uapi::TC_ACT_SHOT as u64;
const TC_ACT_REDIRECT: u64 = crate::uapi::TC_ACT_REDIRECT as u64;
const XDP_ABORTED: u64 = crate::uapi::XDP_ABORTED as u64;
const XDP_REDIRECT: u64 = crate::uapi::XDP_REDIRECT as u64;

enum Space {
    Kernel,
    User,
}

fn unsupported(what: impl Into<String>) -> ExecError {
    ExecError::Unsupported(what.into())
}

pub(crate) fn fault(f: super::mem::Fault) -> ExecError {
    ExecError::Fault { pc: 0, fault: f }
}

impl Runtime {
    fn map_arg(&self, addr: Addr, helper: &str) -> Result<usize, ExecError> {
        self.map_at(addr).ok_or_else(|| ExecError::BadInsn { pc: 0, why: format!("{helper}: argument is not a map") })
    }

    fn read_bytes(&self, addr: Addr, len: u64) -> Result<Vec<u8>, ExecError> {
        self.mem.read(addr, len as usize).map(<[u8]>::to_vec).map_err(fault)
    }

    fn key_of(&self, map: usize, key: Addr) -> Result<Vec<u8>, ExecError> {
        self.read_bytes(key, self.maps[map].def.key_size as u64)
    }

    /// Calls a callback (`BPF_PSEUDO_FUNC` address) with `args`.
    pub(crate) fn call_callback(&mut self, func: Addr, args: [u64; 5]) -> Result<u64, ExecError> {
        if self.native.as_ref().is_some_and(|n| n.is_func(func)) {
            return super::native::call_native(self, func, args);
        }
        let (prog, pc) = self.decode_func_addr(func).ok_or_else(|| ExecError::BadInsn { pc: 0, why: format!("callback {func:#x} is not a function") })?;
        self.run_func(prog, pc, args)
    }

    /// Which copy a probe-read helper makes: from kernel memory, from user
    /// memory (there is none in a test run: it always faults), or the
    /// legacy `bpf_probe_read{,_str}`, which on x86-64 reads user memory
    /// below `TASK_SIZE` and kernel memory above.
    fn probe_space(&self, helper: i32, src: Addr) -> Space {
        use id::*;
        match helper {
            PROBE_READ_USER | PROBE_READ_USER_STR | COPY_FROM_USER => Space::User,
            // (host addresses of a native run's regions stand in for kernel ones)
            PROBE_READ | PROBE_READ_STR
                if self.opts.arch == Arch::X86_64 && src < 0x0000_7fff_ffff_f000 && !(self.mem.is_host() && self.mem.region(src).is_some()) =>
            {
                Space::User
            }
            _ => Space::Kernel,
        }
    }

    /// `bpf_probe_read_*`: a copy that zero-fills `dst` and fails with
    /// -EFAULT (or -ERANGE where the arch refuses the address) instead of
    /// faulting.
    fn probe_read(&mut self, helper: i32, dst: Addr, size: u64, src: Addr) -> Result<u64, ExecError> {
        let err = match self.probe_space(helper, src) {
            Space::User => Some(EFAULT),
            Space::Kernel if !self.kernel_addr_ok(src) => Some(ERANGE),
            Space::Kernel => None,
        };
        if let Some(e) = err {
            self.mem.zero(dst, size as usize).map_err(fault)?;
            return Ok(neg(e));
        }
        match self.mem.read(src, size as usize) {
            Ok(b) => {
                let b = b.to_vec();
                self.mem.write(dst, &b).map_err(fault)?;
                Ok(0)
            }
            Err(_) => {
                self.mem.zero(dst, size as usize).map_err(fault)?;
                Ok(neg(EFAULT))
            }
        }
    }

    /// `bpf_probe_read_*_str`: copies up to `size - 1` bytes and a NUL; the
    /// length including the NUL, or an error with all of `dst` zeroed.
    fn probe_read_str(&mut self, helper: i32, dst: Addr, size: u64, src: Addr) -> Result<u64, ExecError> {
        if size == 0 {
            return Ok(0);
        }
        let err = match self.probe_space(helper, src) {
            Space::User => Some(EFAULT),
            Space::Kernel if !self.kernel_addr_ok(src) => Some(ERANGE),
            Space::Kernel => match self.mem.read_cstr(src, size as usize - 1) {
                // the string ran into unmapped memory before its NUL
                Ok((s, found)) if !found && s.len() < size as usize - 1 => Some(EFAULT),
                Ok((mut s, _)) => {
                    s.push(0);
                    let n = s.len() as u64;
                    self.mem.write(dst, &s).map_err(fault)?;
                    return Ok(n);
                }
                Err(_) => Some(EFAULT),
            },
        };
        self.mem.zero(dst, size as usize).map_err(fault)?;
        Ok(neg(err.unwrap_or(EFAULT)))
    }
}

/// The kernel function of map `m`'s type that implements `op` (a
/// `bpf_map_ops` field), or "" when the model does not know it.
fn map_op(rt: &Runtime, m: usize, op: &str) -> &'static str {
    crate::fixups::calls::kernel_symbols::map_ops_func(rt.maps[m].def.map_type, op).unwrap_or("")
}

/// Calls helper `id` with r1-r5.
pub(crate) fn call(rt: &mut Runtime, helper: i32, a: [u64; 5]) -> Result<Flow, ExecError> {
    use id::*;
    let ret = match helper {
        MAP_LOOKUP_ELEM => {
            let m = rt.map_arg(a[0], "map_lookup_elem")?;
            let key = rt.key_of(m, a[1])?;
            rt.maps[m].lookup(&mut rt.mem, &key).map_err(fault)?
        }
        MAP_UPDATE_ELEM => {
            let m = rt.map_arg(a[0], "map_update_elem")?;
            // through the map type's function, which programs can be
            // attached to
            let op = map_op(rt, m, "map_update_elem");
            rt.kernel_call(op, &a[..4], |rt| {
                let key = rt.key_of(m, a[1])?;
                let value = rt.read_bytes(a[2], rt.maps[m].def.value_size as u64)?;
                rt.maps[m].update(&mut rt.mem, &key, &value, a[3]).map_err(fault)
            })?
        }
        MAP_DELETE_ELEM => {
            let m = rt.map_arg(a[0], "map_delete_elem")?;
            let op = map_op(rt, m, "map_delete_elem");
            rt.kernel_call(op, &a[..2], |rt| {
                let key = rt.key_of(m, a[1])?;
                Ok(rt.maps[m].delete(&key))
            })?
        }
        MAP_LOOKUP_PERCPU_ELEM => {
            let m = rt.map_arg(a[0], "map_lookup_percpu_elem")?;
            if a[2] as u32 >= NR_CPUS {
                0
            } else {
                let key = rt.key_of(m, a[1])?;
                rt.maps[m].lookup(&mut rt.mem, &key).map_err(fault)?
            }
        }
        MAP_PUSH_ELEM => {
            let m = rt.map_arg(a[0], "map_push_elem")?;
            let value = rt.read_bytes(a[1], rt.maps[m].def.value_size as u64)?;
            rt.maps[m].push(&value, a[2]).map_err(fault)?
        }
        MAP_POP_ELEM | MAP_PEEK_ELEM => {
            let m = rt.map_arg(a[0], "map_pop_elem")?;
            let vsize = rt.maps[m].def.value_size as u64;
            if let Store::Bloom { .. } = rt.maps[m].store {
                let v = rt.read_bytes(a[1], vsize)?;
                rt.maps[m].bloom_check(&v)
            } else {
                match rt.maps[m].pop(helper == MAP_PEEK_ELEM) {
                    Ok(v) => {
                        rt.mem.write(a[1], &v).map_err(fault)?;
                        0
                    }
                    Err(e) => e,
                }
            }
        }
        FOR_EACH_MAP_ELEM => {
            let m = rt.map_arg(a[0], "for_each_map_elem")?;
            if a[3] != 0 { neg(EINVAL) } else { for_each_map_elem(rt, m, a[1], a[2])? }
        }
        LOOP => {
            if a[3] != 0 {
                neg(EINVAL)
            } else if a[0] as u32 > BPF_MAX_LOOPS {
                neg(E2BIG)
            } else {
                let n = a[0] as u32;
                let mut done = n as u64;
                for i in 0..n {
                    if rt.call_callback(a[1], [i as u64, a[2], 0, 0, 0])? != 0 {
                        done = i as u64 + 1;
                        break;
                    }
                }
                done
            }
        }
        TAIL_CALL => return rt.tail_call(a[1], a[2]),
        KTIME_GET_NS | KTIME_GET_BOOT_NS | KTIME_GET_COARSE_NS | KTIME_GET_TAI_NS => rt.now_ns(),
        JIFFIES64 => 4_294_667_296 + rt.now_ns() / 4_000_000,
        GET_PRANDOM_U32 => rt.prandom_u32() as u64,
        GET_SMP_PROCESSOR_ID | GET_NUMA_NODE_ID => 0,
        GET_CURRENT_PID_TGID => ((FAKE_PID as u64) << 32) | FAKE_PID as u64,
        GET_CURRENT_UID_GID => 0,
        GET_CURRENT_COMM => {
            let size = a[1] as usize;
            // the test process's name
            let mut comm = b"bpf-selftest".to_vec();
            comm.resize(size, 0);
            if size > 0 {
                comm[size - 1] = 0;
            }
            rt.mem.write(a[0], &comm).map_err(fault)?;
            0
        }
        GET_CURRENT_CGROUP_ID => 1,
        // the test process is in no net_cls cgroup
        GET_CGROUP_CLASSID => 0,
        GET_CURRENT_TASK | GET_CURRENT_TASK_BTF => rt.ksym("current_task")?,
        GET_FUNC_IP | GET_ATTACH_COOKIE => 0,
        PROBE_READ | PROBE_READ_KERNEL | PROBE_READ_USER | COPY_FROM_USER => rt.probe_read(helper, a[0], a[1] as u32 as u64, a[2])?,
        PROBE_READ_STR | PROBE_READ_KERNEL_STR | PROBE_READ_USER_STR => rt.probe_read_str(helper, a[0], a[1] as u32 as u64, a[2])?,
        TRACE_PRINTK => trace_printk(rt, a)?,
        STRNCMP => {
            let (s1, _) = rt.mem.read_cstr(a[0], a[1] as u32 as usize).map_err(fault)?;
            let (s2, _) = rt.mem.read_cstr(a[2], a[1] as u32 as usize).map_err(fault)?;
            strncmp(&s1, &s2, a[1] as u32 as usize)
        }
        STRTOL | STRTOUL => {
            let buf = rt.read_bytes(a[0], a[1])?;
            let (ret, v) = strtox(&buf, a[2], helper == STRTOL);
            rt.mem.store(a[3], 8, v).map_err(fault)?;
            ret
        }
        SPIN_LOCK => {
            rt.mem.store(a[0], 4, 1).map_err(fault)?;
            0
        }
        SPIN_UNLOCK => {
            rt.mem.store(a[0], 4, 0).map_err(fault)?;
            0
        }
        KPTR_XCHG => {
            let old = rt.mem.load(a[0], 8).map_err(fault)?;
            rt.mem.store(a[0], 8, a[1]).map_err(fault)?;
            old
        }
        THIS_CPU_PTR => a[0],
        PER_CPU_PTR => {
            if a[1] as u32 >= NR_CPUS {
                0
            } else {
                a[0]
            }
        }
        RINGBUF_RESERVE => {
            let m = rt.map_arg(a[0], "ringbuf_reserve")?;
            if a[2] != 0 { 0 } else { rt.maps[m].ringbuf_reserve(&mut rt.mem, a[1]).map_err(fault)? }
        }
        RINGBUF_SUBMIT | RINGBUF_DISCARD => {
            maps::ringbuf_commit(&mut rt.mem, a[0], helper == RINGBUF_DISCARD).map_err(fault)?;
            0
        }
        RINGBUF_OUTPUT => {
            let m = rt.map_arg(a[0], "ringbuf_output")?;
            if a[3] & !3 != 0 {
                neg(EINVAL)
            } else {
                let data = rt.read_bytes(a[1], a[2])?;
                match rt.maps[m].ringbuf_reserve(&mut rt.mem, a[2]).map_err(fault)? {
                    0 => neg(EAGAIN),
                    rec => {
                        rt.mem.write_kernel(rec, &data).map_err(fault)?;
                        maps::ringbuf_commit(&mut rt.mem, rec, false).map_err(fault)?;
                        0
                    }
                }
            }
        }
        RINGBUF_QUERY => {
            let m = rt.map_arg(a[0], "ringbuf_query")?;
            rt.maps[m].ringbuf_query(a[1])
        }
        CSUM_DIFF => {
            let from = if a[1] != 0 { rt.read_bytes(a[0], a[1] as u32 as u64)? } else { Vec::new() };
            let to = if a[3] != 0 { rt.read_bytes(a[2], a[3] as u32 as u64)? } else { Vec::new() };
            csum_diff(&from, &to, a[4] as u32) as u64
        }
        SKB_LOAD_BYTES => skb_load_bytes(rt, a[1] as u32, a[2], a[3] as u32)?,
        SKB_LOAD_BYTES_RELATIVE => skb_load_bytes_relative(rt, a[1] as u32, a[2], a[3] as u32, a[4] as u32)?,
        SKB_STORE_BYTES => skb_store_bytes(rt, a[1] as u32, a[2], a[3] as u32, a[4])?,
        SKB_PULL_DATA => {
            // bpf_try_make_writable(skb, len ?: skb_headlen(skb))
            if rt.skb_pull(a[1] as u32 as u64)? { 0 } else { neg(ENOMEM) }
        }
        // a test-run skb is CHECKSUM_NONE
        CSUM_UPDATE => neg(ENOTSUPP),
        GET_HASH_RECALC => skb_hash(rt, None)?,
        SET_HASH_INVALID => {
            skb_hash(rt, Some(0))?;
            0
        }
        SET_HASH => {
            skb_hash(rt, Some(a[1] as u32))?;
            0
        }
        GET_LOCAL_STORAGE => {
            let m = rt.map_arg(a[0], "get_local_storage")?;
            match rt.maps[m].store {
                Store::CgroupStorage { value } => value,
                _ => return Err(unsupported("bpf_get_local_storage on a map that is not cgroup storage")),
            }
        }
        SKB_CHANGE_HEAD => skb_change_head(rt, a[1] as u32, a[2])?,
        FIB_LOOKUP => {
            use crate::uapi::bpf_fib_lookup::{FAMILY, SIZE};
            if (a[2] as u32 as i32) < i32::from(SIZE) || a[3] & !0x3f != 0 {
                neg(EINVAL)
            } else {
                match rt.mem.load(a[1] + FAMILY as u64, 1).map_err(fault)? {
                    2 | 10 => return Err(unsupported("bpf_fib_lookup route lookups")),
                    _ => neg(97), // EAFNOSUPPORT
                }
            }
        }
        GET_SOCKET_COOKIE | GET_NETNS_COOKIE => 4096,
        GET_SOCKET_UID => 0,
        REDIRECT => {
            if rt.env.prog_type == crate::prog_type::bpf_prog_type::XDP {
                if a[1] != 0 { XDP_ABORTED } else { XDP_REDIRECT }
            } else if a[1] & !1 != 0 {
                TC_ACT_SHOT
            } else {
                TC_ACT_REDIRECT
            }
        }
        // there are no sockets to find in a test run
        SK_LOOKUP_TCP | SK_LOOKUP_UDP | SKC_LOOKUP_TCP => 0,
        SK_RELEASE => 0,
        SK_FULLSOCK => a[0],
        // the dummy socket is not TCP, not listening, not any specific kind
        TCP_SOCK
        | GET_LISTENER_SOCK
        | SKC_TO_TCP6_SOCK
        | SKC_TO_TCP_SOCK
        | SKC_TO_TCP_TIMEWAIT_SOCK
        | SKC_TO_TCP_REQUEST_SOCK
        | SKC_TO_UDP6_SOCK
        | SKC_TO_UNIX_SOCK
        | SKC_TO_MPTCP_SOCK => 0,
        XDP_ADJUST_HEAD => xdp_adjust(rt, XdpAdjust::Head, a[1] as i32),
        XDP_ADJUST_TAIL if !rt.env.frags.is_empty() => return Err(unsupported("xdp_adjust_tail with fragments")),
        XDP_ADJUST_TAIL => xdp_adjust(rt, XdpAdjust::Tail, a[1] as i32),
        XDP_ADJUST_META => xdp_adjust(rt, XdpAdjust::Meta, a[1] as i32),
        XDP_GET_BUFF_LEN => rt.env.pkt.map_or(0, |p| p.data_end - p.data) + rt.env.frags.len() as u64,
        XDP_LOAD_BYTES | XDP_STORE_BYTES => xdp_bytes(rt, helper == XDP_STORE_BYTES, a[1] as u32, a[2], a[3] as u32)?,
        DYNPTR_FROM_MEM => super::kfuncs::dynptr_from_mem(rt, a[0], a[1] as u32, a[2], a[3])?,
        DYNPTR_READ => super::kfuncs::dynptr_read(rt, a[0], a[1] as u32, a[2], a[3] as u32, a[4])?,
        DYNPTR_WRITE => super::kfuncs::dynptr_write(rt, a[0], a[1] as u32, a[2], a[3] as u32, a[4])?,
        DYNPTR_DATA => super::kfuncs::dynptr_data(rt, a[0], a[1] as u32, a[2] as u32)?,
        RINGBUF_RESERVE_DYNPTR | RINGBUF_SUBMIT_DYNPTR | RINGBUF_DISCARD_DYNPTR => super::kfuncs::ringbuf_dynptr(rt, helper, a)?,
        _ => {
            return Err(unsupported(format!("helper {} (#{helper})", helper_name(helper))));
        }
    };
    Ok(Flow::Ret(ret))
}

pub fn helper_name(id: i32) -> String {
    bpf_isa::helper_ids::helper_name(id).map_or_else(|| format!("#{id}"), |n| format!("bpf_{n}"))
}

/// `bpf_for_each_map_elem`: the callback gets (map, &key, &value, ctx) for
/// each element until it returns non-zero; the number of calls made.
fn for_each_map_elem(rt: &mut Runtime, m: usize, cb: Addr, cb_ctx: u64) -> Result<u64, ExecError> {
    let map_addr = rt.maps[m].addr;
    let mut n = 0;
    match rt.maps[m].store {
        Store::Array { .. } | Store::PercpuArray { .. } => {
            // the key lives on the helper's stack; elements one at a time, as
            // a huge array must not be listed up front
            let key_buf = rt.mem.alloc(RegionKind::Scratch, vec![0; 8], false).map_err(fault)?;
            for i in 0..rt.maps[m].def.max_entries {
                let value = rt.maps[m].lookup(&mut rt.mem, &i.to_le_bytes()).map_err(fault)?;
                rt.mem.store(key_buf, 4, i as u64).map_err(fault)?;
                n += 1;
                if rt.call_callback(cb, [map_addr, key_buf, value, cb_ctx, 0])? != 0 {
                    break;
                }
            }
            rt.mem.free(key_buf);
        }
        Store::Hash(_) => {
            // keys in their elements; elements deleted by the callback are skipped
            for (key, key_in_elem, value) in rt.maps[m].elements(&rt.mem).map_err(fault)? {
                if !rt.maps[m].contains(&key) {
                    continue;
                }
                n += 1;
                let key_addr = key_in_elem.unwrap_or(0);
                if rt.call_callback(cb, [map_addr, key_addr, value, cb_ctx, 0])? != 0 {
                    break;
                }
            }
        }
        _ => {
            let ty = crate::map::map_type_name(rt.maps[m].def.map_type);
            return Err(unsupported(format!("for_each_map_elem over {ty}")));
        }
    }
    Ok(n)
}

/// `strncmp` of lib/string.c: -1, 0 or 1.
fn strncmp(a: &[u8], b: &[u8], n: usize) -> u64 {
    for i in 0..n {
        let (x, y) = (a.get(i).copied().unwrap_or(0), b.get(i).copied().unwrap_or(0));
        if x != y {
            return if x < y { -1i64 as u64 } else { 1 };
        }
        if x == 0 {
            break;
        }
    }
    0
}

/// `bpf_strtol` / `bpf_strtoul`: (return value, stored result).
fn strtox(buf: &[u8], flags: u64, signed: bool) -> (u64, u64) {
    let mut base = (flags & 0x1f) as u32;
    if buf.is_empty() || (base != 0 && base != 8 && base != 10 && base != 16) || flags & !0x1f != 0 {
        return (neg(EINVAL), 0);
    }
    let mut i = 0;
    while i < buf.len() && matches!(buf[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let negative = i < buf.len() && buf[i] == b'-';
    if negative {
        i += 1;
    }
    if i >= buf.len() {
        return (neg(EINVAL), 0);
    }
    let mut s: Vec<u8> = buf[i..].iter().take(63).copied().collect();
    if let Some(z) = s.iter().position(|&c| c == 0) {
        s.truncate(z);
    }
    let mut j = 0;
    let at = |k: usize| s.get(k).copied().unwrap_or(0);
    if base == 0 {
        base = if at(0) == b'0' { if at(1).eq_ignore_ascii_case(&b'x') && at(2).is_ascii_hexdigit() { 16 } else { 8 } } else { 10 };
    }
    if base == 16 && at(0) == b'0' && at(1).eq_ignore_ascii_case(&b'x') {
        j = 2;
    }
    let start = j;
    let mut v: u64 = 0;
    let mut overflow = false;
    while j < s.len() {
        let d = match s[j] {
            c @ b'0'..=b'9' => (c - b'0') as u32,
            c @ b'a'..=b'f' => (c - b'a') as u32 + 10,
            c @ b'A'..=b'F' => (c - b'A') as u32 + 10,
            _ => break,
        };
        if d >= base {
            break;
        }
        match v.checked_mul(base as u64).and_then(|x| x.checked_add(d as u64)) {
            Some(x) => v = x,
            None => overflow = true,
        }
        j += 1;
    }
    if overflow {
        return (neg(ERANGE), 0);
    }
    if j == start {
        return (neg(EINVAL), 0);
    }
    let consumed = (i + j) as u64;
    if signed {
        if negative {
            if (v.wrapping_neg() as i64) > 0 {
                return (neg(ERANGE), 0);
            }
            (consumed, v.wrapping_neg())
        } else if (v as i64) < 0 {
            (neg(ERANGE), 0)
        } else {
            (consumed, v)
        }
    } else if negative {
        (neg(EINVAL), 0)
    } else {
        (consumed, v)
    }
}

/// The ones' complement sum of `buf` (16-bit little-endian words, as on the
/// little-endian machines the model runs) added to `sum`, folded to 32 bits.
fn csum_partial(buf: &[u8], sum: u32) -> u32 {
    let mut acc: u64 = sum as u64;
    let mut chunks = buf.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_le_bytes([c[0], c[1]]) as u64;
    }
    if let [b] = chunks.remainder() {
        acc += *b as u64;
    }
    while acc >> 32 != 0 {
        acc = (acc & 0xffff_ffff) + (acc >> 32);
    }
    acc as u32
}

fn csum_add(a: u32, b: u32) -> u32 {
    let (r, c) = a.overflowing_add(b);
    r.wrapping_add(c as u32)
}

/// `bpf_csum_diff`, folded to 16 bits as 7.3 returns it.
pub fn csum_diff(from: &[u8], to: &[u8], seed: u32) -> u16 {
    let ret = if !from.is_empty() && !to.is_empty() {
        csum_add(csum_partial(to, seed), !csum_partial(from, 0))
    } else if !to.is_empty() {
        csum_partial(to, seed)
    } else if !from.is_empty() {
        !csum_partial(from, !seed)
    } else {
        seed
    };
    let s = ret.wrapping_add(ret.rotate_left(16));
    (s >> 16) as u16
}

fn skb_load_bytes(rt: &mut Runtime, off: u32, to: Addr, len: u32) -> Result<u64, ExecError> {
    if rt.env.pkt.is_none() {
        return Err(unsupported("skb_load_bytes without a packet"));
    }
    // skb_header_pointer: the linear data and the fragments
    match rt.skb_read(off as i64, len as usize).filter(|_| off <= i32::MAX as u32) {
        Some(b) => {
            rt.mem.write(to, &b).map_err(fault)?;
            Ok(0)
        }
        None => {
            rt.mem.zero(to, len as usize).map_err(fault)?;
            Ok(neg(EFAULT))
        }
    }
}

fn skb_load_bytes_relative(rt: &mut Runtime, off: u32, to: Addr, len: u32, hdr: u32) -> Result<u64, ExecError> {
    let Some(p) = rt.env.pkt else {
        return Err(unsupported("skb_load_bytes_relative without a packet"));
    };
    let start = match hdr {
        0 => Some(p.mac),
        1 => Some(p.network),
        _ => None,
    };
    if let Some(start) = start.filter(|&s| off <= 0xffff && s + off as u64 + len as u64 <= p.data_end) {
        rt.mem.copy(to, p.buf + start + off as u64, len as usize).map_err(fault)?;
        return Ok(0);
    }
    rt.mem.zero(to, len as usize).map_err(fault)?;
    Ok(neg(EFAULT))
}

fn skb_store_bytes(rt: &mut Runtime, off: u32, from: Addr, len: u32, flags: u64) -> Result<u64, ExecError> {
    if rt.env.pkt.is_none() {
        return Err(unsupported("skb_store_bytes without a packet"));
    }
    if flags & !3 != 0 {
        return Ok(neg(EINVAL));
    }
    // bpf_try_make_writable: the bytes written are made linear first
    if off > i32::MAX as u32 || !rt.skb_pull(off.wrapping_add(len) as u64)? {
        return Ok(neg(EFAULT));
    }
    if flags & 1 != 0 {
        return Err(unsupported("skb_store_bytes with BPF_F_RECOMPUTE_CSUM"));
    }
    let b = rt.read_bytes(from, len as u64)?;
    let p = rt.env.pkt.unwrap_or_default();
    rt.mem.write(p.buf + p.data + off as u64, &b).map_err(fault)?;
    Ok(0)
}

/// `skb_get_hash` (flow dissection with a per-boot random seed: any
/// non-zero value is faithful; this one is fixed), `skb_clear_hash` and
/// `bpf_set_hash`: `Some` sets `skb->hash`, which `__sk_buff.hash` shows.
fn skb_hash(rt: &mut Runtime, set: Option<u32>) -> Result<u64, ExecError> {
    let Some(c) = rt.env.ctx.filter(|c| c.kind == super::ctx::CtxKind::SkBuff) else {
        return Err(unsupported("skb hash helpers without an skb"));
    };
    let at = c.addr + crate::uapi::__sk_buff::HASH as u64;
    let cur = rt.mem.load(at, 4).map_err(fault)? as u32;
    let v = match set {
        Some(v) => v,
        None if cur != 0 => cur,
        None => 0x5eed_f10e,
    };
    rt.mem.store_kernel(at, 4, v as u64).map_err(fault)?;
    Ok(v as u64)
}

/// `bpf_skb_change_head(skb, head_room, flags)`: pushes `head_room` zero
/// bytes in front of the data, which become the MAC header.
fn skb_change_head(rt: &mut Runtime, head_room: u32, flags: u64) -> Result<u64, ExecError> {
    let Some(mut p) = rt.env.pkt else {
        return Err(unsupported("skb_change_head without a packet"));
    };
    let len = p.data_end - p.data;
    let new_len = len + head_room as u64;
    // BPF_SKB_MAX_LEN (SKB_MAX_ALLOC with 4 KiB pages)
    if flags != 0 || (head_room as i32) < 0 || new_len > 16064 {
        return Ok(neg(EINVAL));
    }
    if p.data < head_room as u64 {
        // skb_cow: a bigger head, the data moved to its end
        let old = rt.mem.read(p.buf, rt.mem.region(p.buf).map_or(0, |(r, _)| r.data.len())).map_err(fault)?.to_vec();
        let extra = (head_room as usize).div_ceil(64) * 64;
        let mut buf = vec![0u8; extra];
        buf.extend_from_slice(&old);
        let nb = rt.mem.alloc(RegionKind::Packet, buf, false).map_err(fault)?;
        rt.mem.free(p.buf);
        p.buf = nb;
        p.data += extra as u64;
        p.data_end += extra as u64;
        p.meta += extra as u64;
        p.mac += extra as u64;
        p.network += extra as u64;
    }
    p.data -= head_room as u64;
    rt.mem.zero(p.buf + p.data, head_room as usize).map_err(fault)?;
    p.mac = p.data;
    p.meta = p.data;
    rt.env.pkt = Some(p);
    rt.sync_skb_len()?;
    Ok(0)
}

/// `bpf_xdp_{load,store}_bytes`: `len` bytes at `off` of the linear data
/// and the fragments after it, as one byte string.
fn xdp_bytes(rt: &mut Runtime, store: bool, off: u32, buf: Addr, len: u32) -> Result<u64, ExecError> {
    let Some(p) = rt.env.pkt else {
        return Err(unsupported("xdp byte helpers without a packet"));
    };
    let linear = p.data_end - p.data;
    let (off, len) = (off as u64, len as u64);
    if off + len > linear + rt.env.frags.len() as u64 {
        return Ok(neg(EINVAL));
    }
    // the linear part of the range, then the part in the fragments
    let lin = linear.saturating_sub(off).min(len);
    let frag_off = off.saturating_sub(linear) as usize;
    let frag_len = (len - lin) as usize;
    if store {
        if lin > 0 {
            rt.mem.copy(p.buf + p.data + off, buf, lin as usize).map_err(fault)?;
        }
        let b = rt.read_bytes(buf + lin, frag_len as u64)?;
        rt.env.frags[frag_off..frag_off + frag_len].copy_from_slice(&b);
    } else {
        if lin > 0 {
            rt.mem.copy(buf, p.buf + p.data + off, lin as usize).map_err(fault)?;
        }
        let b = rt.env.frags[frag_off..frag_off + frag_len].to_vec();
        rt.mem.write(buf + lin, &b).map_err(fault)?;
    }
    Ok(0)
}

enum XdpAdjust {
    Head,
    Tail,
    Meta,
}

/// `bpf_xdp_adjust_{head,tail,meta}`: the headroom always keeps
/// room for a `struct xdp_frame`.
fn xdp_adjust(rt: &mut Runtime, what: XdpAdjust, offset: i32) -> u64 {
    let Some(mut p) = rt.env.pkt else {
        return neg(EINVAL);
    };
    let cap = rt.mem.region(p.buf).map_or(0, |(r, _)| r.data.len() as u64);
    let off = offset as i64;
    match what {
        XdpAdjust::Head => {
            let metalen = p.data - p.meta;
            let data = p.data as i64 + off;
            if data < (SIZEOF_XDP_FRAME as u64 + metalen) as i64 || data > p.data_end as i64 - super::ctx::ETH_HLEN as i64 {
                return neg(EINVAL);
            }
            if metalen > 0 {
                let _ = rt.mem.copy(p.buf + (p.meta as i64 + off) as u64, p.buf + p.meta, metalen as usize);
            }
            p.meta = (p.meta as i64 + off) as u64;
            p.data = data as u64;
        }
        XdpAdjust::Tail => {
            // the frame is a page; the kernel keeps skb_shared_info room
            let hard_end = cap.min(4096 - 320);
            let end = p.data_end as i64 + off;
            if end > hard_end as i64 || end < p.data as i64 + super::ctx::ETH_HLEN as i64 {
                return neg(EINVAL);
            }
            if off > 0 {
                let _ = rt.mem.zero(p.buf + p.data_end, off as usize);
            }
            p.data_end = end as u64;
        }
        XdpAdjust::Meta => {
            let meta = p.meta as i64 + off;
            if meta < SIZEOF_XDP_FRAME as i64 || meta > p.data as i64 {
                return neg(EINVAL);
            }
            // skb_shared_info's meta_len is a u8
            let metalen = p.data as i64 - meta;
            if metalen > 255 || metalen % 4 != 0 {
                return neg(13); // EACCES
            }
            p.meta = meta as u64;
        }
    }
    rt.env.pkt = Some(p);
    0
}

/// `bpf_trace_printk(fmt, fmt_size, arg1, arg2, arg3)`: the formatted line
/// goes to the run's trace; the length written, or -EINVAL for a format
/// the kernel refuses.
fn trace_printk(rt: &mut Runtime, a: [u64; 5]) -> Result<u64, ExecError> {
    let fmt = rt.read_bytes(a[0], a[1] as u32 as u64)?;
    let Some(z) = fmt.iter().position(|&c| c == 0) else {
        return Ok(neg(EINVAL));
    };
    let fmt = &fmt[..z];
    let args = [a[2], a[3], a[4]];
    let mut out = Vec::new();
    let mut k = 0;
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        if k >= 3 {
            return Ok(neg(EINVAL));
        }
        // flags and width
        while i < fmt.len() && matches!(fmt[i], b'-' | b'+' | b' ' | b'#' | b'0'..=b'9' | b'.') {
            i += 1;
        }
        let mut longs = 0;
        while fmt.get(i) == Some(&b'l') {
            longs += 1;
            i += 1;
        }
        let conv = fmt.get(i).copied().unwrap_or(0);
        i += 1;
        let v = args[k];
        k += 1;
        let v = if longs == 0 && matches!(conv, b'd' | b'i') {
            v as i32 as i64 as u64
        } else if longs == 0 {
            v as u32 as u64
        } else {
            v
        };
        let text = match conv {
            b'd' | b'i' => (v as i64).to_string(),
            b'u' => v.to_string(),
            b'x' => format!("{v:x}"),
            b'X' => format!("{v:X}"),
            b'o' => format!("{v:o}"),
            b'c' if longs == 0 => ((v as u8) as char).to_string(),
            b'p' => {
                if fmt.get(i).is_some_and(|c| c.is_ascii_alphabetic()) {
                    return Err(unsupported("trace_printk %p extensions"));
                }
                format!("{:016x}", a[2 + k - 1])
            }
            b's' => {
                let (s, _) = rt.mem.read_cstr(args[k - 1], 512).unwrap_or_default();
                String::from_utf8_lossy(&s).into_owned()
            }
            _ => return Ok(neg(EINVAL)),
        };
        out.extend_from_slice(text.as_bytes());
    }
    let line = String::from_utf8_lossy(&out).into_owned();
    let n = line.len() as u64;
    rt.trace.push_str(&line);
    if !line.ends_with('\n') {
        rt.trace.push('\n');
    }
    // trace_bpf_trace_printk(buf): raw tracepoint programs on it run
    if rt.tracing.attachments.iter().any(|t| t.target == "bpf_trace_printk") {
        out.push(0);
        let buf = rt.mem.alloc(RegionKind::Scratch, out, true).map_err(fault)?;
        let r = rt.trace_event("bpf_trace_printk", &[buf]);
        rt.mem.free(buf);
        r?;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtol_like_the_kernel() {
        assert_eq!(strtox(b"  -123abc", 10, true), (6, -123i64 as u64));
        assert_eq!(strtox(b"0x1f", 0, false), (4, 31));
        assert_eq!(strtox(b"017", 0, false), (3, 15));
        assert_eq!(strtox(b"-1", 0, false), (neg(EINVAL), 0));
        assert_eq!(strtox(b"zz", 0, false), (neg(EINVAL), 0));
        assert_eq!(strtox(b"99999999999999999999", 10, false), (neg(ERANGE), 0));
        assert_eq!(strtox(b"9223372036854775808", 10, true), (neg(ERANGE), 0));
    }

    #[test]
    fn csum_diff_of_equal_data_is_zero_class() {
        let d = [1u8, 2, 3, 4];
        let r = csum_diff(&d, &d, 0);
        assert!(r == 0 || r == 0xffff);
        assert_eq!(csum_diff(&[], &[0, 1], 0), 0x100);
    }

    #[test]
    fn strncmp_signs() {
        assert_eq!(strncmp(b"abc", b"abd", 3), -1i64 as u64);
        assert_eq!(strncmp(b"abc", b"abd", 2), 0);
        assert_eq!(strncmp(b"b", b"a", 5), 1);
    }
}
