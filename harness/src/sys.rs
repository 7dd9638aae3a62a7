//! bpf(2), capabilities and file descriptors, behind one small interface so
//! that the same loading code runs on this machine ([`LocalSys`]) and inside
//! a QEMU guest (the vm backend forwards each call to its guest loader).
//!
//! A [`BpfCall`] is the `union bpf_attr` of one command plus the user buffers
//! it points to. Pointers are not raw addresses but [`PtrFixup`]s ("write the
//! address of buffer B at offset O of buffer A"), which the executor fills in
//! where the buffers really live; buffer 0 is the attr itself. That keeps the
//! attr layouts (offsets from `include/uapi/linux/bpf.h`) in one place, in Rust.

use std::fmt;

/// `enum bpf_cmd` values used here.
pub mod cmd {
    pub const BPF_MAP_CREATE: u32 = 0;
    pub const BPF_MAP_LOOKUP_ELEM: u32 = 1;
    pub const BPF_MAP_UPDATE_ELEM: u32 = 2;
    pub const BPF_PROG_LOAD: u32 = 5;
    pub const BPF_PROG_TEST_RUN: u32 = 10;
    pub const BPF_OBJ_GET_INFO_BY_FD: u32 = 15;
    pub const BPF_BTF_LOAD: u32 = 18;
    pub const BPF_MAP_FREEZE: u32 = 22;
}

/// Capability numbers (`include/uapi/linux/capability.h`).
pub mod cap {
    pub const CAP_NET_ADMIN: u32 = 12;
    pub const CAP_SYS_ADMIN: u32 = 21;
    pub const CAP_PERFMON: u32 = 38;
    pub const CAP_BPF: u32 = 39;

    /// What test_loader's `drop_capabilities()` clears for an unprivileged run.
    pub const UNPRIV_DROP: u64 = 1 << CAP_SYS_ADMIN | 1 << CAP_NET_ADMIN | 1 << CAP_PERFMON | 1 << CAP_BPF;

    /// A set of capability numbers as the 64-bit mask capget/capset use.
    /// Numbers past 63 do not exist and are ignored.
    pub fn mask(caps: &[u32]) -> u64 {
        caps.iter().filter(|&&c| c < 64).fold(0, |m, &c| m | 1 << c)
    }
}

/// One user buffer of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallBuf {
    /// Contents before the call (the kernel may read them).
    pub data: Vec<u8>,
    /// Whether the kernel writes it and the caller wants it back.
    pub out: bool,
}

/// "Put the address of `target` at byte `off` of `buf`."
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtrFixup {
    pub buf: u32,
    pub off: u32,
    pub target: u32,
}

/// One bpf(2) command with its attr (buffer 0) and the buffers it points to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BpfCall {
    pub cmd: u32,
    pub bufs: Vec<CallBuf>,
    pub ptrs: Vec<PtrFixup>,
}

/// What a bpf(2) call returned: its result or errno, and every buffer as the
/// kernel left it (buffers not marked `out` come back as they went in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BpfReply {
    pub ret: i64,
    /// Positive errno when `ret < 0`.
    pub errno: i32,
    pub bufs: Vec<Vec<u8>>,
}

impl BpfCall {
    /// A command whose attr is `attr_size` zero bytes: the size libbpf passes
    /// is `offsetofend()` of the last field it uses, and so is ours.
    pub fn new(cmd: u32, attr_size: usize) -> BpfCall {
        BpfCall { cmd, bufs: vec![CallBuf { data: vec![0; attr_size], out: true }], ptrs: Vec::new() }
    }

    pub fn put_u32(&mut self, off: usize, v: u32) {
        put(&mut self.bufs[0].data, off, &v.to_le_bytes());
    }

    pub fn put_u64(&mut self, off: usize, v: u64) {
        put(&mut self.bufs[0].data, off, &v.to_le_bytes());
    }

    pub fn put_bytes(&mut self, off: usize, b: &[u8]) {
        put(&mut self.bufs[0].data, off, b);
    }

    /// Adds a buffer the kernel reads and points attr field `off` at it.
    pub fn ptr_in(&mut self, off: usize, data: Vec<u8>) -> u32 {
        self.ptr_in_buf(0, off, data, false)
    }

    /// Adds a zeroed buffer of `len` bytes the kernel writes and points attr
    /// field `off` at it.
    pub fn ptr_out(&mut self, off: usize, len: usize) -> u32 {
        self.ptr_in_buf(0, off, vec![0; len], true)
    }

    /// Adds a buffer and points field `off` of buffer `buf` at it.
    pub fn ptr_in_buf(&mut self, buf: u32, off: usize, data: Vec<u8>, out: bool) -> u32 {
        let idx = self.bufs.len() as u32;
        self.bufs.push(CallBuf { data, out });
        self.ptrs.push(PtrFixup { buf, off: off as u32, target: idx });
        idx
    }

    /// Checks that every fixup lands inside its buffer: an executor may
    /// rely on it.
    pub fn validate(&self) -> Result<(), String> {
        if self.bufs.is_empty() {
            return Err("bpf call without attr".into());
        }
        for p in &self.ptrs {
            let Some(b) = self.bufs.get(p.buf as usize) else {
                return Err(format!("pointer fixup into missing buffer {}", p.buf));
            };
            if (p.off as usize).checked_add(8).is_none_or(|end| end > b.data.len()) || p.target as usize >= self.bufs.len() {
                return Err(format!("pointer fixup {p:?} out of range"));
            }
        }
        Ok(())
    }
}

impl BpfReply {
    /// The attr after the call.
    pub fn attr(&self) -> &[u8] {
        self.bufs.first().map_or(&[], |b| b.as_slice())
    }

    pub fn buf(&self, i: u32) -> &[u8] {
        self.bufs.get(i as usize).map_or(&[], |b| b.as_slice())
    }

    /// `ret` as a file descriptor, or the errno.
    pub fn fd(&self) -> Result<i32, i32> {
        if self.ret < 0 { Err(self.errno) } else { Ok(self.ret as i32) }
    }
}

fn put(buf: &mut [u8], off: usize, b: &[u8]) {
    if let Some(dst) = buf.get_mut(off..off + b.len()) {
        dst.copy_from_slice(b);
    }
}

/// Little-endian u32 at `off`, 0 when out of range.
pub fn get_u32(buf: &[u8], off: usize) -> u32 {
    buf.get(off..off + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Little-endian u64 at `off`, 0 when out of range.
pub fn get_u64(buf: &[u8], off: usize) -> u64 {
    buf.get(off..off + 8).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
}

/// Why a call could not be made at all (not the kernel's answer to it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SysError {
    /// A system call other than bpf(2) failed (capget/capset, ...).
    Errno { what: &'static str, errno: i32 },
    /// The guest loader is gone or spoke nonsense (vm backend).
    Transport(String),
}

impl fmt::Display for SysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SysError::Errno { what, errno } => write!(f, "{what} failed: {}", errno_desc(*errno)),
            SysError::Transport(s) => f.write_str(s),
        }
    }
}

/// The operations the loader needs from wherever the kernel is.
pub trait BpfSys {
    fn bpf(&mut self, call: &BpfCall) -> Result<BpfReply, SysError>;
    /// Sets the effective capability set of the calling thread to
    /// `(old & !clear) | set` and returns `old`, as test_loader's
    /// `cap_disable_effective()` / `cap_enable_effective()` do.
    fn cap_effective(&mut self, clear: u64, set: u64) -> Result<u64, SysError>;
    /// Closes descriptors; errors are ignored, as close() on cleanup paths.
    fn close(&mut self, fds: &[i32]) -> Result<(), SysError>;
    /// What libbpf does with an arena after creating it: mmap `len` bytes
    /// of map `fd` shared at `addr` (fixed, unless 0), copy `data` in at
    /// `off`, then unmap (the pages stay in the arena). The errno of a
    /// failed mmap, 0 when done.
    fn map_mmap_write(&mut self, fd: i32, addr: u64, len: u64, off: u64, data: &[u8]) -> Result<i32, SysError>;
    /// Up to `len` bytes of the file at `path` from byte `off` (fewer at
    /// its end), as pread(2) reads them: `/proc/kcore` windows of kernel
    /// memory, `/proc/kallsyms`. `Err(errno)` when opening or reading
    /// failed.
    fn read_range(&mut self, path: &str, off: u64, len: u64) -> Result<Result<Vec<u8>, i32>, SysError>;
}

/// This machine's kernel.
#[derive(Default)]
pub struct LocalSys;

/// 8-byte aligned storage for one buffer (bpf(2) does not require it, but the
/// info structs are `__aligned_u64` and this keeps every field naturally aligned).
struct Aligned {
    words: Vec<u64>,
    len: usize,
}

impl Aligned {
    fn new(data: &[u8]) -> Aligned {
        let mut words = vec![0u64; data.len().div_ceil(8).max(1)];
        // SAFETY: `words` owns at least `data.len()` initialised bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), data.len()) };
        bytes.copy_from_slice(data);
        Aligned { words, len: data.len() }
    }
    fn ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }
    fn bytes(&self) -> &[u8] {
        // SAFETY: `words` owns at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.len) }
    }
}

fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO)
}

impl BpfSys for LocalSys {
    fn bpf(&mut self, call: &BpfCall) -> Result<BpfReply, SysError> {
        call.validate().map_err(SysError::Transport)?;
        let mut bufs: Vec<Aligned> = call.bufs.iter().map(|b| Aligned::new(&b.data)).collect();
        for p in &call.ptrs {
            let addr = bufs[p.target as usize].ptr() as u64;
            let off = p.off as usize;
            bufs[p.buf as usize].bytes_mut()[off..off + 8].copy_from_slice(&addr.to_le_bytes());
        }
        let attr_len = bufs[0].len;
        let attr = bufs[0].ptr();
        // SAFETY: bpf(2) reads and writes the attr (attr_len bytes) and the
        // buffers it points to, all of which live in `bufs` for this call.
        let ret = unsafe { libc::syscall(libc::SYS_bpf, call.cmd as libc::c_long, attr, attr_len as libc::c_long) };
        let errno = if ret < 0 { last_errno() } else { 0 };
        let out = bufs.iter().map(|b| b.bytes().to_vec()).collect();
        Ok(BpfReply { ret: ret as i64, errno, bufs: out })
    }

    fn cap_effective(&mut self, clear: u64, set: u64) -> Result<u64, SysError> {
        let old = capget().map_err(|errno| SysError::Errno { what: "capget", errno })?;
        let new = (old.effective & !clear) | set;
        if new != old.effective {
            capset(&CapSets { effective: new, ..old }).map_err(|errno| SysError::Errno { what: "capset", errno })?;
        }
        Ok(old.effective)
    }

    fn close(&mut self, fds: &[i32]) -> Result<(), SysError> {
        for &fd in fds {
            // SAFETY: closing a descriptor this loader opened.
            unsafe { libc::close(fd) };
        }
        Ok(())
    }

    fn map_mmap_write(&mut self, fd: i32, addr: u64, len: u64, off: u64, data: &[u8]) -> Result<i32, SysError> {
        let end = off.checked_add(data.len() as u64).filter(|&e| e <= len);
        if end.is_none() || usize::try_from(len).is_err() {
            return Ok(libc::EINVAL);
        }
        let flags = libc::MAP_SHARED | if addr != 0 { libc::MAP_FIXED } else { 0 };
        // SAFETY: a fresh shared mapping of the map at the address its
        // creation reserved for it (an arena's `map_extra`), unmapped below
        let p = unsafe { libc::mmap(addr as *mut libc::c_void, len as usize, libc::PROT_READ | libc::PROT_WRITE, flags, fd, 0) };
        if p == libc::MAP_FAILED {
            return Ok(last_errno());
        }
        // SAFETY: `[off, off + data.len())` lies inside the `len` bytes mapped
        unsafe {
            std::ptr::copy_nonoverlapping(data.as_ptr(), (p as *mut u8).add(off as usize), data.len());
            libc::munmap(p, len as usize);
        }
        Ok(0)
    }

    fn read_range(&mut self, path: &str, off: u64, len: u64) -> Result<Result<Vec<u8>, i32>, SysError> {
        use std::os::unix::fs::FileExt;
        let errno = |e: std::io::Error| e.raw_os_error().unwrap_or(libc::EIO);
        let file = match std::fs::File::open(path) {
            Ok(f) => f,
            Err(e) => return Ok(Err(errno(e))),
        };
        let mut out = Vec::new();
        let mut chunk = vec![0u8; 64 << 10];
        while (out.len() as u64) < len {
            let want = (len - out.len() as u64).min(chunk.len() as u64) as usize;
            match file.read_at(&mut chunk[..want], off + out.len() as u64) {
                Ok(0) => break,
                Ok(n) => out.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Ok(Err(errno(e))),
            }
        }
        Ok(Ok(out))
    }
}

/// The three capability sets of the calling thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapSets {
    pub effective: u64,
    pub permitted: u64,
    pub inheritable: u64,
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// capget(2) for the calling thread.
pub fn capget() -> Result<CapSets, i32> {
    let mut hdr = CapHeader { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
    let mut data = [CapData::default(); 2];
    // SAFETY: a v3 header and two data structs, as capget(2) expects.
    let r = unsafe { libc::syscall(libc::SYS_capget, &mut hdr as *mut CapHeader, data.as_mut_ptr()) };
    if r < 0 {
        return Err(last_errno());
    }
    let join = |f: fn(&CapData) -> u32| u64::from(f(&data[0])) | u64::from(f(&data[1])) << 32;
    Ok(CapSets { effective: join(|d| d.effective), permitted: join(|d| d.permitted), inheritable: join(|d| d.inheritable) })
}

/// capset(2) for the calling thread.
pub fn capset(c: &CapSets) -> Result<(), i32> {
    let mut hdr = CapHeader { version: LINUX_CAPABILITY_VERSION_3, pid: 0 };
    let split = |v: u64| [v as u32, (v >> 32) as u32];
    let (e, p, i) = (split(c.effective), split(c.permitted), split(c.inheritable));
    let data = [CapData { effective: e[0], permitted: p[0], inheritable: i[0] }, CapData { effective: e[1], permitted: p[1], inheritable: i[1] }];
    // SAFETY: a v3 header and two data structs, as capset(2) expects.
    let r = unsafe { libc::syscall(libc::SYS_capset, &mut hdr as *mut CapHeader, data.as_ptr()) };
    if r < 0 { Err(last_errno()) } else { Ok(()) }
}

/// The errno's symbolic name (`EPERM`), including the kernel-internal ones
/// bpf(2) leaks to user space (`ENOTSUPP` = 524); empty when unknown.
pub fn errno_name(errno: i32) -> &'static str {
    crate::verifier::errno::name_of(errno)
}

/// `EPERM (1)`, for messages; `errno 600` for numbers without a name here.
pub fn errno_desc(errno: i32) -> String {
    match errno_name(errno) {
        "" => format!("errno {errno}"),
        name => format!("{name} ({errno})"),
    }
}

/// `union bpf_attr` layouts of the commands the loader uses (offsets from the
/// 7.3 `include/uapi/linux/bpf.h`; every field used exists since 5.x).
pub mod attr {
    use super::{BpfCall, cmd::*};
    use crate::uapi::BPF_OBJ_NAME_LEN;

    /// A name as libbpf passes it: at most 15 bytes of `[A-Za-z0-9_.]`.
    pub fn obj_name(name: &str) -> [u8; BPF_OBJ_NAME_LEN] {
        let mut out = [0u8; BPF_OBJ_NAME_LEN];
        let clean = name.bytes().filter(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.');
        for (d, s) in out.iter_mut().zip(clean.take(BPF_OBJ_NAME_LEN - 1)) {
            *d = s;
        }
        out
    }

    /// BPF_MAP_CREATE, up to `map_extra`.
    #[allow(clippy::too_many_arguments)]
    pub fn map_create(map_type: u32, key_size: u32, value_size: u32, max_entries: u32, map_flags: u32, inner_map_fd: Option<i32>, name: &str) -> BpfCall {
        let mut c = BpfCall::new(BPF_MAP_CREATE, 72);
        c.put_u32(0, map_type);
        c.put_u32(4, key_size);
        c.put_u32(8, value_size);
        c.put_u32(12, max_entries);
        c.put_u32(16, map_flags);
        c.put_u32(20, inner_map_fd.unwrap_or(0) as u32);
        c.put_bytes(28, &obj_name(name));
        c
    }

    /// BPF_MAP_CREATE's `btf_fd`, `btf_key_type_id` and
    /// `btf_value_type_id`, on a call of [`map_create`].
    pub fn map_create_btf(c: &mut BpfCall, btf_fd: i32, key_type_id: u32, value_type_id: u32) {
        c.put_u32(48, btf_fd as u32);
        c.put_u32(52, key_type_id);
        c.put_u32(56, value_type_id);
    }

    /// BPF_MAP_UPDATE_ELEM.
    pub fn map_update_elem(map_fd: i32, key: &[u8], value: &[u8], flags: u64) -> BpfCall {
        let mut c = BpfCall::new(BPF_MAP_UPDATE_ELEM, 32);
        c.put_u32(0, map_fd as u32);
        c.ptr_in(8, key.to_vec());
        c.ptr_in(16, value.to_vec());
        c.put_u64(24, flags);
        c
    }

    /// BPF_MAP_FREEZE.
    pub fn map_freeze(map_fd: i32) -> BpfCall {
        let mut c = BpfCall::new(BPF_MAP_FREEZE, 4);
        c.put_u32(0, map_fd as u32);
        c
    }

    /// BPF_BTF_LOAD without a log (libbpf retries with one on failure; we
    /// report the errno instead).
    pub fn btf_load(blob: &[u8]) -> BpfCall {
        let mut c = BpfCall::new(BPF_BTF_LOAD, 32);
        c.ptr_in(0, blob.to_vec());
        c.put_u32(16, blob.len() as u32);
        c
    }

    /// Offsets in the BPF_PROG_LOAD attr.
    pub mod prog_load {
        pub const LOG_LEVEL: usize = 24;
        pub const LOG_TRUE_SIZE: usize = 140;
        /// The attr size passed: `offsetofend(log_true_size)`.
        pub const SIZE: usize = 144;
    }

    /// Everything BPF_PROG_LOAD takes from us.
    #[derive(Clone, Debug, Default)]
    pub struct ProgLoad<'a> {
        pub prog_type: u32,
        pub insns: &'a [u8],
        pub license: &'a str,
        pub log_level: u32,
        /// Size of the log buffer (0: none).
        pub log_size: u32,
        pub prog_flags: u32,
        pub name: &'a str,
        pub expected_attach_type: u32,
        pub prog_btf_fd: Option<i32>,
        /// `func_info` records of `func_info_rec_size` bytes.
        pub func_info: &'a [u8],
        pub func_info_rec_size: u32,
        pub func_info_cnt: u32,
        /// `line_info` records of `line_info_rec_size` bytes.
        pub line_info: &'a [u8],
        pub line_info_rec_size: u32,
        pub line_info_cnt: u32,
        pub attach_btf_id: u32,
    }

    /// BPF_PROG_LOAD. The log buffer, when there is one (a non-zero level
    /// and size), is buffer 3; a level without a size goes without one.
    pub fn prog_load(p: &ProgLoad<'_>) -> (BpfCall, Option<u32>) {
        let mut c = BpfCall::new(BPF_PROG_LOAD, prog_load::SIZE);
        c.put_u32(0, p.prog_type);
        c.put_u32(4, (p.insns.len() / 8) as u32);
        c.ptr_in(8, p.insns.to_vec());
        let mut lic = p.license.as_bytes().to_vec();
        lic.push(0);
        c.ptr_in(16, lic);
        c.put_u32(prog_load::LOG_LEVEL, p.log_level);
        let log = if p.log_level != 0 && p.log_size != 0 {
            c.put_u32(28, p.log_size);
            Some(c.ptr_out(32, p.log_size as usize))
        } else {
            None
        };
        c.put_u32(44, p.prog_flags);
        c.put_bytes(48, &obj_name(p.name));
        c.put_u32(68, p.expected_attach_type);
        if let Some(fd) = p.prog_btf_fd {
            c.put_u32(72, fd as u32);
            if p.func_info_cnt > 0 {
                c.put_u32(76, p.func_info_rec_size);
                c.ptr_in(80, p.func_info.to_vec());
                c.put_u32(88, p.func_info_cnt);
            }
            if p.line_info_cnt > 0 {
                c.put_u32(92, p.line_info_rec_size);
                c.ptr_in(96, p.line_info.to_vec());
                c.put_u32(104, p.line_info_cnt);
            }
        }
        c.put_u32(108, p.attach_btf_id);
        (c, log)
    }

    /// BPF_OBJ_GET_INFO_BY_FD with an info struct of `info` (sent as is; the
    /// caller adds the pointers it wants filled).
    pub fn obj_get_info(fd: i32, info: Vec<u8>) -> BpfCall {
        let mut c = BpfCall::new(BPF_OBJ_GET_INFO_BY_FD, 16);
        c.put_u32(0, fd as u32);
        c.put_u32(4, info.len() as u32);
        c.ptr_in_buf(0, 8, info, true);
        c
    }

    /// Offsets in `struct bpf_prog_info`.
    pub mod prog_info {
        pub const ID: usize = 4;
        pub const TAG: usize = 8;
        pub const JITED_PROG_LEN: usize = 16;
        pub const XLATED_PROG_LEN: usize = 20;
        pub const JITED_PROG_INSNS: usize = 24;
        pub const XLATED_PROG_INSNS: usize = 32;
        pub const NR_MAP_IDS: usize = 52;
        pub const MAP_IDS: usize = 56;
        pub const NR_JITED_KSYMS: usize = 104;
        pub const NR_JITED_FUNC_LENS: usize = 108;
        pub const JITED_KSYMS: usize = 112;
        pub const JITED_FUNC_LENS: usize = 120;
        pub const VERIFIED_INSNS: usize = 216;
        /// `sizeof(struct bpf_prog_info)` in 7.3.
        pub const SIZE: usize = 232;
    }

    /// Offsets in `struct bpf_map_info`.
    pub mod map_info {
        pub const ID: usize = 4;
        /// Up to `map_extra`: all the loader reads.
        pub const SIZE: usize = 80;
    }

    /// Offsets in the BPF_PROG_TEST_RUN attr.
    pub mod test_run {
        pub const RETVAL: usize = 4;
        pub const DATA_SIZE_OUT: usize = 12;
        pub const DURATION: usize = 36;
        pub const SIZE: usize = 76;
    }

    /// BPF_PROG_TEST_RUN. `data_out`, when asked for, is buffer 2 (or 1
    /// without `data_in`).
    pub fn prog_test_run(prog_fd: i32, data_in: &[u8], data_out_size: u32, ctx_in: Option<&[u8]>, repeat: u32) -> (BpfCall, Option<u32>) {
        let mut c = BpfCall::new(BPF_PROG_TEST_RUN, test_run::SIZE);
        c.put_u32(0, prog_fd as u32);
        if !data_in.is_empty() {
            c.put_u32(8, data_in.len() as u32);
            c.ptr_in(16, data_in.to_vec());
        }
        let out = if data_out_size > 0 {
            c.put_u32(test_run::DATA_SIZE_OUT, data_out_size);
            Some(c.ptr_out(24, data_out_size as usize))
        } else {
            None
        };
        c.put_u32(32, repeat);
        if let Some(ctx) = ctx_in.filter(|ctx| !ctx.is_empty()) {
            c.put_u32(40, ctx.len() as u32);
            c.ptr_in(48, ctx.to_vec());
        }
        (c, out)
    }
}
