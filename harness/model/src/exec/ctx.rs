//! `BPF_PROG_TEST_RUN` per program type (net/bpf/test_run.c): the input
//! checks and errnos, the ctx and packet the program gets, and what comes
//! back.
//!
//! The ctx is the UAPI struct (`struct __sk_buff`, `struct xdp_md`) as the
//! program as loaded reads it: plain fields are bytes of the ctx region,
//! filled as the kernel's test run fills the `sk_buff`/`xdp_buff` behind
//! them; the pointer fields (`data`, `data_end`, `data_meta`, `sk`) are
//! 32-bit (or `__bpf_md_ptr`) fields the verifier turns into 64-bit pointer
//! loads, so a load of one gives the pointer (`Runtime::ctx_load`).
//!
//! skb types: the data is an Ethernet frame (at least `ETH_HLEN` bytes);
//! `eth_type_trans` sets `protocol` and `pkt_type` and pulls the MAC
//! header, which only `tc`/`action` (L2 types) push back, so a socket
//! filter sees `len` 50 and `data` past the header for 64 bytes in; the
//! device is the loopback (ifindex 1); `skb->sk` is a dummy socket
//! (`AF_UNSPEC`, `TCP_CLOSE`). After the run, for L3 types the header is
//! pushed back zeroed, and `data_out` is the frame.

use super::TestRunInput;
use super::mem::{Addr, RegionKind};
use super::{ExecError, ExecProgram, Runtime, TestRunOutput};
use crate::kernel_layout::{SIZEOF_BPF_FLOW_DISSECTOR, SIZEOF_BPF_SK_LOOKUP_KERN, SIZEOF_SK_BUFF_CB, SIZEOF_SKB_SHARED_INFO};
use crate::prog_type::ProgType;
use crate::uapi::{__sk_buff, bpf_flow_keys, bpf_sk_lookup, bpf_sock, xdp_md};
use crate::verifier::errno::*;

pub const ETH_HLEN: usize = 14;
/// `NET_SKB_PAD + NET_IP_ALIGN` of a test-run skb on x86-64.
const SKB_HEADROOM: usize = 64;
/// `MAX_SKB_FRAGS`: the page fragments a test-run packet may take.
const MAX_SKB_FRAGS: usize = 17;
/// `XDP_PACKET_HEADROOM`.
const XDP_HEADROOM: usize = 256;
/// Tail room the model gives every packet (the kernel's depends on the
/// allocation; helpers that grow packets may use it).
const TAILROOM: usize = 512;
/// `SKF_NET_OFF` and `SKF_LL_OFF` of classic BPF, which `LD_ABS` honours.
const SKF_NET_OFF: i32 = -0x10_0000;
const SKF_LL_OFF: i32 = -0x20_0000;
/// The loopback device's ifindex, the test run's device.
const LOOPBACK_IFINDEX: u32 = 1;
/// `PAGE_SIZE`: `bpf_test_init` refuses larger packets (no head- or
/// tailroom for flow dissector runs).
const PAGE_SIZE: usize = crate::target::PAGE_SIZE as usize;

/// What the ctx region is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CtxKind {
    SkBuff,
    XdpMd,
    /// Bytes with no special fields (syscall, raw_tp).
    Plain,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx {
    pub addr: Addr,
    pub len: usize,
    pub kind: CtxKind,
}

/// The packet of a test run: one region with head- and tailroom, and
/// offsets into it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    pub buf: Addr,
    /// `data`, `data_end` (end of the linear data) and `data_meta`.
    pub data: u64,
    pub data_end: u64,
    pub meta: u64,
    /// MAC and network header offsets (skb).
    pub mac: u64,
    pub network: u64,
}

/// What a test run set up.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunEnv {
    pub prog_type: u32,
    pub ctx: Option<Ctx>,
    pub pkt: Option<Packet>,
    /// The dummy socket of skb runs (`struct bpf_sock` view).
    pub sk: Addr,
    /// xdp: the data past the linear part (page fragments), which the
    /// program reaches only through helpers.
    pub frags: Vec<u8>,
    /// The kernel's object behind the ctx, for programs that read it
    /// (xlated programs).
    pub kview: Option<KView>,
    /// The byte ranges a load may read of the objects of `kview`, worked
    /// out once when it is built (every load from them checks them).
    kview_known: Option<Box<KViewKnown>>,
}

/// [`Known`] of the kernel object behind the ctx, its socket and its
/// shared info.
#[derive(Clone, Copy, Debug, Default)]
struct KViewKnown {
    kview: Known,
    sock: Known,
    shinfo: Known,
}

/// The kernel's object behind a ctx (`struct sk_buff` or `struct
/// xdp_buff` at the Debian 7.3 offsets of `kernel_layout`),
/// kept in step with the uapi view the helpers and the test run use:
/// refreshed from it at the start and after every call, written back
/// before every call and at the end. Only the fields a test run fills are
/// modelled; a load of any other byte stops the run as not modelled.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KView {
    pub addr: Addr,
    pub kind: CtxKind,
    /// `skb->dev` / `xdp->rxq->dev`: the loopback.
    pub dev: Addr,
    /// `xdp->rxq`.
    pub rxq: Addr,
    /// `skb->sk`: the kernel's `struct sock` of the dummy socket.
    pub sock: Addr,
    /// `skb_shinfo(skb)` (`skb->head + skb->end`): the gso fields and
    /// `hwtstamps` a test run copies in from the ctx (0: none).
    pub shinfo: Addr,
}

/// Room for `struct sock` up to `sk_type`.
const SOCK_SIZE: usize = 1024;

/// Room for `struct sk_buff` (232 bytes on 7.3 x86-64/arm64).
const KVIEW_SIZE: usize = 256;
/// `struct net_device` up to `ifindex` and a little more.
const NET_DEVICE_SIZE: usize = 256;
/// `struct xdp_rxq_info`, the part that is read.
const XDP_RXQ_SIZE: usize = 64;

/// A lower bound of `prog->aux->max_ctx_offset` (the end of the furthest
/// ctx access the verifier saw): the ctx accesses of the program's
/// straight-line start, which every path runs, through r1 or a copy of it
/// at a constant offset. Past the first jump, call or exit nothing more is
/// known.
pub(crate) fn ctx_access_lower_bound(insns: &[bpf_isa::Insn]) -> u32 {
    use bpf_isa::op::*;
    // the registers holding the ctx pointer, with their offsets
    let mut ctx: [Option<i64>; 11] = [None; 11];
    ctx[1] = Some(0);
    let mut bound = 0u32;
    let mut pc = 0;
    while let Some(i) = insns.get(pc) {
        let (d, sr) = (i.dst as usize, i.src as usize);
        if d > 10 || sr > 10 {
            break;
        }
        let class = i.code & 0x07;
        let mode = i.code & 0xe0;
        let size = match i.code & 0x18 {
            BPF_B => 1,
            BPF_H => 2,
            BPF_W => 4,
            _ => 8,
        };
        let access = |base: Option<i64>| base.map(|b| (b + i.off as i64 + size).clamp(0, u32::MAX as i64) as u32);
        match class {
            BPF_LDX => {
                if matches!(mode, BPF_MEM | BPF_MEMSX) {
                    bound = bound.max(access(ctx[sr]).unwrap_or(0));
                }
                ctx[d] = None;
            }
            BPF_ST | BPF_STX => {
                if mode == BPF_MEM {
                    bound = bound.max(access(ctx[d]).unwrap_or(0));
                } else {
                    // atomics may load into src or r0
                    ctx[sr] = None;
                    ctx[0] = None;
                }
            }
            BPF_ALU64 if i.code & 0xf0 == BPF_MOV && i.code & BPF_X != 0 && i.off == 0 => ctx[d] = ctx[sr],
            BPF_ALU64 if i.code & 0xf0 == BPF_ADD && i.code & BPF_X == 0 => ctx[d] = ctx[d].map(|o| o + i.imm as i64),
            BPF_ALU64 if i.code & 0xf0 == BPF_SUB && i.code & BPF_X == 0 => ctx[d] = ctx[d].map(|o| o - i.imm as i64),
            BPF_ALU | BPF_ALU64 => ctx[d] = None,
            BPF_LD if i.is_ld_imm64() => {
                ctx[d] = None;
                pc += 1;
            }
            _ => break,
        }
        pc += 1;
    }
    bound
}

/// The bytes of the `len`-byte field at `off` of a uapi struct.
fn uapi_field(off: i16, len: usize) -> std::ops::Range<usize> {
    off as usize..off as usize + len
}

fn put_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

fn get_u32(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

fn zero(b: &[u8]) -> bool {
    b.iter().all(|&x| x == 0)
}

/// `bpf_check_uarg_tail_zero`: a user struct of `c.len()` bytes where the
/// kernel knows `expected`: E2BIG when it is over a page ("silly large") or
/// has a non-zero byte past `expected`.
fn check_uarg_tail_zero(c: &[u8], expected: usize) -> Result<(), ExecError> {
    if c.len() > PAGE_SIZE || (c.len() > expected && !zero(&c[expected..])) {
        return Err(ExecError::TestRun(E2BIG));
    }
    Ok(())
}

/// Byte ranges (start, end) of a kernel object that the model fills, held
/// inline (a load checks them: no allocation per load).
#[derive(Clone, Copy, Debug, Default)]
struct Known {
    ranges: [(usize, usize); 24],
    len: usize,
}

impl Known {
    fn of(ranges: &[(usize, usize)]) -> Known {
        let mut k = Known::default();
        for &r in ranges {
            k.push(r);
        }
        k
    }

    /// Whether every byte of `[off, off + size)` is in one of the ranges.
    fn covers(&self, off: usize, size: usize) -> bool {
        let (mut at, end) = (off, off + size);
        while at < end {
            match self.iter().find(|&&(s, e)| (s..e).contains(&at)) {
                Some(&(_, e)) => at = e,
                None => return false,
            }
        }
        true
    }

    fn push(&mut self, r: (usize, usize)) {
        self.ranges[self.len] = r;
        self.len += 1;
    }
}

impl std::ops::Deref for Known {
    type Target = [(usize, usize)];
    fn deref(&self) -> &[(usize, usize)] {
        &self.ranges[..self.len]
    }
}

impl Runtime {
    /// One `BPF_PROG_TEST_RUN` of `prog` as a program of type `ty`.
    pub fn test_run(&mut self, prog: &ExecProgram, ty: ProgType, attach: Option<u32>, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
        use crate::prog_type::bpf_attach_type::{MODIFY_RETURN, TRACE_FENTRY, TRACE_FEXIT, XDP_CPUMAP, XDP_DEVMAP};
        use crate::prog_type::bpf_prog_type::*;
        self.progs[0] = std::rc::Rc::new(super::interp::Prepared::new(prog.clone()));
        self.insns = 0;
        self.tail_calls = 0;
        self.trace.clear();
        self.repeat = input.repeat;
        self.native_ns = None;
        self.env = RunEnv { prog_type: ty.0, ..RunEnv::default() };
        match ty.0 {
            SOCKET_FILTER | SCHED_CLS | SCHED_ACT | CGROUP_SKB | LWT_IN | LWT_OUT | LWT_XMIT | LWT_SEG6LOCAL => self.run_skb(ty.0, input),
            // devmap and cpumap programs cannot be test-run
            XDP if matches!(attach, Some(XDP_DEVMAP | XDP_CPUMAP)) => Err(ExecError::TestRun(EINVAL)),
            XDP => self.run_xdp(input),
            SYSCALL => self.run_syscall(input),
            RAW_TRACEPOINT | RAW_TRACEPOINT_WRITABLE => self.run_raw_tp(input),
            // fentry/fexit (bpf_prog_test_run_tracing)
            TRACING if matches!(attach, Some(TRACE_FENTRY | TRACE_FEXIT)) => self.run_tracing(input, false),
            TRACING if attach == Some(MODIFY_RETURN) => self.run_tracing(input, true),
            // the kernel's ctx objects: only the xlated program reads them
            FLOW_DISSECTOR if prog.kernel_ctx => self.run_flow_dissector(input),
            SK_LOOKUP if prog.kernel_ctx => self.run_sk_lookup(input),
            // tracing, flow_dissector, sk_lookup (as loaded), netfilter, struct_ops
            TRACING | FLOW_DISSECTOR | SK_LOOKUP | NETFILTER | STRUCT_OPS => Err(ExecError::Unsupported(format!("test runs of {} programs", ty.name()))),
            _ => Err(ExecError::TestRun(ENOTSUPP)),
        }
    }

    fn start(&mut self, ctx: Addr) -> Result<u32, ExecError> {
        let mut arg = ctx;
        if self.progs[0].kernel_ctx
            && ctx != 0
            && let Some(c) = self.env.ctx.filter(|c| c.kind != CtxKind::Plain)
        {
            arg = self.kview_build(c.kind)?;
        }
        let r0 = match self.native.as_ref().map(|n| n.entry()) {
            Some(entry) => {
                // bpf_test_run: `repeat` runs (at least one), the mean
                // time of one is the duration; natively it is a real time
                let runs = self.repeat.max(1);
                let t0 = std::time::Instant::now();
                let mut r0 = 0;
                for _ in 0..runs {
                    r0 = super::native::call_native(self, entry, [arg, 0, 0, 0, 0])?;
                    self.arena_free_worker();
                }
                self.native_ns = Some(t0.elapsed().as_nanos() as u64 / u64::from(runs));
                r0
            }
            None => {
                let r0 = self.run_func(0, 0, [arg, 0, 0, 0, 0])?;
                self.arena_free_worker();
                r0
            }
        };
        // bpf_prog_run's stats (one run counted however often it repeats
        // natively: the interpreter runs it once)
        self.tracing.count_run(0);
        self.kview_writeback()?;
        Ok(r0 as u32)
    }

    /// The arena's deferred frees (`arena_free_irq` queues
    /// `arena_free_worker` on the program's CPU; with lazy preemption the
    /// worker gets to run once the program has returned).
    fn arena_free_worker(&mut self) {
        if let Some(a) = self.arena.as_mut() {
            a.arena_free_worker();
        }
    }

    /// Creates the kernel's object behind the ctx; its address.
    fn kview_build(&mut self, kind: CtxKind) -> Result<Addr, ExecError> {
        if crate::kernel_layout::for_arch(self.opts.arch).is_none() {
            return Err(ExecError::Unsupported(format!("the kernel's ctx objects on {} (no measured layout)", self.opts.arch)));
        }
        let lay = crate::kernel_layout::for_arch(self.opts.arch).expect("checked");
        let mut dev = vec![0u8; NET_DEVICE_SIZE];
        put_u32(&mut dev, lay.net_device_ifindex as usize, LOOPBACK_IFINDEX);
        let dev = self.alloc(RegionKind::Object, dev)?;
        let mut rxq = 0;
        if kind == CtxKind::XdpMd {
            let mut q = vec![0u8; XDP_RXQ_SIZE];
            let x = &lay.xdp_buff;
            q[x.rxq_dev as usize..x.rxq_dev as usize + 8].copy_from_slice(&dev.to_le_bytes());
            rxq = self.alloc(RegionKind::Object, q)?;
        }
        let mut sock = 0;
        if kind == CtxKind::SkBuff && self.env.sk != 0 {
            sock = self.kernel_sock(lay)?;
        }
        let addr = self.alloc(RegionKind::Object, vec![0u8; KVIEW_SIZE])?;
        let mut shinfo = 0;
        if kind == CtxKind::SkBuff {
            shinfo = self.alloc_shinfo()?;
        }
        self.env.kview = Some(KView { addr, kind, dev, rxq, sock, shinfo });
        self.env.kview_known = Some(Box::new(KViewKnown { kview: self.kview_known(kind), sock: self.sock_known(), shinfo: self.shinfo_known() }));
        self.kview_refresh()?;
        Ok(addr)
    }

    /// A zeroed `struct skb_shared_info` (as `build_skb` leaves it), read-only
    /// to programs. It is a region of its own after the packet: `skb->end`
    /// is its offset from `skb->head`.
    fn alloc_shinfo(&mut self) -> Result<Addr, ExecError> {
        self.mem.alloc(RegionKind::Object, vec![0u8; SIZEOF_SKB_SHARED_INFO], true).map_err(|f| ExecError::Unsupported(format!("ctx view: {f}")))
    }

    /// The kernel's `struct sock` of the dummy socket (`struct bpf_sock`
    /// view at `env.sk`), read-only, with the fields `bpf_sock`'s
    /// conversions read.
    fn kernel_sock(&mut self, lay: &crate::kernel_layout::KernelLayout) -> Result<Addr, ExecError> {
        use bpf_sock::*;
        let u = self.mem.read(self.env.sk, bpf_sock::SIZE as usize).map_err(|f| ExecError::Unsupported(format!("ctx view: {f}")))?.to_vec();
        let mut k = vec![0u8; SOCK_SIZE];
        let mut put = |off: i16, b: &[u8]| k[off as usize..off as usize + b.len()].copy_from_slice(b);
        let (c, s) = (&lay.sock_common, &lay.sock);
        put(c.skc_daddr, &u[uapi_field(DST_IP4, 4)]);
        put(c.skc_rcv_saddr, &u[uapi_field(SRC_IP4, 4)]);
        put(c.skc_dport, &u[uapi_field(DST_PORT, 2)]);
        put(c.skc_num, &u[uapi_field(SRC_PORT, 2)]);
        put(c.skc_family, &u[uapi_field(FAMILY, 2)]);
        put(c.skc_state, &u[uapi_field(STATE, 1)]);
        put(c.skc_v6_daddr, &u[uapi_field(DST_IP6, 16)]);
        put(c.skc_v6_rcv_saddr, &u[uapi_field(SRC_IP6, 16)]);
        put(s.sk_bound_dev_if, &u[uapi_field(BOUND_DEV_IF, 4)]);
        // NO_QUEUE_MAPPING, which the conversion turns into -1
        put(s.sk_rx_queue_mapping, &u[uapi_field(RX_QUEUE_MAPPING, 2)]);
        put(s.sk_priority, &u[uapi_field(PRIORITY, 4)]);
        put(s.sk_mark, &u[uapi_field(MARK, 4)]);
        put(s.sk_protocol, &u[uapi_field(PROTOCOL, 2)]);
        put(s.sk_type, &u[uapi_field(TYPE, 2)]);
        self.mem.alloc(RegionKind::Object, k, true).map_err(|f| ExecError::Unsupported(format!("ctx view: {f}")))
    }

    /// The byte ranges of the dummy socket's `struct sock` a load may read.
    fn sock_known(&self) -> Known {
        let Some(lay) = crate::kernel_layout::for_arch(self.opts.arch) else {
            return Known::default();
        };
        let (c, s) = (&lay.sock_common, &lay.sock);
        let f = |o: i16, n: usize| (o as usize, o as usize + n);
        Known::of(&[
            f(c.skc_daddr, 4),
            f(c.skc_rcv_saddr, 4),
            f(c.skc_dport, 2),
            f(c.skc_num, 2),
            f(c.skc_family, 2),
            f(c.skc_state, 1),
            f(c.skc_v6_daddr, 16),
            f(c.skc_v6_rcv_saddr, 16),
            f(s.sk_bound_dev_if, 4),
            f(s.sk_rx_queue_mapping, 2),
            f(s.sk_priority, 4),
            f(s.sk_mark, 4),
            f(s.sk_protocol, 2),
            f(s.sk_type, 2),
            // sk_socket: NULL, as sock_init_data(NULL, sk) leaves the
            // test run's dummy socket (the region is zeroed)
            f(s.sk_socket, 8),
        ])
    }

    /// The byte ranges of the kernel's `struct skb_shared_info` a load may read.
    fn shinfo_known(&self) -> Known {
        crate::kernel_layout::for_arch(self.opts.arch).map_or(Known::default(), |l| {
            let i = &l.shinfo;
            Known::of(&[
                (i.gso_size as usize, i.gso_size as usize + 2),
                (i.gso_segs as usize, i.gso_segs as usize + 2),
                (i.hwtstamps as usize, i.hwtstamps as usize + 8),
            ])
        })
    }

    /// The byte ranges of the kernel object a load may read: those the
    /// model fills (`None`: not a kernel view).
    fn kview_known(&self, kind: CtxKind) -> Known {
        let Some(lay) = crate::kernel_layout::for_arch(self.opts.arch) else {
            return Known::default();
        };
        match kind {
            CtxKind::SkBuff => {
                let k = &lay.sk_buff;
                let f = |o: i16, n: usize| (o as usize, o as usize + n);
                let mut v = Known::of(&[
                    f(k.dev, 8),
                    f(k.tstamp, 8),
                    // the whole cb: qdisc_skb_cb and bpf_skb_data_end
                    f(k.cb, SIZEOF_SK_BUFF_CB),
                    f(k.len, 4),
                    f(k.data_len, 4),
                    f(k.queue_mapping, 2),
                    f(k.cloned_offset, 1),
                    f(k.pkt_type_offset, 1),
                    f(k.bf_mono_tc_offset, 1),
                    f(k.tc_index, 2),
                    f(k.skb_iif, 4),
                    f(k.priority, 4),
                    f(k.hash, 4),
                    f(k.vlan_all, 4),
                    f(k.napi_id, 4),
                    f(k.mark, 4),
                    f(k.protocol, 2),
                    f(k.transport_header, 2),
                    f(k.end, 4),
                    f(k.head, 8),
                    f(k.data, 8),
                ]);
                if self.env.kview.is_some_and(|kv| kv.sock != 0) {
                    v.push(f(k.sk, 8));
                }
                v
            }
            CtxKind::XdpMd => {
                let x = &lay.xdp_buff;
                let f = |o: i16| (o as usize, o as usize + 8);
                Known::of(&[f(x.data), f(x.data_end), f(x.data_meta), f(x.data_hard_start), f(x.rxq)])
            }
            CtxKind::Plain => Known::default(),
        }
    }

    /// A program's load of `size` bytes at `addr`: refused when it reads a
    /// byte of the kernel object behind the ctx that the model does not fill.
    pub(crate) fn kview_check(&self, addr: Addr, size: usize) -> Result<(), ExecError> {
        let (Some(kv), Some(known)) = (self.env.kview, self.env.kview_known.as_deref()) else { return Ok(()) };
        let in_sock = kv.sock != 0 && addr.checked_sub(kv.sock).is_some_and(|o| o < SOCK_SIZE as u64);
        if in_sock {
            let off = (addr - kv.sock) as usize;
            if known.sock.covers(off, size) {
                return Ok(());
            }
            return Err(ExecError::Unsupported(format!(
                "a load of {size} bytes at offset {off} of the kernel's struct sock (a field the model does not fill)"
            )));
        }
        let in_shinfo = kv.shinfo != 0 && addr.checked_sub(kv.shinfo).is_some_and(|o| o < SIZEOF_SKB_SHARED_INFO as u64);
        if in_shinfo {
            let off = (addr - kv.shinfo) as usize;
            if known.shinfo.covers(off, size) {
                return Ok(());
            }
            return Err(ExecError::Unsupported(format!(
                "a load of {size} bytes at offset {off} of the kernel's struct skb_shared_info (a field the model does not fill)"
            )));
        }
        let Some(off) = addr.checked_sub(kv.addr).map(|o| o as usize).filter(|&o| o < KVIEW_SIZE) else {
            return Ok(());
        };
        if known.kview.covers(off, size) {
            return Ok(());
        }
        Err(ExecError::Unsupported(format!(
            "a load of {size} bytes at offset {off} of the kernel's {} (a field a test run's model does not fill)",
            if kv.kind == CtxKind::SkBuff { "struct sk_buff" } else { "struct xdp_buff" }
        )))
    }

    /// Kernel object <- uapi view and packet.
    pub(crate) fn kview_refresh(&mut self) -> Result<(), ExecError> {
        let (Some(kv), Some(c)) = (self.env.kview, self.env.ctx) else { return Ok(()) };
        let lay = crate::kernel_layout::for_arch(self.opts.arch).expect("built with a layout");
        let p = self.env.pkt.unwrap_or_default();
        let uf = |e: super::mem::Fault| ExecError::Unsupported(format!("ctx view: {e}"));
        let u = self.mem.read(c.addr, c.len).map_err(uf)?.to_vec();
        let mut k = self.mem.read(kv.addr, KVIEW_SIZE).map_err(uf)?.to_vec();
        let put = |k: &mut Vec<u8>, off: i16, bytes: &[u8]| {
            k[off as usize..off as usize + bytes.len()].copy_from_slice(bytes);
        };
        match kv.kind {
            CtxKind::SkBuff => {
                let s = &lay.sk_buff;
                let cb = s.cb;
                put(&mut k, s.dev, &kv.dev.to_le_bytes());
                put(&mut k, s.sk, &kv.sock.to_le_bytes());
                put(&mut k, s.tstamp, &u[uapi_field(__sk_buff::TSTAMP, 8)]);
                put(&mut k, cb + s.qdisc_pkt_len, &u[uapi_field(__sk_buff::WIRE_LEN, 4)]);
                put(&mut k, cb + s.qdisc_tc_classid, &u[uapi_field(__sk_buff::TC_CLASSID, 2)]);
                put(&mut k, cb + s.qdisc_data, &u[uapi_field(__sk_buff::CB, 20)]);
                put(&mut k, cb + s.cb_data_meta, &(p.buf + p.meta).to_le_bytes());
                put(&mut k, cb + s.cb_data_end, &(p.buf + p.data_end).to_le_bytes());
                put(&mut k, s.len, &u[uapi_field(__sk_buff::LEN, 4)]);
                put(&mut k, s.data_len, &(self.env.frags.len() as u32).to_le_bytes());
                put(&mut k, s.queue_mapping, &u[uapi_field(__sk_buff::QUEUE_MAPPING, 2)]);
                let pt = s.pkt_type_offset as usize;
                k[pt] = (k[pt] & !(s.pkt_type_max as u8)) | (u[__sk_buff::PKT_TYPE as usize] & s.pkt_type_max as u8);
                put(&mut k, s.tc_index, &u[uapi_field(__sk_buff::TC_INDEX, 2)]);
                put(&mut k, s.skb_iif, &u[uapi_field(__sk_buff::INGRESS_IFINDEX, 4)]);
                put(&mut k, s.priority, &u[uapi_field(__sk_buff::PRIORITY, 4)]);
                put(&mut k, s.hash, &u[uapi_field(__sk_buff::HASH, 4)]);
                put(&mut k, s.mark, &u[uapi_field(__sk_buff::MARK, 4)]);
                put(&mut k, s.protocol, &u[uapi_field(__sk_buff::PROTOCOL, 2)]);
                // a test run's skb has no transport header: build_skb leaves
                // it ~0 (read back from 7.3 on x86_64 and arm64)
                put(&mut k, s.transport_header, &u16::MAX.to_le_bytes());
                put(&mut k, s.head, &p.buf.to_le_bytes());
                put(&mut k, s.data, &(p.buf + p.data).to_le_bytes());
                if kv.shinfo != 0 {
                    // skb->end as an offset from head (a u32): the shared
                    // info must lie above a head that a pull reallocated
                    let mut shinfo = kv.shinfo;
                    if shinfo <= p.buf || shinfo - p.buf > u64::from(u32::MAX) {
                        shinfo = self.alloc_shinfo()?;
                        if let Some(v) = self.env.kview.as_mut() {
                            v.shinfo = shinfo;
                        }
                    }
                    put(&mut k, s.end, &((shinfo - p.buf) as u32).to_le_bytes());
                    // convert___skb_to_skb: the ctx's gso fields and hwtstamp
                    let i = &lay.shinfo;
                    let mut info = self.mem.read(shinfo, SIZEOF_SKB_SHARED_INFO).map_err(uf)?.to_vec();
                    let at = |o: i16| o as usize;
                    info[at(i.gso_segs)..at(i.gso_segs) + 2].copy_from_slice(&u[uapi_field(__sk_buff::GSO_SEGS, 2)]);
                    info[at(i.gso_size)..at(i.gso_size) + 2].copy_from_slice(&u[uapi_field(__sk_buff::GSO_SIZE, 2)]);
                    info[at(i.hwtstamps)..at(i.hwtstamps) + 8].copy_from_slice(&u[uapi_field(__sk_buff::HWTSTAMP, 8)]);
                    self.mem.write_kernel(shinfo, &info).map_err(uf)?;
                }
            }
            CtxKind::XdpMd => {
                let x = &lay.xdp_buff;
                put(&mut k, x.data, &(p.buf + p.data).to_le_bytes());
                put(&mut k, x.data_end, &(p.buf + p.data_end).to_le_bytes());
                put(&mut k, x.data_meta, &(p.buf + p.meta).to_le_bytes());
                put(&mut k, x.data_hard_start, &p.buf.to_le_bytes());
                put(&mut k, x.rxq, &kv.rxq.to_le_bytes());
            }
            CtxKind::Plain => {}
        }
        self.mem.write_kernel(kv.addr, &k).map_err(uf)
    }

    /// Uapi view <- what the program may have stored in the kernel object.
    pub(crate) fn kview_writeback(&mut self) -> Result<(), ExecError> {
        let (Some(kv), Some(c)) = (self.env.kview, self.env.ctx) else { return Ok(()) };
        if kv.kind != CtxKind::SkBuff {
            return Ok(());
        }
        let lay = crate::kernel_layout::for_arch(self.opts.arch).expect("built with a layout");
        let s = &lay.sk_buff;
        let uf = |e: super::mem::Fault| ExecError::Unsupported(format!("ctx view: {e}"));
        let k = self.mem.read(kv.addr, KVIEW_SIZE).map_err(uf)?.to_vec();
        let mut u = self.mem.read(c.addr, c.len).map_err(uf)?.to_vec();
        let get = |off: i16, n: usize| k[off as usize..off as usize + n].to_vec();
        let mut set = |at: i16, b: Vec<u8>| u[uapi_field(at, b.len())].copy_from_slice(&b);
        set(__sk_buff::MARK, get(s.mark, 4));
        set(__sk_buff::PRIORITY, get(s.priority, 4));
        set(__sk_buff::HASH, get(s.hash, 4));
        set(__sk_buff::TSTAMP, get(s.tstamp, 8));
        set(__sk_buff::QUEUE_MAPPING, get(s.queue_mapping, 2));
        set(__sk_buff::TC_INDEX, get(s.tc_index, 2));
        set(__sk_buff::CB, get(s.cb + s.qdisc_data, 20));
        set(__sk_buff::TC_CLASSID, get(s.cb + s.qdisc_tc_classid, 2));
        self.mem.write_kernel(c.addr, &u).map_err(uf)
    }

    fn output(&mut self, retval: u32, data_out: Vec<u8>, ctx_out: Option<Vec<u8>>, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
        use crate::prog_type::bpf_prog_type::{RAW_TRACEPOINT, RAW_TRACEPOINT_WRITABLE, SYSCALL, TRACING};
        let enospc = !data_out.is_empty() && input.data_out_size > 0 && (input.data_out_size as usize) < data_out.len();
        // bpf_test_finish's tracepoint (the test runs of these types do not
        // go through it; tracing's fires its own)
        if !matches!(self.env.prog_type, SYSCALL | RAW_TRACEPOINT | RAW_TRACEPOINT_WRITABLE | TRACING) {
            self.test_finish_event(if enospc { -ENOSPC } else { 0 })?;
        }
        if enospc {
            // bpf_test_finish copies what fits and fails with ENOSPC
            return Err(ExecError::TestRun(ENOSPC));
        }
        Ok(TestRunOutput {
            retval,
            data_out: if input.data_out_size > 0 { data_out } else { Vec::new() },
            ctx_out,
            duration: match self.native_ns {
                Some(ns) => u32::try_from(ns).unwrap_or(u32::MAX),
                None => (self.insns as u32).max(1),
            },
            insns: self.insns,
            trace: self.trace.clone(),
        })
    }

    fn alloc(&mut self, kind: RegionKind, data: Vec<u8>) -> Result<Addr, ExecError> {
        self.mem.alloc(kind, data, false).map_err(|f| ExecError::Unsupported(format!("test-run memory: {f}")))
    }

    /// `bpf_prog_test_run_syscall`: no data, an optional ctx (r1 is NULL
    /// without one), the ctx copied back.
    fn run_syscall(&mut self, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
        if !input.data.is_empty() || input.data_out_size > 0 || input.repeat != 0 {
            return Err(ExecError::TestRun(EINVAL));
        }
        // a ctx smaller than prog->aux->max_ctx_offset is refused: what is
        // known of it here is a lower bound (0 when nothing is known)
        let ctx_size = input.ctx.as_ref().map_or(0, Vec::len);
        if ctx_size < ctx_access_lower_bound(&self.progs[0].insns) as usize {
            return Err(ExecError::TestRun(EINVAL));
        }
        let ctx = match &input.ctx {
            Some(c) if !c.is_empty() => {
                if c.len() > u16::MAX as usize {
                    return Err(ExecError::TestRun(EINVAL));
                }
                let a = self.alloc(RegionKind::Ctx, c.clone())?;
                self.env.ctx = Some(Ctx { addr: a, len: c.len(), kind: CtxKind::Plain });
                a
            }
            _ => 0,
        };
        let retval = self.start(ctx)?;
        let ctx_out = match self.env.ctx {
            Some(c) => Some(self.mem.read(c.addr, c.len).map(<[u8]>::to_vec).unwrap_or_default()),
            None => None,
        };
        self.output(retval, Vec::new(), ctx_out, input)
    }

    /// `bpf_ctx_init`: the user's ctx cut to `size` bytes (E2BIG if what
    /// is cut is not all zero), zero-padded; `None` without one.
    fn bpf_ctx_init(input: &TestRunInput, size: usize) -> Result<Option<Vec<u8>>, ExecError> {
        match &input.ctx {
            Some(c) if !c.is_empty() => {
                check_uarg_tail_zero(c, size)?;
                let mut v = c[..c.len().min(size)].to_vec();
                v.resize(size, 0);
                Ok(Some(v))
            }
            _ => Ok(None),
        }
    }

    /// `bpf_prog_test_run_flow_dissector`: the packet (at least an
    /// Ethernet header, no head- or tailroom), `struct bpf_flow_keys`
    /// zeroed but for `n_proto` (the Ethernet type), `nhoff = thoff =
    /// ETH_HLEN` and the user's `flags` (`bpf_flow_dissect`), the program
    /// run on a `struct bpf_flow_dissector` without an skb; `nhoff` and
    /// `thoff` clamped to the packet after it, and the keys are `data_out`.
    fn run_flow_dissector(&mut self, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
        use bpf_flow_keys::{FLAGS, N_PROTO, NHOFF, THOFF};
        let size = input.data.len();
        if !(ETH_HLEN..=PAGE_SIZE).contains(&size) {
            return Err(ExecError::TestRun(EINVAL));
        }
        let lay =
            crate::kernel_layout::for_arch(self.opts.arch).ok_or_else(|| ExecError::Unsupported(format!("struct bpf_flow_dissector on {}", self.opts.arch)))?;
        let user_ctx = Self::bpf_ctx_init(input, bpf_flow_keys::SIZE as usize)?;
        let mut flags = 0;
        if let Some(u) = &user_ctx {
            // verify_user_bpf_flow_keys: only flags may be set
            if !zero(&u[..FLAGS as usize]) || !zero(&u[uapi_field(FLAGS, 4).end..]) {
                return Err(ExecError::TestRun(EINVAL));
            }
            flags = get_u32(u, FLAGS as usize);
        }
        let data = self.alloc(RegionKind::Packet, input.data.clone())?;
        let mut keys = vec![0u8; bpf_flow_keys::SIZE as usize];
        keys[uapi_field(N_PROTO, 2)].copy_from_slice(&input.data[12..14]);
        keys[uapi_field(NHOFF, 2)].copy_from_slice(&(ETH_HLEN as u16).to_le_bytes());
        keys[uapi_field(THOFF, 2)].copy_from_slice(&(ETH_HLEN as u16).to_le_bytes());
        put_u32(&mut keys, FLAGS as usize, flags);
        let keys_addr = self.alloc(RegionKind::Scratch, keys)?;
        let fd = &lay.flow_dissector;
        let mut ctx = vec![0u8; SIZEOF_BPF_FLOW_DISSECTOR];
        for (off, v) in [(fd.flow_keys, keys_addr), (fd.data, data), (fd.data_end, data + size as u64)] {
            ctx[off as usize..off as usize + 8].copy_from_slice(&v.to_le_bytes());
        }
        let len = ctx.len();
        let a = self.alloc(RegionKind::Ctx, ctx)?;
        self.env.ctx = Some(Ctx { addr: a, len, kind: CtxKind::Plain });
        let retval = self.start(a)?;
        let mut keys =
            self.mem.read(keys_addr, bpf_flow_keys::SIZE as usize).map(<[u8]>::to_vec).map_err(|f| ExecError::Unsupported(format!("flow keys: {f}")))?;
        let hlen = size.min(u16::MAX as usize) as u16;
        let get16 = |k: &[u8], off: i16| u16::from_le_bytes([k[off as usize], k[off as usize + 1]]);
        let nhoff = get16(&keys, NHOFF).clamp(ETH_HLEN as u16, hlen);
        let thoff = get16(&keys, THOFF).clamp(nhoff, hlen);
        keys[uapi_field(NHOFF, 2)].copy_from_slice(&nhoff.to_le_bytes());
        keys[uapi_field(THOFF, 2)].copy_from_slice(&thoff.to_le_bytes());
        self.output(retval, keys, user_ctx, input)
    }

    /// `bpf_prog_test_run_sk_lookup`: no packet, a `struct bpf_sk_lookup`
    /// ctx (no socket, nothing past `local_port`, a port that fits 16
    /// bits, an AF_INET or AF_INET6 family) turned into the kernel's
    /// `struct bpf_sk_lookup_kern`; the retval is the run array's verdict
    /// (`BPF_PROG_SK_LOOKUP_RUN_ARRAY` of the one program: SK_PASS unless it
    /// drops without selecting a socket), the ctx handed back with its
    /// cookie 0 (no socket is selected: the model has none to give).
    fn run_sk_lookup(&mut self, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
        use bpf_sk_lookup::*;
        const AF_INET: u32 = 2;
        const AF_INET6: u32 = 10;
        if !input.data.is_empty() || input.data_out_size > 0 {
            return Err(ExecError::TestRun(EINVAL));
        }
        let lay =
            crate::kernel_layout::for_arch(self.opts.arch).ok_or_else(|| ExecError::Unsupported(format!("struct bpf_sk_lookup_kern on {}", self.opts.arch)))?;
        let Some(mut u) = Self::bpf_ctx_init(input, SIZE as usize)? else {
            return Err(ExecError::TestRun(EINVAL));
        };
        if !zero(&u[uapi_field(SK, 8)]) || !zero(&u[uapi_field(LOCAL_PORT, 4).end..]) {
            return Err(ExecError::TestRun(EINVAL));
        }
        let local_port = get_u32(&u, LOCAL_PORT as usize);
        if local_port > u16::MAX as u32 {
            return Err(ExecError::TestRun(ERANGE));
        }
        let family = get_u32(&u, FAMILY as usize) as u16;
        let k = &lay.sk_lookup_kern;
        let mut kern = vec![0u8; SIZEOF_BPF_SK_LOOKUP_KERN];
        let put16 = |b: &mut Vec<u8>, off: i16, v: u16| b[off as usize..off as usize + 2].copy_from_slice(&v.to_le_bytes());
        put16(&mut kern, k.family, family);
        put16(&mut kern, k.protocol, get_u32(&u, PROTOCOL as usize) as u16);
        // remote_port is already big-endian in the low half
        put16(&mut kern, k.sport, u16::from_le_bytes([u[REMOTE_PORT as usize], u[REMOTE_PORT as usize + 1]]));
        put16(&mut kern, k.dport, local_port as u16);
        match family as u32 {
            AF_INET => {
                kern[k.v4_saddr as usize..k.v4_saddr as usize + 4].copy_from_slice(&u[uapi_field(REMOTE_IP4, 4)]);
                kern[k.v4_daddr as usize..k.v4_daddr as usize + 4].copy_from_slice(&u[uapi_field(LOCAL_IP4, 4)]);
            }
            AF_INET6 => {
                // pointers into the kernel's copy of the user's ctx
                let copy = self.alloc(RegionKind::Object, u.clone())?;
                kern[k.v6_saddr as usize..k.v6_saddr as usize + 8].copy_from_slice(&(copy + REMOTE_IP6 as u64).to_le_bytes());
                kern[k.v6_daddr as usize..k.v6_daddr as usize + 8].copy_from_slice(&(copy + LOCAL_IP6 as u64).to_le_bytes());
            }
            _ => return Err(ExecError::TestRun(97)), // EAFNOSUPPORT
        }
        let len = kern.len();
        let a = self.alloc(RegionKind::Ctx, kern)?;
        self.env.ctx = Some(Ctx { addr: a, len, kind: CtxKind::Plain });
        let ret = self.start(a)?;
        let selected = self.mem.load(a + k.selected_sk as u64, 8).unwrap_or(0);
        if selected != 0 {
            return Err(ExecError::Unsupported("sk_lookup: a selected socket (its cookie)".into()));
        }
        // SK_DROP without a selection drops; anything else passes
        let retval = u32::from(ret != 0);
        u[uapi_field(SK, 8)].fill(0);
        self.output(retval, Vec::new(), Some(u), input)
    }

    /// `bpf_prog_test_run_raw_tp`: only a ctx of up to 12 u64 arguments.
    fn run_raw_tp(&mut self, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
        if !input.data.is_empty() || input.data_out_size > 0 || input.repeat != 0 {
            return Err(ExecError::TestRun(EINVAL));
        }
        let c = input.ctx.clone().unwrap_or_default();
        if c.len() > 12 * 8 {
            return Err(ExecError::TestRun(EINVAL));
        }
        let a = self.alloc(RegionKind::Ctx, if c.is_empty() { vec![0; 8] } else { c.clone() })?;
        self.env.ctx = Some(Ctx { addr: a, len: c.len(), kind: CtxKind::Plain });
        // __bpf_prog_test_run_raw_tp holds the program's recursion context
        let retval = if self.tracing.enter(0) {
            let r = self.start(if c.is_empty() { 0 } else { a });
            self.tracing.exit(0);
            r?
        } else {
            self.tracing.exit(0);
            0
        };
        self.output(retval, Vec::new(), None, input)
    }

    /// `bpf_prog_test_run_tracing`: the kernel calls bpf_fentry_test1..10
    /// (fentry/fexit) or bpf_modify_return_test and
    /// bpf_modify_return_test2 (fmod_ret) and checks their results; the
    /// program itself runs only if it is attached to them. The retval is
    /// `side_effect << 16 | ret`.
    fn run_tracing(&mut self, input: &TestRunInput, modify_return: bool) -> Result<TestRunOutput, ExecError> {
        let r = self.run_tracing_attached(modify_return)?;
        self.test_finish_event(match r {
            Ok(_) => 0,
            Err(e) => -e,
        })?;
        match r {
            Ok(retval) => self.output(retval, Vec::new(), None, &TestRunInput { data_out_size: 0, ..input.clone() }),
            Err(e) => Err(ExecError::TestRun(e)),
        }
    }

    /// `bpf_prog_test_run_skb`.
    fn run_skb(&mut self, ty: u32, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
        use crate::prog_type::bpf_prog_type::{LWT_IN, LWT_OUT, LWT_SEG6LOCAL, LWT_XMIT, SCHED_ACT, SCHED_CLS};
        let is_l2 = matches!(ty, SCHED_CLS | SCHED_ACT);
        let size = input.data.len();
        if size < ETH_HLEN {
            return Err(ExecError::TestRun(EINVAL));
        }
        let user_ctx = match &input.ctx {
            Some(c) if !c.is_empty() => {
                check_uarg_tail_zero(c, __sk_buff::SIZE as usize)?;
                let mut full = c.clone();
                full.resize(__sk_buff::SIZE as usize, 0);
                Some(full)
            }
            _ => None,
        };
        // `data_end` in the ctx asks for a non-linear skb: that much linear
        // data (at least the MAC header), the rest in page fragments
        let linear = match user_ctx.as_ref().map(|u| get_u32(u, __sk_buff::DATA_END as usize)).filter(|&d| d != 0) {
            Some(_) if matches!(ty, LWT_IN | LWT_OUT | LWT_XMIT | LWT_SEG6LOCAL) => return Err(ExecError::TestRun(EINVAL)),
            Some(d) if d as usize > size => return Err(ExecError::TestRun(EINVAL)),
            Some(d) => (d as usize).max(ETH_HLEN),
            None => size,
        };
        // at most a page minus the headroom and skb_shared_info is linear;
        // the rest takes up to MAX_SKB_FRAGS pages, and more is ENOMEM
        let linear = linear.min(PAGE_SIZE - SKB_HEADROOM - SIZEOF_SKB_SHARED_INFO);
        if (size - linear).div_ceil(PAGE_SIZE) > MAX_SKB_FRAGS {
            return Err(ExecError::TestRun(ENOMEM));
        }
        self.env.frags = input.data[linear..].to_vec();
        let mut buf = vec![0u8; SKB_HEADROOM + linear + TAILROOM];
        buf[SKB_HEADROOM..SKB_HEADROOM + linear].copy_from_slice(&input.data[..linear]);
        let frame = &input.data;
        // eth_type_trans
        let h_dest = &frame[0..6];
        // the loopback's address and broadcast address are all zeroes, so
        // ff:ff:ff:ff:ff:ff is PACKET_MULTICAST, not PACKET_BROADCAST
        let pkt_type = if zero(h_dest) {
            0 // PACKET_HOST
        } else if h_dest[0] & 1 != 0 {
            2 // PACKET_MULTICAST
        } else {
            3 // PACKET_OTHERHOST
        };
        let proto_be = [frame[12], frame[13]];
        let proto = if u16::from_be_bytes(proto_be) >= 0x600 {
            proto_be
        } else if size >= ETH_HLEN + 2 && frame[14] == 0xff && frame[15] == 0xff {
            0x0001u16.to_be_bytes() // ETH_P_802_3
        } else {
            0x0004u16.to_be_bytes() // ETH_P_802_2
        };
        let mac = SKB_HEADROOM as u64;
        let network = mac + ETH_HLEN as u64;
        let data = if is_l2 { mac } else { network };
        let end = (SKB_HEADROOM + linear) as u64;
        let pbuf = self.alloc(RegionKind::Packet, buf)?;
        self.env.pkt = Some(Packet { buf: pbuf, data, data_end: end, meta: data, mac, network });

        // the dummy socket, with the addresses of an IPv4 packet
        let mut sk = vec![0u8; bpf_sock::SIZE as usize];
        put_u32(&mut sk, bpf_sock::STATE as usize, 7); // TCP_CLOSE
        put_u32(&mut sk, bpf_sock::RX_QUEUE_MAPPING as usize, u32::MAX); // none
        let net = &frame[ETH_HLEN..linear];
        // an IP packet must have its IP header in the linear data (EINVAL)
        match u16::from_be_bytes(proto) {
            0x0800 => {
                if net.len() < 20 {
                    return Err(ExecError::TestRun(EINVAL));
                }
                put_u32(&mut sk, bpf_sock::FAMILY as usize, 2); // AF_INET
                sk[uapi_field(bpf_sock::SRC_IP4, 4)].copy_from_slice(&net[12..16]); // sk_rcv_saddr = saddr
                sk[uapi_field(bpf_sock::DST_IP4, 4)].copy_from_slice(&net[16..20]); // sk_daddr = daddr
            }
            0x86dd => {
                if net.len() < 40 {
                    return Err(ExecError::TestRun(EINVAL));
                }
                put_u32(&mut sk, bpf_sock::FAMILY as usize, 10); // AF_INET6
                sk[uapi_field(bpf_sock::SRC_IP6, 16)].copy_from_slice(&net[8..24]);
                sk[uapi_field(bpf_sock::DST_IP6, 16)].copy_from_slice(&net[24..40]);
            }
            _ => {}
        }
        let sk_addr = self.mem.alloc(RegionKind::Object, sk.clone(), true).map_err(|f| ExecError::Unsupported(format!("{f}")))?;
        self.env.sk = sk_addr;

        // struct __sk_buff as the verifier's conversions would read the skb
        let mut c = vec![0u8; __sk_buff::SIZE as usize];
        put_u32(&mut c, __sk_buff::PKT_TYPE as usize, pkt_type);
        c[uapi_field(__sk_buff::PROTOCOL, 2)].copy_from_slice(&proto);
        put_u32(&mut c, __sk_buff::IFINDEX as usize, LOOPBACK_IFINDEX);
        c[uapi_field(__sk_buff::FAMILY, 4)].copy_from_slice(&sk[uapi_field(bpf_sock::FAMILY, 4)]);
        c[uapi_field(__sk_buff::REMOTE_IP4, 4)].copy_from_slice(&sk[uapi_field(bpf_sock::DST_IP4, 4)]);
        c[uapi_field(__sk_buff::LOCAL_IP4, 4)].copy_from_slice(&sk[uapi_field(bpf_sock::SRC_IP4, 4)]);
        c[uapi_field(__sk_buff::REMOTE_IP6, 16)].copy_from_slice(&sk[uapi_field(bpf_sock::DST_IP6, 16)]);
        c[uapi_field(__sk_buff::LOCAL_IP6, 16)].copy_from_slice(&sk[uapi_field(bpf_sock::SRC_IP6, 16)]);
        if let Some(u) = &user_ctx {
            // convert___skb_to_skb: only these fields may be set
            use __sk_buff::{CB, DATA_END, GSO_SEGS, GSO_SIZE, HWTSTAMP, IFINDEX, INGRESS_IFINDEX, MARK, PRIORITY, TSTAMP, WIRE_LEN};
            let allowed = [
                (MARK, 4),
                (PRIORITY, 4),
                (INGRESS_IFINDEX, 4),
                (IFINDEX, 4),
                (CB, 20),
                (DATA_END, 4),
                (TSTAMP, 8),
                (WIRE_LEN, 4),
                (GSO_SEGS, 4),
                (GSO_SIZE, 4),
                (HWTSTAMP, 8),
            ]
            .map(|(off, len)| uapi_field(off, len));
            let stray = u.iter().enumerate().any(|(i, &b)| b != 0 && !allowed.iter().any(|f| f.contains(&i)));
            if stray {
                return Err(ExecError::TestRun(EINVAL));
            }
            let ifindex = get_u32(u, __sk_buff::IFINDEX as usize);
            if ifindex > LOOPBACK_IFINDEX {
                // only the loopback exists in the test run's namespace
                return Err(ExecError::TestRun(19)); // ENODEV
            }
            for (off, len) in [(MARK, 4), (PRIORITY, 4), (INGRESS_IFINDEX, 4), (CB, 20), (TSTAMP, 8), (GSO_SEGS, 4), (GSO_SIZE, 4), (HWTSTAMP, 8)] {
                let f = uapi_field(off, len);
                c[f.clone()].copy_from_slice(&u[f]);
            }
            let pkt_len = (end - data) as u32 + self.env.frags.len() as u32;
            let wire = get_u32(u, __sk_buff::WIRE_LEN as usize);
            if wire != 0 && (wire < pkt_len || wire > 65536) {
                return Err(ExecError::TestRun(EINVAL));
            }
            put_u32(&mut c, __sk_buff::WIRE_LEN as usize, if wire == 0 { pkt_len } else { wire });
            if get_u32(u, __sk_buff::GSO_SEGS as usize) > 65535 {
                return Err(ExecError::TestRun(EINVAL));
            }
        }
        let ctx = self.alloc(RegionKind::Ctx, c)?;
        self.env.ctx = Some(Ctx { addr: ctx, len: __sk_buff::SIZE as usize, kind: CtxKind::SkBuff });
        self.sync_skb_len()?;

        let retval = self.start(ctx)?;

        let p = self.env.pkt.unwrap_or_default();
        let mut out = self.mem.read(p.buf + p.data, (p.data_end - p.data) as usize).map(<[u8]>::to_vec).unwrap_or_default();
        out.extend_from_slice(&self.env.frags);
        if !is_l2 {
            // the MAC header is pushed back, zeroed
            let mut full = vec![0u8; ETH_HLEN];
            full.extend_from_slice(&out);
            out = full;
        }
        let ctx_out = user_ctx.is_some().then(|| self.mem.read(ctx, __sk_buff::SIZE as usize).map(<[u8]>::to_vec).unwrap_or_default());
        self.output(retval, out, ctx_out, input)
    }

    /// Keeps `__sk_buff.len` in step with the packet.
    pub(crate) fn sync_skb_len(&mut self) -> Result<(), ExecError> {
        if let (Some(c), Some(p)) = (self.env.ctx, self.env.pkt)
            && c.kind == CtxKind::SkBuff
        {
            self.mem
                .store_kernel(c.addr + __sk_buff::LEN as u64, 4, p.data_end - p.data + self.env.frags.len() as u64)
                .map_err(|f| ExecError::Unsupported(format!("{f}")))?;
        }
        Ok(())
    }

    /// `bpf_prog_test_run_xdp` (no frags, no live frames).
    fn run_xdp(&mut self, input: &TestRunInput) -> Result<TestRunOutput, ExecError> {
        // the ctx is taken in before the packet is looked at
        let user_ctx = Self::bpf_ctx_init(input, xdp_md::SIZE as usize)?;
        let size = input.data.len();
        if size < ETH_HLEN {
            return Err(ExecError::TestRun(EINVAL));
        }
        if user_ctx.is_some() {
            return Err(ExecError::Unsupported("xdp_md ctx input".into()));
        }
        // a page minus the headroom and skb_shared_info; the rest goes to up
        // to MAX_SKB_FRAGS page fragments
        let max_linear = PAGE_SIZE - XDP_HEADROOM - SIZEOF_SKB_SHARED_INFO;
        if size > max_linear + MAX_SKB_FRAGS * PAGE_SIZE {
            return Err(ExecError::TestRun(ENOMEM));
        }
        self.env.frags = input.data[size.min(max_linear)..].to_vec();
        let size = size.min(max_linear);
        let mut buf = vec![0u8; XDP_HEADROOM + size + TAILROOM];
        buf[XDP_HEADROOM..XDP_HEADROOM + size].copy_from_slice(&input.data[..size]);
        let pbuf = self.alloc(RegionKind::Packet, buf)?;
        let data = XDP_HEADROOM as u64;
        self.env.pkt = Some(Packet { buf: pbuf, data, data_end: data + size as u64, meta: data, mac: data, network: data });
        let mut c = vec![0u8; xdp_md::SIZE as usize];
        put_u32(&mut c, xdp_md::INGRESS_IFINDEX as usize, LOOPBACK_IFINDEX);
        let ctx = self.alloc(RegionKind::Ctx, c)?;
        self.env.ctx = Some(Ctx { addr: ctx, len: xdp_md::SIZE as usize, kind: CtxKind::XdpMd });
        let retval = self.start(ctx)?;
        let p = self.env.pkt.unwrap_or_default();
        let mut out = self.mem.read(p.buf + p.meta, (p.data_end - p.meta) as usize).map(<[u8]>::to_vec).unwrap_or_default();
        out.extend_from_slice(&self.env.frags);
        self.output(retval, out, None, input)
    }

    /// A program's load from its ctx: the pointer fields give pointers,
    /// `None` for everything else (read as bytes).
    pub(crate) fn ctx_load(&self, addr: Addr, size: usize) -> Option<u64> {
        let c = self.env.ctx?;
        let off = addr.checked_sub(c.addr)? as usize;
        if off >= c.len {
            return None;
        }
        // the fields below are at uapi offsets, i16s
        let off = i16::try_from(off).ok()?;
        let p = self.env.pkt;
        match (c.kind, off, size) {
            (CtxKind::SkBuff, __sk_buff::DATA, 4) => p.map(|p| p.buf + p.data),
            (CtxKind::SkBuff, __sk_buff::DATA_END, 4) => p.map(|p| p.buf + p.data_end),
            (CtxKind::SkBuff, __sk_buff::DATA_META, 4) => p.map(|p| p.buf + p.meta),
            (CtxKind::SkBuff, __sk_buff::FLOW_KEYS, 8) => Some(0),
            (CtxKind::SkBuff, __sk_buff::SK, 8) => Some(self.env.sk),
            (CtxKind::XdpMd, xdp_md::DATA, 4) => p.map(|p| p.buf + p.data),
            (CtxKind::XdpMd, xdp_md::DATA_END, 4) => p.map(|p| p.buf + p.data_end),
            (CtxKind::XdpMd, xdp_md::DATA_META, 4) => p.map(|p| p.buf + p.meta),
            _ => None,
        }
    }

    /// `bpf_skb_load_helper_{8,16,32}_no_cache`: a big-endian load at
    /// `offset` from `skb->data` (or from the network or MAC header for
    /// the `SKF_*_OFF` ranges), or `-EFAULT`.
    pub(crate) fn skb_load(&mut self, _skb: Addr, offset: i32, size: usize) -> Result<u64, ExecError> {
        let efault = super::maps::neg(EFAULT);
        let Some(p) = self.env.pkt else {
            return Ok(efault);
        };
        let data = p.data as i64;
        let off: i64 = if offset >= 0 {
            offset as i64
        } else if offset >= SKF_NET_OFF {
            (offset - SKF_NET_OFF) as i64 + (p.network as i64 - data)
        } else if offset >= SKF_LL_OFF {
            (offset - SKF_LL_OFF) as i64 + (p.mac as i64 - data)
        } else {
            return Ok(efault);
        };
        match self.skb_read(off, size) {
            Some(b) => Ok(b.iter().fold(0u64, |acc, &x| (acc << 8) | x as u64)),
            None => Ok(efault),
        }
    }

    /// `len` bytes at `off` from `skb->data` across the linear data and the
    /// fragments (`skb_copy_bits`; a negative offset reads the headroom).
    pub(crate) fn skb_read(&self, off: i64, len: usize) -> Option<Vec<u8>> {
        let p = self.env.pkt?;
        let linear = (p.data_end - p.data) as i64;
        let total = linear + self.env.frags.len() as i64;
        if off > total - len as i64 || p.data as i64 + off < 0 {
            return None;
        }
        let lin = (linear - off).clamp(0, len as i64) as usize;
        let mut out = if lin > 0 { self.mem.read((p.buf + p.data).wrapping_add(off as u64), lin).ok()?.to_vec() } else { Vec::new() };
        if lin < len {
            let from = (off + lin as i64 - linear) as usize;
            out.extend_from_slice(self.env.frags.get(from..from + (len - lin))?);
        }
        Some(out)
    }

    /// `pskb_may_pull(skb, len)`: makes the first `len` bytes linear, moving
    /// them out of the fragments; false when the skb is shorter.
    pub(crate) fn skb_pull(&mut self, len: u64) -> Result<bool, ExecError> {
        let Some(mut p) = self.env.pkt else { return Ok(false) };
        let linear = p.data_end - p.data;
        if len <= linear {
            return Ok(true);
        }
        if len > linear + self.env.frags.len() as u64 {
            return Ok(false);
        }
        let more = (len - linear) as usize;
        let cap = self.mem.region(p.buf).map_or(0, |(r, _)| r.data.len() as u64);
        if p.data_end + more as u64 > cap {
            // pskb_expand_head: a bigger head for the pulled bytes
            let mut buf = self.mem.read(p.buf, cap as usize).map_err(|f| ExecError::Unsupported(format!("{f}")))?.to_vec();
            buf.resize(cap as usize + more + TAILROOM, 0);
            let nb = self.alloc(RegionKind::Packet, buf)?;
            self.mem.free(p.buf);
            p.buf = nb;
        }
        let pulled: Vec<u8> = self.env.frags.drain(..more).collect();
        self.mem.write(p.buf + p.data_end, &pulled).map_err(|f| ExecError::Unsupported(format!("{f}")))?;
        p.data_end += more as u64;
        self.env.pkt = Some(p);
        Ok(true)
    }
}
