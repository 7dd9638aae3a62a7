//! A Debian kernel (7.3 by default) booted under QEMU TCG, for another
//! kernel version or arch than the host's.
//!
//! One boot serves many programs: the first request for an arch boots a
//! guest whose `/init` is our own loader (`harness/guest/loader.c`, built
//! static on first use and cached), and the guest stays up for the backend's
//! lifetime. Everything is prepared on the host: the attrs of each bpf(2)
//! call come from the same [`super::loader`] the kernel backend uses, kfunc
//! ids are resolved against the guest kernel's vmlinux BTF (fetched from the
//! guest once and cached on disk), and the guest only places buffers, makes
//! the call and sends back what the kernel wrote. See the wire format in
//! `loader.c`; the transport is a virtio-serial port backed by a Unix socket.
//!
//! The guest boots with `nokaslr` (kernel text addresses are stable across
//! boots; `BPF_SELFTEST_VM_KASLR=1` boots with KASLR instead, as the
//! kernel's CI does: then per-CPU and text addresses move, which changes
//! some JIT images but is not what the goldens are recorded with),
//! `bpf_jit_harden=0` (no constant blinding) and
//! `unprivileged_bpf_disabled=0` (unprivileged runs are possible). Map ids
//! start at 1 per boot, so they are deterministic for a fixed request order.

use std::collections::HashMap;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::loader::{self, Target};
use super::{Backend, LoadOutcome, LoadRequest, Unavailable};
use crate::btf::Btf;
use crate::link::LinkReloc;
use crate::object::core::RawBtf;
use crate::sys::{BpfCall, BpfReply, BpfSys, SysError};
use crate::target::Arch;

/// The kernel the vm backend boots unless told otherwise.
pub const DEFAULT_KERNEL: &str = "7.3.4+deb13";

/// The guest loader's source, built for the guest arch on first use.
const LOADER_C: &str = include_str!("../../guest/loader.c");

/// Must match `PORT_NAME` in loader.c.
const PORT_NAME: &str = "org.bpfselftest.loader";
/// Must match `PROTO_VERSION` in loader.c.
const PROTO_VERSION: u32 = 3;

const MSG_HELLO: u32 = 0x10;
const MSG_BPF: u32 = 1;
const MSG_CAPS: u32 = 2;
const MSG_CLOSE: u32 = 3;
const MSG_READ_FILE: u32 = 4;
const MSG_POWEROFF: u32 = 5;
const MSG_MAP_WRITE: u32 = 6;
const MSG_READ_RANGE: u32 = 7;
const MSG_REPLY: u32 = 0x80;

/// Where the vm backend finds its kernels and keeps its cache.
#[derive(Clone, Debug)]
pub struct VmConfig {
    /// Debian kernel version, e.g. `7.3.4+deb13`; images are
    /// `<dir>/<version>-<amd64|arm64>/vmlinuz`.
    pub kernel_version: String,
    /// Directories searched for images, in order.
    pub image_dirs: Vec<PathBuf>,
    /// Built guest loaders and fetched BTF.
    pub cache_dir: PathBuf,
    pub memory_mb: u32,
    /// Boot until the guest loader says hello.
    pub boot_timeout: Duration,
    /// One request (a program's whole load, dumps and test run).
    pub request_timeout: Duration,
    /// QEMU `-accel` (TCG by default: KVM would make the JIT output depend
    /// on the host CPU).
    pub accel: String,
    /// QEMU `-cpu` per arch.
    pub cpu_x86_64: String,
    pub cpu_arm64: String,
    /// Print every guest request with its round-trip time to stderr.
    pub trace: bool,
    /// Boot with KASLR (no `nokaslr`).
    pub kaslr: bool,
}

impl VmConfig {
    /// The defaults, overridden by `BPF_SELFTEST_VM_KERNEL`,
    /// `BPF_SELFTEST_VM_IMAGES` (a directory searched first),
    /// `BPF_SELFTEST_CACHE`, `BPF_SELFTEST_VM_TIMEOUT` (seconds per request),
    /// `BPF_SELFTEST_VM_ACCEL`, `BPF_SELFTEST_VM_CPU_X86_64`,
    /// `BPF_SELFTEST_VM_CPU_ARM64`, `BPF_SELFTEST_VM_TRACE=1` and
    /// `BPF_SELFTEST_VM_KASLR=1`.
    pub fn from_env() -> VmConfig {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let cache_dir = env("BPF_SELFTEST_CACHE").map(PathBuf::from).unwrap_or_else(default_cache_dir);
        let mut image_dirs = Vec::new();
        if let Some(d) = env("BPF_SELFTEST_VM_IMAGES") {
            image_dirs.push(PathBuf::from(d));
        }
        image_dirs.push(cache_dir.join("kernels"));
        // where setup-vm.sh puts them when BPF_SELFTEST_CACHE is not set
        image_dirs.push(PathBuf::from("/var/cache/bpf-selftest/kernels"));
        image_dirs.dedup();
        VmConfig {
            kernel_version: env("BPF_SELFTEST_VM_KERNEL").unwrap_or_else(|| DEFAULT_KERNEL.to_string()),
            image_dirs,
            cache_dir,
            memory_mb: 1024,
            boot_timeout: Duration::from_secs(120),
            request_timeout: Duration::from_secs(env("BPF_SELFTEST_VM_TIMEOUT").and_then(|v| v.parse().ok()).unwrap_or(300)),
            accel: env("BPF_SELFTEST_VM_ACCEL").unwrap_or_else(|| "tcg".into()),
            cpu_x86_64: env("BPF_SELFTEST_VM_CPU_X86_64").unwrap_or_else(|| "max,la57=off".into()),
            cpu_arm64: env("BPF_SELFTEST_VM_CPU_ARM64").unwrap_or_else(|| "max,pauth-impdef=on".into()),
            trace: env("BPF_SELFTEST_VM_TRACE").is_some_and(|v| v != "0"),
            kaslr: env("BPF_SELFTEST_VM_KASLR").is_some_and(|v| v != "0"),
        }
    }

    /// QEMU's `-cpu` for `arch`.
    pub fn cpu(&self, arch: Arch) -> &str {
        if arch == Arch::Arm64 { &self.cpu_arm64 } else { &self.cpu_x86_64 }
    }

    /// The Debian release name of the image for `arch` (`7.3.4+deb13-arm64`).
    pub fn release(&self, arch: Arch) -> Option<String> {
        debian_arch(arch).map(|d| format!("{}-{d}", self.kernel_version))
    }

    /// The `vmlinuz` for `arch`, or every place looked at.
    pub fn image(&self, arch: Arch) -> Result<PathBuf, String> {
        let rel = self.release(arch).ok_or_else(|| format!("vm: no Debian kernel images for {arch} (x86_64 and arm64 only)"))?;
        for d in &self.image_dirs {
            let p = d.join(&rel).join("vmlinuz");
            if p.is_file() {
                return Ok(p);
            }
        }
        let looked: Vec<String> = self.image_dirs.iter().map(|d| d.join(&rel).join("vmlinuz").display().to_string()).collect();
        Err(format!("vm: no {rel} kernel image (looked at {}); run scripts/setup-vm.sh as root", looked.join(", ")))
    }
}

/// `$XDG_CACHE_HOME/bpf-selftest`, `~/.cache/bpf-selftest`, or for root
/// `/var/cache/bpf-selftest` (where setup-vm.sh puts the images).
fn default_cache_dir() -> PathBuf {
    // SAFETY: geteuid() has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return PathBuf::from("/var/cache/bpf-selftest");
    }
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(x).join("bpf-selftest");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(h).join(".cache/bpf-selftest");
    }
    std::env::temp_dir().join("bpf-selftest-cache")
}

fn debian_arch(arch: Arch) -> Option<&'static str> {
    match arch {
        Arch::X86_64 => Some("amd64"),
        Arch::Arm64 => Some("arm64"),
        _ => None,
    }
}

fn qemu_binary(arch: Arch) -> &'static str {
    if arch == Arch::Arm64 { "qemu-system-aarch64" } else { "qemu-system-x86_64" }
}

/// The C compiler that builds a static guest loader for `arch`
/// (`BPF_SELFTEST_GUEST_CC_X86_64` / `_ARM64` override it).
fn guest_cc(arch: Arch) -> String {
    let var = if arch == Arch::Arm64 { "BPF_SELFTEST_GUEST_CC_ARM64" } else { "BPF_SELFTEST_GUEST_CC_X86_64" };
    if let Some(cc) = std::env::var(var).ok().filter(|v| !v.is_empty()) {
        return cc;
    }
    if Arch::host() == Some(arch) {
        return "gcc".into();
    }
    if arch == Arch::Arm64 { "aarch64-linux-gnu-gcc".into() } else { "x86_64-linux-gnu-gcc".into() }
}

fn in_path(prog: &str) -> Option<PathBuf> {
    if prog.contains('/') {
        return Path::new(prog).is_file().then(|| PathBuf::from(prog));
    }
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(prog)).find(|p| p.is_file())
}

/// FNV-1a: a stable content hash for cache file names.
fn fnv64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Writes `data` to `path` through a temporary file and a rename, so that
/// concurrent processes never see half a file.
fn write_atomic(path: &Path, data: &[u8]) -> std::io::Result<()> {
    if let Some(d) = path.parent() {
        fs::create_dir_all(d)?;
    }
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    fs::write(&tmp, data)?;
    fs::rename(&tmp, path)
}

/// The guest's initramfs: the loader as `/init`, `/dev/console` for its
/// messages, mount points. Built once per (loader source, compiler) and cached.
fn guest_initramfs(cfg: &VmConfig, arch: Arch) -> Result<PathBuf, String> {
    let cc = guest_cc(arch);
    let key = fnv64(&[LOADER_C.as_bytes(), cc.as_bytes(), arch.name().as_bytes()]);
    let dir = cfg.cache_dir.join("guest");
    let cpio = dir.join(format!("initramfs-{arch}-{key:016x}.cpio"));
    if cpio.is_file() {
        return Ok(cpio);
    }
    let cc_path = in_path(&cc).ok_or_else(|| format!("vm: cannot build the {arch} guest loader: '{cc}' is not in PATH (run scripts/setup-vm.sh as root)"))?;
    fs::create_dir_all(&dir).map_err(|e| format!("vm: cannot create {}: {e}", dir.display()))?;
    let src = dir.join(format!("loader-{key:016x}.c"));
    let bin = dir.join(format!("loader-{arch}-{key:016x}.{}", std::process::id()));
    write_atomic(&src, LOADER_C.as_bytes()).map_err(|e| format!("vm: cannot write {}: {e}", src.display()))?;
    let out = Command::new(&cc_path)
        .args(["-static", "-O2", "-s", "-Wall", "-o"])
        .arg(&bin)
        .arg(&src)
        .output()
        .map_err(|e| format!("vm: cannot run {}: {e}", cc_path.display()))?;
    if !out.status.success() {
        return Err(format!(
            "vm: building the {arch} guest loader with {cc} failed (static libc needed: libc6-dev / libc6-dev-arm64-cross):\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let init = fs::read(&bin).map_err(|e| format!("vm: cannot read {}: {e}", bin.display()));
    let _ = fs::remove_file(&bin);
    let image = cpio_newc(&[
        CpioEntry::Dir("dev"),
        CpioEntry::CharDev("dev/console", 5, 1),
        CpioEntry::Dir("proc"),
        CpioEntry::Dir("sys"),
        CpioEntry::File("init", &init?),
    ]);
    write_atomic(&cpio, &image).map_err(|e| format!("vm: cannot write {}: {e}", cpio.display()))?;
    Ok(cpio)
}

enum CpioEntry<'a> {
    Dir(&'a str),
    CharDev(&'a str, u32, u32),
    File(&'a str, &'a [u8]),
}

/// An uncompressed "newc" cpio archive, the initramfs format the kernel
/// unpacks (Documentation/driver-api/early-userspace/buffer-format.rst).
fn cpio_newc(entries: &[CpioEntry<'_>]) -> Vec<u8> {
    fn pad4(out: &mut Vec<u8>) {
        while out.len() & 3 != 0 {
            out.push(0);
        }
    }
    fn entry(out: &mut Vec<u8>, ino: u32, name: &str, mode: u32, rdev: (u32, u32), data: &[u8]) {
        let fields = [ino, mode, 0, 0, 1, 0, data.len() as u32, 0, 0, rdev.0, rdev.1, name.len() as u32 + 1, 0];
        out.extend_from_slice(b"070701");
        for f in fields {
            out.extend_from_slice(format!("{f:08x}").as_bytes());
        }
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        pad4(out);
        out.extend_from_slice(data);
        pad4(out);
    }
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let ino = i as u32 + 1;
        match e {
            CpioEntry::Dir(n) => entry(&mut out, ino, n, 0o040755, (0, 0), &[]),
            CpioEntry::CharDev(n, ma, mi) => entry(&mut out, ino, n, 0o020600, (*ma, *mi), &[]),
            CpioEntry::File(n, d) => entry(&mut out, ino, n, 0o100755, (0, 0), d),
        }
    }
    entry(&mut out, 0, "TRAILER!!!", 0, (0, 0), &[]);
    out
}

/// What a boot reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootInfo {
    /// `uname -r` in the guest.
    pub release: String,
    /// `uname -m` in the guest.
    pub machine: String,
    /// From starting QEMU to the loader's hello.
    pub boot_time: Duration,
    pub qemu_cpu: String,
}

static RUN_COUNTER: AtomicU32 = AtomicU32::new(0);

/// The guest console and QEMU's own output. The files are unlinked once the
/// guest is up (nothing is left in the temp dir, even if the process exits
/// without dropping the backend); these handles still read them.
struct Logs {
    console: Option<fs::File>,
    qemu: Option<fs::File>,
}

impl Logs {
    /// The last lines of both, for error messages.
    fn tail(&self) -> String {
        fn last_lines(f: &Option<fs::File>, n: usize) -> String {
            let mut text = Vec::new();
            if let Some(mut f) = f.as_ref() {
                use std::io::Seek;
                let _ = f.seek(std::io::SeekFrom::Start(0));
                let _ = f.read_to_end(&mut text);
            }
            let text = String::from_utf8_lossy(&text);
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(n)..].join("\n")
        }
        let (console, qemu) = (last_lines(&self.console, 30), last_lines(&self.qemu, 10));
        let mut s = String::new();
        if !qemu.trim().is_empty() {
            s.push_str(&format!("\n--- qemu ---\n{qemu}"));
        }
        if !console.trim().is_empty() {
            s.push_str(&format!("\n--- guest console ---\n{console}"));
        }
        s
    }
}

/// One running guest.
struct Session {
    child: Child,
    stream: UnixStream,
    logs: Logs,
    info: BootInfo,
    image: PathBuf,
    /// Set when the transport failed; the session is then discarded.
    dead: Option<String>,
    /// Print each request and its round-trip time (`BPF_SELFTEST_VM_TRACE`).
    trace: bool,
}

/// The prefix of a boot's directory; the process id follows it.
const RUN_DIR_PREFIX: &str = "bpf-selftest-vm-";

/// Where run directories go: the temp dir, or /tmp when the socket path
/// would not fit `sun_path` (108 bytes).
fn run_dir_parent(name: &str) -> PathBuf {
    let dir = std::env::temp_dir();
    if dir.join(name).as_os_str().len() > 90 { PathBuf::from("/tmp") } else { dir }
}

/// A private directory for one boot's socket and logs, removed once the
/// guest is up or has failed. Directories that processes no longer running
/// left behind (killed during a boot) are removed first.
fn run_dir(arch: Arch) -> Result<PathBuf, String> {
    let n = RUN_COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = format!("{RUN_DIR_PREFIX}{}-{n}-{arch}", std::process::id());
    let parent = run_dir_parent(&name);
    remove_stale_run_dirs(&parent);
    let dir = parent.join(&name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).map_err(|e| format!("vm: cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Removes the run directories in `parent` whose process is gone.
pub fn remove_stale_run_dirs(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(RUN_DIR_PREFIX)).and_then(|r| r.split('-').next()).and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        // SAFETY: kill with signal 0 only asks whether the process exists
        let gone = unsafe { libc::kill(pid, 0) } != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// Starts `cmd` so that the child is killed when this process dies, however
/// it dies (`PR_SET_PDEATHSIG`). The kernel ties that signal to the thread
/// that forked, not the process, so every QEMU is forked by one thread
/// that lives as long as the process.
fn spawn_bound_to_process(mut cmd: Command) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    use std::sync::OnceLock;
    use std::sync::mpsc::{Sender, channel};
    type Job = (Command, Sender<std::io::Result<Child>>);
    static SPAWNER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    // SAFETY: only async-signal-safe calls (prctl, getppid) between fork and exec
    unsafe {
        let parent = libc::getpid();
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // the parent may have died before prctl took effect
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("vm-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            })
            .expect("the vm backend's spawner thread");
        Mutex::new(tx)
    });
    let (tx, rx) = channel();
    spawner.lock().unwrap_or_else(|p| p.into_inner()).send((cmd, tx)).map_err(|_| std::io::Error::other("the spawner thread is gone"))?;
    rx.recv().map_err(|_| std::io::Error::other("the spawner thread is gone"))?
}

impl Session {
    fn boot(cfg: &VmConfig, arch: Arch) -> Result<Session, String> {
        let image = cfg.image(arch)?;
        let qemu = in_path(qemu_binary(arch)).ok_or_else(|| format!("vm: {} is not in PATH (run scripts/setup-vm.sh as root)", qemu_binary(arch)))?;
        let initramfs = guest_initramfs(cfg, arch)?;
        let dir = run_dir(arch)?;
        let r = Session::start(cfg, arch, &image, &qemu, &initramfs, &dir);
        let _ = fs::remove_dir_all(&dir);
        r
    }

    fn start(cfg: &VmConfig, arch: Arch, image: &Path, qemu: &Path, initramfs: &Path, dir: &Path) -> Result<Session, String> {
        let sock = dir.join("loader.sock");
        let listener = UnixListener::bind(&sock).map_err(|e| format!("vm: cannot listen on {}: {e}", sock.display()))?;
        listener.set_nonblocking(true).map_err(|e| format!("vm: {e}"))?;

        let (console, machine) = if arch == Arch::Arm64 { ("ttyAMA0", "virt") } else { ("ttyS0", "pc") };
        // (KASLR is the Debian kernels' default: nothing to add for it)
        let kaslr = if cfg.kaslr { "" } else { " nokaslr" };
        let append = format!(
            "console={console} quiet{kaslr} panic=-1 rdinit=/init \
             sysctl.net.core.bpf_jit_harden=0 sysctl.kernel.unprivileged_bpf_disabled=0"
        );
        let console_log = dir.join("console.log");
        let qemu_log_path = dir.join("qemu.log");
        let qemu_log = fs::File::create(&qemu_log_path).map_err(|e| format!("vm: {e}"))?;
        let qemu_err = qemu_log.try_clone().map_err(|e| format!("vm: {e}"))?;
        let mut logs = Logs { console: None, qemu: fs::File::open(&qemu_log_path).ok() };
        let mut cmd = Command::new(qemu);
        cmd.args(["-nodefaults", "-no-user-config", "-display", "none", "-no-reboot"])
            .args(["-machine", machine, "-accel", &cfg.accel, "-cpu", cfg.cpu(arch)])
            .args(["-smp", "1", "-m", &cfg.memory_mb.to_string()])
            .arg("-kernel")
            .arg(image)
            .arg("-initrd")
            .arg(initramfs)
            .args(["-append", &append])
            .arg("-serial")
            .arg(format!("file:{}", console_log.display()))
            .args(["-device", "virtio-serial-pci,id=vser0"])
            .arg("-chardev")
            .arg(format!("socket,id=loader,path={}", sock.display()))
            .args(["-device", &format!("virtserialport,bus=vser0.0,chardev=loader,name={PORT_NAME}")])
            .stdin(Stdio::null())
            .stdout(qemu_log)
            .stderr(qemu_err);
        let started = Instant::now();
        let mut child = spawn_bound_to_process(cmd).map_err(|e| format!("vm: cannot start {}: {e}", qemu.display()))?;
        let fail = |child: &mut Child, logs: &mut Logs, what: String| {
            let _ = child.kill();
            let _ = child.wait();
            if logs.console.is_none() {
                logs.console = fs::File::open(&console_log).ok();
            }
            format!("{what}{}", logs.tail())
        };
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(fail(&mut child, &mut logs, format!("vm: accept on {}: {e}", sock.display()))),
            }
            if let Ok(Some(st)) = child.try_wait() {
                return Err(fail(&mut child, &mut logs, format!("vm: {} exited ({st}) before connecting", qemu.display())));
            }
            if started.elapsed() > cfg.boot_timeout {
                return Err(fail(&mut child, &mut logs, "vm: QEMU did not connect to the loader socket".into()));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        drop(listener);
        // QEMU has created the console file by the time it connects
        logs.console = fs::File::open(&console_log).ok();
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_read_timeout(Some(cfg.boot_timeout));
        let mut s = Session {
            child,
            stream,
            logs,
            info: BootInfo { release: String::new(), machine: String::new(), boot_time: Duration::ZERO, qemu_cpu: cfg.cpu(arch).into() },
            image: image.to_path_buf(),
            dead: None,
            trace: cfg.trace,
        };
        let hello = s.recv(MSG_HELLO).map_err(|e| format!("vm: the {arch} guest did not come up: {e}"))?;
        let version = hello.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if version != Some(PROTO_VERSION) {
            return Err(format!("vm: the guest loader speaks protocol {version:?}, not {PROTO_VERSION}"));
        }
        let mut strs = hello[4..].split(|&b| b == 0).map(|s| String::from_utf8_lossy(s).into_owned());
        s.info.release = strs.next().unwrap_or_default();
        s.info.machine = strs.next().unwrap_or_default();
        s.info.boot_time = started.elapsed();
        let _ = s.stream.set_read_timeout(Some(cfg.request_timeout));
        Ok(s)
    }

    fn send(&mut self, ty: u32, payload: &[u8]) -> Result<(), SysError> {
        let mut frame = Vec::with_capacity(8 + payload.len());
        frame.extend_from_slice(&ty.to_le_bytes());
        frame.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        frame.extend_from_slice(payload);
        self.stream.write_all(&frame).map_err(|e| self.broken(format!("sending to the guest: {e}")))
    }

    fn recv(&mut self, ty: u32) -> Result<Vec<u8>, SysError> {
        let mut hdr = [0u8; 8];
        self.stream.read_exact(&mut hdr).map_err(|e| self.broken(read_error(e)))?;
        let got = u32::from_le_bytes([hdr[0], hdr[1], hdr[2], hdr[3]]);
        let len = u32::from_le_bytes([hdr[4], hdr[5], hdr[6], hdr[7]]) as usize;
        if got != ty || len > 512 << 20 {
            return Err(self.broken(format!("protocol error: got message {got:#x} of {len} bytes, expected {ty:#x}")));
        }
        let mut payload = vec![0; len];
        self.stream.read_exact(&mut payload).map_err(|e| self.broken(read_error(e)))?;
        Ok(payload)
    }

    fn request(&mut self, ty: u32, payload: &[u8]) -> Result<Vec<u8>, SysError> {
        if let Some(d) = &self.dead {
            return Err(SysError::Transport(d.clone()));
        }
        let t = Instant::now();
        self.send(ty, payload)?;
        let r = self.recv(ty | MSG_REPLY);
        if self.trace {
            let what = match ty {
                MSG_BPF => format!("bpf cmd {}", payload.get(..4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
                MSG_CAPS => "capabilities".into(),
                MSG_CLOSE => "close".into(),
                MSG_MAP_WRITE => "map write".into(),
                MSG_READ_RANGE => "read range".into(),
                _ => "read file".into(),
            };
            eprintln!("vm {}: {what}: {} bytes out, {:?}", self.info.release, payload.len(), t.elapsed());
        }
        r
    }

    /// Marks the session dead; the message says how QEMU ended, if it did,
    /// and carries the end of the console.
    fn broken(&mut self, what: String) -> SysError {
        if self.dead.is_some() {
            return SysError::Transport(self.dead.clone().unwrap_or_default());
        }
        // give a dying QEMU a moment to be reaped, for its exit status
        let mut status = None;
        for _ in 0..20 {
            if let Ok(Some(st)) = self.child.try_wait() {
                status = Some(st);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let qemu = status.map(|st| format!(" (QEMU {st})")).unwrap_or_default();
        let msg = format!("guest {} lost: {what}{qemu}{}", self.info.release, self.logs.tail());
        self.dead = Some(msg.clone());
        SysError::Transport(msg)
    }

    /// A file of the guest (its vmlinux BTF).
    fn read_file(&mut self, path: &str) -> Result<Vec<u8>, String> {
        let r = self.request(MSG_READ_FILE, path.as_bytes()).map_err(|e| format!("vm: {e}"))?;
        let errno = r.get(..4).map_or(libc::EPROTO, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if errno != 0 {
            return Err(format!("vm: reading {path} in the guest failed: {}", crate::sys::errno_desc(errno)));
        }
        Ok(r[4..].to_vec())
    }
}

fn read_error(e: std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => "timed out waiting for the guest".into(),
        std::io::ErrorKind::UnexpectedEof => "the guest closed the connection (crashed or powered off)".into(),
        _ => format!("reading from the guest: {e}"),
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.dead.is_none() {
            let _ = self.send(MSG_POWEROFF, &[]);
            let deadline = Instant::now() + Duration::from_secs(3);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Request encoding: `u32 cmd, u32 nbufs, u32 nptrs`, per buffer
/// `u32 flags, u32 size, u32 len, data[len]` (trailing zeros left out), per
/// pointer `u32 buf, u32 off, u32 target`.
fn encode_bpf(call: &BpfCall) -> Vec<u8> {
    let mut p = Vec::new();
    let u32s = |p: &mut Vec<u8>, v: &[u32]| v.iter().for_each(|x| p.extend_from_slice(&x.to_le_bytes()));
    u32s(&mut p, &[call.cmd, call.bufs.len() as u32, call.ptrs.len() as u32]);
    for b in &call.bufs {
        let len = b.data.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
        u32s(&mut p, &[u32::from(b.out), b.data.len() as u32, len as u32]);
        p.extend_from_slice(&b.data[..len]);
    }
    for f in &call.ptrs {
        u32s(&mut p, &[f.buf, f.off, f.target]);
    }
    p
}

/// Reply decoding: `i64 ret, i32 errno, u32 nout`, per written buffer
/// `u32 index, u32 len, data[len]` (zero-padded back to its size here).
fn decode_bpf(call: &BpfCall, r: &[u8]) -> Result<BpfReply, String> {
    let mut at = 0;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = r.get(at..at + n).ok_or_else(|| "truncated bpf reply".to_string())?;
        at += n;
        Ok(s)
    };
    let ret = i64::from_le_bytes(take(8)?.try_into().map_err(|_| "bad reply")?);
    let errno = i32::from_le_bytes(take(4)?.try_into().map_err(|_| "bad reply")?);
    let nout = u32::from_le_bytes(take(4)?.try_into().map_err(|_| "bad reply")?);
    let mut bufs: Vec<Vec<u8>> = call.bufs.iter().map(|b| b.data.clone()).collect();
    for _ in 0..nout {
        let idx = u32::from_le_bytes(take(4)?.try_into().map_err(|_| "bad reply")?) as usize;
        let len = u32::from_le_bytes(take(4)?.try_into().map_err(|_| "bad reply")?) as usize;
        let data = take(len)?;
        let b = bufs.get_mut(idx).ok_or_else(|| format!("bpf reply names buffer {idx}"))?;
        if len > b.len() {
            return Err(format!("bpf reply overflows buffer {idx}"));
        }
        b[..len].copy_from_slice(data);
        b[len..].fill(0);
    }
    Ok(BpfReply { ret, errno, bufs })
}

impl BpfSys for Session {
    fn bpf(&mut self, call: &BpfCall) -> Result<BpfReply, SysError> {
        call.validate().map_err(SysError::Transport)?;
        let r = self.request(MSG_BPF, &encode_bpf(call))?;
        decode_bpf(call, &r).map_err(|e| self.broken(e))
    }

    fn cap_effective(&mut self, clear: u64, set: u64) -> Result<u64, SysError> {
        let mut p = clear.to_le_bytes().to_vec();
        p.extend_from_slice(&set.to_le_bytes());
        let r = self.request(MSG_CAPS, &p)?;
        if r.len() != 16 {
            return Err(self.broken("bad capabilities reply".into()));
        }
        let errno = i32::from_le_bytes([r[0], r[1], r[2], r[3]]);
        if errno != 0 {
            return Err(SysError::Errno { what: "capset in the guest", errno });
        }
        Ok(u64::from_le_bytes(r[8..16].try_into().unwrap_or([0; 8])))
    }

    fn close(&mut self, fds: &[i32]) -> Result<(), SysError> {
        let mut p = (fds.len() as u32).to_le_bytes().to_vec();
        for fd in fds {
            p.extend_from_slice(&fd.to_le_bytes());
        }
        self.request(MSG_CLOSE, &p).map(|_| ())
    }

    fn map_mmap_write(&mut self, fd: i32, addr: u64, len: u64, off: u64, data: &[u8]) -> Result<i32, SysError> {
        let mut p = fd.to_le_bytes().to_vec();
        for v in [addr, len, off] {
            p.extend_from_slice(&v.to_le_bytes());
        }
        p.extend_from_slice(data);
        let r = self.request(MSG_MAP_WRITE, &p)?;
        match r.get(..4) {
            Some(b) if r.len() == 4 => Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            _ => Err(self.broken("bad map write reply".into())),
        }
    }

    fn read_range(&mut self, path: &str, off: u64, len: u64) -> Result<Result<Vec<u8>, i32>, SysError> {
        let mut p = off.to_le_bytes().to_vec();
        p.extend_from_slice(&len.to_le_bytes());
        p.extend_from_slice(path.as_bytes());
        let r = self.request(MSG_READ_RANGE, &p)?;
        let Some(b) = r.get(..4) else {
            return Err(self.broken("bad read range reply".into()));
        };
        match i32::from_le_bytes([b[0], b[1], b[2], b[3]]) {
            0 => Ok(Ok(r[4..].to_vec())),
            errno => Ok(Err(errno)),
        }
    }
}

/// Per-arch state: the running guest (or why it cannot run) and the
/// guest kernel's BTF.
#[derive(Default)]
struct ArchState {
    session: Option<Session>,
    /// A boot failure is remembered so that every later request does not
    /// pay for another failing boot.
    boot_error: Option<String>,
    vmlinux: Option<Arc<Btf>>,
    /// The same BTF with its blob, for CO-RE relocations.
    core_btf: Option<Arc<RawBtf>>,
    boots: Vec<BootInfo>,
}

/// The vm backend. Guests are booted on first use (one per arch) and
/// powered off when the backend is dropped or the process exits.
pub struct VmBackend {
    config: VmConfig,
    arches: HashMap<Arch, Mutex<ArchState>>,
}

impl Default for VmBackend {
    fn default() -> VmBackend {
        VmBackend::new(VmConfig::from_env())
    }
}

impl VmBackend {
    pub fn new(config: VmConfig) -> VmBackend {
        let arches = [Arch::X86_64, Arch::Arm64].into_iter().map(|a| (a, Mutex::new(ArchState::default()))).collect();
        VmBackend { config, arches }
    }

    pub fn from_env() -> VmBackend {
        VmBackend::new(VmConfig::from_env())
    }

    pub fn config(&self) -> &VmConfig {
        &self.config
    }

    /// The boots so far for `arch` (release, time to the loader's hello).
    pub fn boots(&self, arch: Arch) -> Vec<BootInfo> {
        self.arches.get(&arch).map(|m| lock(m).boots.clone()).unwrap_or_default()
    }

    /// Powers off the guest of `arch` (the next request boots a new one).
    pub fn shutdown(&self, arch: Arch) {
        if let Some(m) = self.arches.get(&arch) {
            lock(m).session = None;
        }
    }

    fn state(&self, arch: Arch) -> Result<&Mutex<ArchState>, Unavailable> {
        self.arches.get(&arch).ok_or_else(|| Unavailable(format!("vm: no Debian kernel images for {arch} (x86_64 and arm64 only)")))
    }

    /// The guest kernel's vmlinux BTF: from the disk cache, else fetched
    /// from the guest once and cached (keyed by release and image file).
    fn vmlinux(&self, st: &mut ArchState) -> Result<Arc<Btf>, String> {
        if let Some(b) = &st.vmlinux {
            return Ok(b.clone());
        }
        let (release, data) = self.vmlinux_bytes(st)?;
        let btf = Arc::new(Btf::parse(&data).map_err(|e| format!("vm: vmlinux BTF of {release}: {e}"))?);
        st.vmlinux = Some(btf.clone());
        Ok(btf)
    }

    /// The guest kernel's vmlinux BTF with its blob, for CO-RE (what libbpf
    /// in the guest reads from `/sys/kernel/btf/vmlinux`).
    fn core_btf(&self, st: &mut ArchState) -> Result<Arc<RawBtf>, String> {
        if let Some(b) = &st.core_btf {
            return Ok(b.clone());
        }
        let (release, data) = self.vmlinux_bytes(st)?;
        let btf = Arc::new(RawBtf::new(data).map_err(|e| format!("vm: vmlinux BTF of {release}: {e}"))?);
        st.core_btf = Some(btf.clone());
        Ok(btf)
    }

    /// The guest's release and its vmlinux BTF blob: from the disk cache,
    /// else fetched from the guest and cached.
    fn vmlinux_bytes(&self, st: &mut ArchState) -> Result<(String, Vec<u8>), String> {
        let s = st.session.as_mut().ok_or("vm: no guest")?;
        let meta = fs::metadata(&s.image).map_err(|e| format!("vm: {}: {e}", s.image.display()))?;
        let mtime = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_secs());
        let path = self.config.cache_dir.join("btf").join(format!("{}-{}-{mtime}.btf", s.info.release, meta.len()));
        let data = match fs::read(&path) {
            Ok(d) => d,
            Err(_) => {
                let d = s.read_file(crate::backend::kernel::VMLINUX_BTF)?;
                // a cache that cannot be written only costs a refetch next time
                let _ = write_atomic(&path, &d);
                d
            }
        };
        Ok((s.info.release.clone(), data))
    }

    /// Boots the guest of `arch` unless one is running (a dead one is
    /// replaced; a failed boot is not retried).
    fn ensure_session(&self, st: &mut ArchState, arch: Arch) -> Result<(), Unavailable> {
        if st.session.as_ref().is_some_and(|s| s.dead.is_some()) {
            st.session = None;
        }
        if st.session.is_none() {
            if let Some(e) = &st.boot_error {
                return Err(Unavailable(e.clone()));
            }
            match Session::boot(&self.config, arch) {
                Ok(s) => {
                    st.boots.push(s.info.clone());
                    st.session = Some(s);
                }
                Err(e) => {
                    st.boot_error = Some(e.clone());
                    return Err(Unavailable(e));
                }
            }
        }
        Ok(())
    }

    /// Runs `f` on the guest of `arch` (booted if none is running) with
    /// its vmlinux BTF: raw bpf(2) calls and file reads for the recorders
    /// that drive the kernel themselves (trampoline images).
    pub fn with_sys<R>(&self, arch: Arch, f: impl FnOnce(&mut dyn BpfSys, &Btf) -> R) -> Result<R, Unavailable> {
        let mut st = lock(self.state(arch)?);
        self.ensure_session(&mut st, arch)?;
        let btf = self.vmlinux(&mut st).map_err(Unavailable)?;
        let s = st.session.as_mut().ok_or_else(|| Unavailable("vm: no guest".into()))?;
        Ok(f(s, &btf))
    }

    /// A file of the guest of `arch` (`/proc/kallsyms`, `/sys/kernel/btf/vmlinux`),
    /// read as the guest's root; boots the guest if none is running.
    pub fn guest_file(&self, arch: Arch, path: &str) -> Result<Vec<u8>, Unavailable> {
        let mut st = lock(self.state(arch)?);
        self.ensure_session(&mut st, arch)?;
        let s = st.session.as_mut().ok_or_else(|| Unavailable("vm: no guest".into()))?;
        s.read_file(path).map_err(Unavailable)
    }

    /// The guest kernel's `/proc/kallsyms` (a `nokaslr` boot, so the
    /// addresses are the image's own): from the disk cache, else read from
    /// a guest once and cached (keyed like the vmlinux BTF). With
    /// `BPF_SELFTEST_VM_KASLR=1` the addresses move with each boot: then
    /// nothing is cached.
    pub fn kallsyms(&self, arch: Arch) -> Result<String, Unavailable> {
        let image = self.config.image(arch).map_err(Unavailable)?;
        let rel = self.config.release(arch).unwrap_or_default();
        let meta = fs::metadata(&image).map_err(|e| Unavailable(format!("vm: {}: {e}", image.display())))?;
        let mtime = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_secs());
        let path = self.config.cache_dir.join("kallsyms").join(format!("{rel}-{}-{mtime}.txt", meta.len()));
        if !self.config.kaslr
            && let Ok(text) = fs::read_to_string(&path)
        {
            return Ok(text);
        }
        let data = self.guest_file(arch, "/proc/kallsyms")?;
        let text = String::from_utf8(data).map_err(|_| Unavailable(format!("vm: {rel}: /proc/kallsyms is not text")))?;
        if text.lines().next().is_none_or(|l| l.starts_with("0000000000000000")) {
            return Err(Unavailable(format!("vm: {rel}: /proc/kallsyms shows no addresses (kptr_restrict?)")));
        }
        if !self.config.kaslr {
            // a cache that cannot be written only costs a boot next time
            let _ = write_atomic(&path, text.as_bytes());
        }
        Ok(text)
    }

    /// Loads `reqs` in order, one guest per arch, with other
    /// [`loader::LoadSettings`] than test_loader's (the recorders of sets
    /// first recorded by another tool).
    pub fn load_batch_with(&self, reqs: &[LoadRequest], how: &loader::LoadSettings) -> Vec<Result<LoadOutcome, Unavailable>> {
        reqs.iter()
            .map(|r| {
                let st = self.state(r.arch)?;
                self.load_in(&mut lock(st), r, how)
            })
            .collect()
    }

    fn load_in(&self, st: &mut ArchState, req: &LoadRequest, how: &loader::LoadSettings) -> Result<LoadOutcome, Unavailable> {
        self.ensure_session(st, req.arch)?;
        let needs_btf = req.attach_func.is_some() || req.prog.relocs.iter().any(|r| matches!(r, LinkReloc::Kfunc { .. } | LinkReloc::BtfId { .. }));
        let vmlinux = if needs_btf { Some(self.vmlinux(st).map_err(Unavailable)?) } else { None };
        let core = if crate::object::core::has_core(req) { Some(self.core_btf(st).map_err(Unavailable)?) } else { None };
        let target = Target { backend: "vm", vmlinux: vmlinux.as_deref(), core: core.as_deref() };
        let Some(session) = st.session.as_mut() else {
            return Err(Unavailable("vm: no guest".into()));
        };
        loader::load_with(session, &target, req, how)
    }
}

fn lock(m: &Mutex<ArchState>) -> std::sync::MutexGuard<'_, ArchState> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Backend for VmBackend {
    fn name(&self) -> &'static str {
        "vm"
    }

    /// Cheap checks only (no boot): QEMU, the image, the guest loader or a
    /// compiler for it, and no earlier boot failure.
    fn probe(&self, arch: Arch) -> Result<(), Unavailable> {
        let st = self.state(arch)?;
        if let Some(e) = &lock(st).boot_error {
            return Err(Unavailable(e.clone()));
        }
        self.config.image(arch).map_err(Unavailable)?;
        if in_path(qemu_binary(arch)).is_none() {
            return Err(Unavailable(format!("vm: {} is not in PATH (run scripts/setup-vm.sh as root)", qemu_binary(arch))));
        }
        let cc = guest_cc(arch);
        let key = fnv64(&[LOADER_C.as_bytes(), cc.as_bytes(), arch.name().as_bytes()]);
        let cached = self.config.cache_dir.join("guest").join(format!("initramfs-{arch}-{key:016x}.cpio"));
        if !cached.is_file() && in_path(&cc).is_none() {
            return Err(Unavailable(format!("vm: cannot build the {arch} guest loader: '{cc}' is not in PATH (run scripts/setup-vm.sh as root)")));
        }
        Ok(())
    }

    /// QEMU, the images and a guest booted from them, for the arches
    /// Debian has 7.3 images of.
    fn requires(&self, arch: Arch) -> Option<crate::require::Component> {
        self.arches.contains_key(&arch).then_some(crate::require::Component::Vm)
    }

    /// The Debian kernel version booted (`7.3.4+deb13`); the per-arch
    /// release is [`VmConfig::release`].
    fn kernel_release(&self) -> String {
        self.config.kernel_version.clone()
    }

    fn load(&self, req: &LoadRequest) -> Result<LoadOutcome, Unavailable> {
        let st = self.state(req.arch)?;
        self.load_in(&mut lock(st), req, &loader::LoadSettings::default())
    }

    /// All of `reqs` through one guest per arch, in order.
    fn load_batch(&self, reqs: &[LoadRequest]) -> Vec<Result<LoadOutcome, Unavailable>> {
        reqs.iter().map(|r| self.load(r)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpio_layout() {
        let c = cpio_newc(&[CpioEntry::Dir("dev"), CpioEntry::File("init", b"abc")]);
        assert!(c.starts_with(b"070701"));
        assert_eq!(c.len() % 4, 0);
        let s = String::from_utf8_lossy(&c);
        assert!(s.contains("init\0") && s.contains("abc") && s.contains("TRAILER!!!\0"));
        // header (110) + "dev\0" = 114 -> padded to 116
        assert_eq!(&c[116..122], b"070701");
    }

    #[test]
    fn bpf_wire_round_trip() {
        let mut call = BpfCall::new(5, 16);
        call.put_u32(0, 7);
        let log = call.ptr_out(8, 32);
        let r = {
            let mut p = Vec::new();
            p.extend_from_slice(&3i64.to_le_bytes());
            p.extend_from_slice(&0i32.to_le_bytes());
            p.extend_from_slice(&1u32.to_le_bytes());
            p.extend_from_slice(&log.to_le_bytes());
            p.extend_from_slice(&2u32.to_le_bytes());
            p.extend_from_slice(b"ok");
            p
        };
        let reply = decode_bpf(&call, &r).unwrap();
        assert_eq!(reply.ret, 3);
        assert_eq!(&reply.buf(log)[..3], b"ok\0");
        assert_eq!(reply.buf(log).len(), 32);
        let enc = encode_bpf(&call);
        // cmd, nbufs, nptrs; attr: flags, size 16, len 1 (trailing zeros cut)
        assert_eq!(&enc[..24], &[5, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0, 1, 0, 0, 0]);
        assert!(decode_bpf(&call, &r[..10]).is_err());
    }
}
