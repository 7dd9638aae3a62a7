//! Goldens: what a real kernel did with each program of progs/, stored as
//! `expected/linux-7.3/<arch>/<suite>/<prog>.txt` (`<prog>@unpriv.txt` for
//! the unprivileged run) and written only by `bpf-selftest record` from a
//! real kernel, never from the model.
//!
//! A golden is a header of `# key: value` lines and sections introduced by
//! `== name`. Values that differ between loads of the same program on the
//! same kernel are normalised so that goldens are stable:
//!
//! | what | stored as |
//! |---|---|
//! | map ids in the xlated dump (`r1 = 0x<id>`, `(off << 32) \| id`) | the map's index in the suite's map list |
//! | kernel pointers `ld_imm64` loads in the log (`(18) r1 = 0xffff888005e7c800`, map and BTF addresses) | `0xPTR` |
//! | `BPF_F_TEST_RND_HI32` immediates (`r12 = -12345` before `r12 <<= 32`) | `r12 = RND` |
//!
//! The xlated program is also stored as its raw instructions
//! (`== xlated_hex`, one 8-byte slot per line as 16 hex digits in memory
//! order), in the form `BPF_OBJ_GET_INFO_BY_FD` returns it, with map ids
//! turned into map indexes like the dump, and with the immediates of the
//! lines masked above (RND poison, `ld_imm64` of a kernel pointer) zeroed.
//! It is what the JITs are checked against without the rest of the model.
//!
//! JIT images are stored as hex per function; the bytes that encode kernel
//! addresses (helper calls, map pointers) are compared masked by whoever
//! compares them.
//!
//! The header's `source` is a hash of the load the golden answers
//! ([`source_hash`]: the linked instructions, maps, program type, flags, log
//! level and run). A golden whose program changed since it was recorded is
//! stale, and the replay backend refuses it instead of answering for a
//! program the kernel never saw.

use std::fmt::Write as _;

use bpf_isa::Insn;

use crate::backend::normalize::{renumber_maps, xlated_by_map_index};
use crate::backend::{LoadOutcome, LoadRequest};

/// One recorded load.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Golden {
    /// `(key, value)` header lines, in order.
    pub header: Vec<(String, String)>,
    pub accepted: bool,
    pub errno: i32,
    pub verified_insns: u32,
    pub log: String,
    pub xlated: Vec<String>,
    /// The xlated instructions, 8-byte slots (see the module comment).
    pub xlated_insns: Vec<Insn>,
    /// Hex of each function's JIT image.
    pub jited_hex: Vec<String>,
    /// test_loader's jited text, when it was rendered.
    pub jited: Vec<String>,
    pub retval: Option<u32>,
    pub test_run_errno: i32,
    /// With a scenario (attached programs, globals): each program's run
    /// count and recursion misses after the run, the program under test
    /// first (`== prog_stats`, one `run_cnt N recursion_misses M` line
    /// each), and the globals read after it (`== globals`, hex per line).
    /// Absent otherwise.
    pub prog_stats: Vec<crate::backend::ProgRunStats>,
    pub globals: Vec<Vec<u8>>,
}

/// Kernel pointers in the log: the value of an `ld_imm64` (`(18) r1 =
/// 0x<16 hex digits>`) in the kernel's upper half (x86-64 `0xffff...`,
/// arm64 `0xfff0...`), which is a map, map value or kernel variable the
/// loader cannot predict. Other numbers (register bounds such as
/// `umin=0xfffffffffffffff8`, constants) stay as printed.
pub fn mask_kernel_pointers(log: &str) -> String {
    const LD: &str = "(18) r";
    let mut out = String::with_capacity(log.len());
    let mut rest = log;
    while let Some(p) = rest.find(LD) {
        let (head, tail) = rest.split_at(p + LD.len());
        out.push_str(head);
        rest = tail;
        // `<reg> = 0x<hex>`
        let reg_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let Some(after) = rest[reg_len..].strip_prefix(" = 0x") else { continue };
        let hex = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex == 16 && after[..3].eq_ignore_ascii_case("fff") {
            out.push_str(&rest[..reg_len]);
            out.push_str(" = 0xPTR");
            rest = &after[hex..];
        }
    }
    out.push_str(rest);
    out
}

/// `N: r12 = <imm>` followed by `N+1: r12 <<= 32`: the random high half of
/// `BPF_F_TEST_RND_HI32`.
fn mask_rnd_hi32(xlated: &[String]) -> Vec<String> {
    let mut out = xlated.to_vec();
    for k in 0..out.len().saturating_sub(1) {
        let shifts = out[k + 1].split_once(": ").is_some_and(|(_, t)| t == "r12 <<= 32");
        if let Some((idx, text)) = out[k].split_once(": ")
            && shifts
            && text.starts_with("r12 = ")
        {
            out[k] = format!("{idx}: r12 = RND");
        }
    }
    out
}

/// The raw xlated slots with map ids as indexes and per-load values zeroed:
/// `BPF_F_TEST_RND_HI32` poison (`r12 = imm` before `r12 <<= 32`) and the
/// value of an `ld_imm64` (plain, `src_reg` 0) of a kernel pointer.
fn xlated_insns_normalised(o: &LoadOutcome) -> Vec<Insn> {
    let mut v = renumber_maps(&o.xlated_insns, &o.map_ids, &|k| k as u32);
    let mut k = 0;
    while k < v.len() {
        let i = v[k];
        let next = v.get(k + 1).copied();
        let is_ld = i.is_ld_imm64() && next.is_some();
        if is_ld && i.src == 0 {
            let val = (next.unwrap().imm as u32 as u64) << 32 | i.imm as u32 as u64;
            if val >> 52 == 0xfff {
                v[k].imm = 0;
                v[k + 1].imm = 0;
            }
        }
        let shl32 = next.is_some_and(|n| n.code == bpf_isa::op::BPF_ALU64 | bpf_isa::op::BPF_LSH | bpf_isa::op::BPF_K && n.dst == 12 && n.imm == 32);
        if i.code == bpf_isa::op::BPF_ALU64 | bpf_isa::op::BPF_MOV | bpf_isa::op::BPF_K && i.dst == 12 && shl32 {
            v[k].imm = 0;
        }
        k += if is_ld { 2 } else { 1 };
    }
    v
}

/// The header key of [`source_hash`].
pub const SOURCE_KEY: &str = "source";

/// The load `record` makes of a planned request: the spec's log level, or
/// level 2 when it asks for no log, and the JIT image where the arch has a
/// JIT.
pub fn recording_request(mut req: LoadRequest) -> LoadRequest {
    if req.log_level & 3 == 0 {
        req.log_level |= 2;
    }
    req.want_jited = req.arch.has_jit();
    req
}

/// What a golden was recorded from, as a hash: everything of the load that
/// decides the kernel's answer (the linked instructions with their function
/// table and symbol references, the maps, program type, attach target,
/// flags, log level and buffer size, privileges, BTF, license and the test
/// run's input) of [`recording_request`] of the planned request. The name
/// and arch are not in it: the golden's path holds them.
pub fn source_hash(req: &LoadRequest) -> String {
    let req = recording_request(req.clone());
    let mut s = String::new();
    for i in &req.prog.insns {
        for b in i.to_bytes() {
            let _ = write!(s, "{b:02x}");
        }
        s.push('\n');
    }
    for f in &req.prog.funcs {
        let _ = writeln!(s, "func {} @{} global {} nargs {}", f.name, f.start, f.global, f.nargs);
    }
    for r in &req.prog.relocs {
        let _ = writeln!(s, "reloc {r:?}");
    }
    for m in &req.maps {
        let _ = writeln!(s, "map {m:?}");
    }
    let _ = writeln!(
        s,
        "prog_type {} attach {:?} {:?} prog_flags {:#x} log_level {} log_size {} unpriv {} caps {:?} btf {:?} license {} privileged_setup {} create_every_map {} jited {}",
        req.prog_type.name(),
        req.expected_attach_type,
        req.attach_func,
        req.prog_flags,
        req.log_level,
        req.log_size,
        req.unpriv,
        req.caps_unpriv,
        req.btf,
        req.license,
        req.privileged_setup,
        req.create_every_map,
        req.want_jited,
    );
    match &req.test_run {
        Some(t) => {
            let _ = writeln!(s, "test_run data {:?} ctx {:?} data_out_size {} repeat {}", t.data, t.ctx, t.data_out_size, t.repeat);
        }
        None => s.push_str("no test_run\n"),
    }
    if !req.scenario.is_empty() {
        let sc = &req.scenario;
        for a in &sc.attached {
            let _ =
                writeln!(s, "attached {} {:?} {:?} {:?} {:#x} {:?}", a.name, a.prog_type.name(), a.expected_attach_type, a.attach_func, a.prog_flags, a.btf);
            for i in &a.prog.insns {
                let _ = writeln!(s, "{}", i.to_bytes().iter().map(|b| format!("{b:02x}")).collect::<String>());
            }
            for r in &a.prog.relocs {
                let _ = writeln!(s, "reloc {r:?}");
            }
        }
        let _ = writeln!(s, "attach_self {:?} global_init {:?} global_read {:?}", sc.attach_self, sc.global_init, sc.global_read);
    }
    format!("fnv64:{:016x}", crate::import::cpp::fnv64(s.as_bytes()))
}

impl Golden {
    /// The stored [`source_hash`], if the golden has one.
    pub fn source(&self) -> Option<&str> {
        self.header.iter().find(|(k, _)| k == SOURCE_KEY).map(|(_, v)| v.as_str())
    }

    /// The normalised golden of a real kernel's outcome.
    pub fn from_outcome(header: Vec<(String, String)>, o: &LoadOutcome) -> Golden {
        Golden {
            header,
            accepted: o.accepted,
            errno: o.errno,
            verified_insns: o.verified_insns,
            log: mask_kernel_pointers(&o.log),
            xlated: mask_rnd_hi32(&xlated_by_map_index(o)),
            xlated_insns: xlated_insns_normalised(o),
            jited_hex: o.jited_funcs.iter().map(|f| f.iter().map(|b| format!("{b:02x}")).collect()).collect(),
            jited: o.jited.clone(),
            retval: o.retval,
            test_run_errno: o.test_run_errno,
            prog_stats: o.prog_stats.clone(),
            globals: o.globals.clone(),
        }
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (k, v) in &self.header {
            let _ = writeln!(s, "# {k}: {v}");
        }
        let _ = writeln!(s, "== result\n{}", if self.accepted { "accepted" } else { "rejected" });
        let _ = writeln!(s, "== errno\n{}", self.errno);
        let _ = writeln!(s, "== verified_insns\n{}", self.verified_insns);
        let _ = writeln!(s, "== log");
        s.push_str(&self.log);
        if !self.log.is_empty() && !self.log.ends_with('\n') {
            s.push('\n');
        }
        let _ = writeln!(s, "== xlated");
        for l in &self.xlated {
            let _ = writeln!(s, "{l}");
        }
        let _ = writeln!(s, "== xlated_hex");
        for i in &self.xlated_insns {
            let b = i.to_bytes();
            let _ = writeln!(s, "{}", b.iter().map(|x| format!("{x:02x}")).collect::<String>());
        }
        let _ = writeln!(s, "== jited_hex");
        for (i, f) in self.jited_hex.iter().enumerate() {
            let _ = writeln!(s, "func #{i}: {f}");
        }
        let _ = writeln!(s, "== jited");
        for l in &self.jited {
            let _ = writeln!(s, "{l}");
        }
        let _ = writeln!(s, "== retval");
        match self.retval {
            Some(r) => {
                let _ = writeln!(s, "{}", r as i32);
            }
            None if self.test_run_errno != 0 => {
                let _ = writeln!(s, "test run failed: errno {}", self.test_run_errno);
            }
            None => {
                let _ = writeln!(s, "not run");
            }
        }
        if !self.prog_stats.is_empty() {
            let _ = writeln!(s, "== prog_stats");
            for st in &self.prog_stats {
                let _ = writeln!(s, "run_cnt {} recursion_misses {}", st.run_cnt, st.recursion_misses);
            }
        }
        if !self.globals.is_empty() {
            let _ = writeln!(s, "== globals");
            for g in &self.globals {
                let _ = writeln!(s, "{}", g.iter().map(|b| format!("{b:02x}")).collect::<String>());
            }
        }
        s
    }

    pub fn parse(text: &str) -> Result<Golden, String> {
        let mut g = Golden::default();
        let mut section: Option<String> = None;
        let mut body: Vec<&str> = Vec::new();
        let mut sections: Vec<(String, Vec<&str>)> = Vec::new();
        for line in text.split_inclusive('\n') {
            let l = line.strip_suffix('\n').unwrap_or(line);
            if section.is_none()
                && let Some(h) = l.strip_prefix("# ")
            {
                if let Some((k, v)) = h.split_once(": ") {
                    g.header.push((k.to_string(), v.to_string()));
                }
                continue;
            }
            if let Some(name) = l.strip_prefix("== ") {
                if let Some(s) = section.take() {
                    sections.push((s, std::mem::take(&mut body)));
                }
                section = Some(name.to_string());
                continue;
            }
            if section.is_some() {
                body.push(line);
            } else if !l.trim().is_empty() {
                return Err(format!("text before the first section: {l:?}"));
            }
        }
        if let Some(s) = section.take() {
            sections.push((s, body));
        }
        let lines = |b: &[&str]| b.iter().map(|l| l.trim_end_matches('\n').to_string()).collect::<Vec<_>>();
        let one = |b: &[&str], what: &str| b.first().map(|l| l.trim().to_string()).ok_or_else(|| format!("empty {what}"));
        for (name, b) in &sections {
            match name.as_str() {
                "result" => g.accepted = one(b, "result")? == "accepted",
                "errno" => g.errno = one(b, "errno")?.parse().map_err(|_| "bad errno".to_string())?,
                "verified_insns" => g.verified_insns = one(b, "verified_insns")?.parse().map_err(|_| "bad verified_insns".to_string())?,
                "log" => g.log = b.concat(),
                "xlated" => g.xlated = lines(b),
                "xlated_hex" => {
                    for l in lines(b) {
                        let bytes: Option<Vec<u8>> = (0..l.len() / 2).map(|k| l.get(2 * k..2 * k + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect();
                        match bytes.and_then(|b| <[u8; 8]>::try_from(b).ok()) {
                            Some(b) => g.xlated_insns.push(Insn::from_bytes(b)),
                            None => return Err(format!("bad xlated_hex line {l:?}")),
                        }
                    }
                }
                "jited_hex" => g.jited_hex = lines(b).iter().map(|l| l.split_once(": ").map_or(l.clone(), |(_, h)| h.to_string())).collect(),
                "jited" => g.jited = lines(b),
                "retval" => {
                    let v = one(b, "retval")?;
                    if let Some(e) = v.strip_prefix("test run failed: errno ") {
                        g.test_run_errno = e.parse().map_err(|_| "bad test-run errno".to_string())?;
                    } else if v != "not run" {
                        g.retval = Some(v.parse::<i32>().map_err(|_| "bad retval".to_string())? as u32);
                    }
                }
                "prog_stats" => {
                    for l in lines(b) {
                        let w: Vec<&str> = l.split(' ').collect();
                        match w[..] {
                            ["run_cnt", r, "recursion_misses", m] => g.prog_stats.push(crate::backend::ProgRunStats {
                                run_cnt: r.parse().map_err(|_| format!("bad prog_stats line {l:?}"))?,
                                recursion_misses: m.parse().map_err(|_| format!("bad prog_stats line {l:?}"))?,
                            }),
                            _ => return Err(format!("bad prog_stats line {l:?}")),
                        }
                    }
                }
                "globals" => {
                    for l in lines(b) {
                        let bytes: Option<Vec<u8>> = (0..l.len() / 2).map(|k| l.get(2 * k..2 * k + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect();
                        g.globals.push(bytes.filter(|_| l.len() % 2 == 0).ok_or_else(|| format!("bad globals line {l:?}"))?);
                    }
                }
                other => return Err(format!("unknown section '{other}'")),
            }
        }
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_normalises() {
        let o = LoadOutcome {
            accepted: true,
            verified_insns: 3,
            log: "0: (18) r1 = 0xffff888005e7c800\nprocessed 3 insns\n".into(),
            xlated: vec!["0: w0 = 1".into(), "1: r12 = -77".into(), "2: r12 <<= 32".into(), "3: r0 |= r12".into()],
            jited_funcs: vec![vec![0xc3, 0xcc]],
            xlated_insns: vec![
                Insn::new(0xb4, 0, 0, 0, 1),
                Insn::new(0xb7, 12, 0, 0, -77),
                Insn::new(0x67, 12, 0, 0, 32),
                Insn::new(0x4f, 0, 12, 0, 0),
                Insn::new(0x18, 1, 0, 0, 0x05e7_c800),
                Insn::new(0, 0, 0, 0, 0xffff_8880_u32 as i32),
            ],
            retval: Some(-1i32 as u32),
            ..Default::default()
        };
        let g = Golden::from_outcome(vec![("kernel".into(), "7.3.4+deb13-amd64".into())], &o);
        assert_eq!(g.log, "0: (18) r1 = 0xPTR\nprocessed 3 insns\n");
        let arm = "4: (18) r1 = 0xfff0000004c30200       ; R1=map_ptr(map=m,ks=4,vs=8)\n5: (18) r2 = 0xffffffffffffffff ; R2=-1\n6: R3=scalar(umin=0xfffffffffffffff8)\n";
        assert_eq!(
            mask_kernel_pointers(arm),
            "4: (18) r1 = 0xPTR       ; R1=map_ptr(map=m,ks=4,vs=8)\n5: (18) r2 = 0xPTR ; R2=-1\n6: R3=scalar(umin=0xfffffffffffffff8)\n"
        );
        assert_eq!(g.xlated[1], "1: r12 = RND");
        assert_eq!((g.xlated_insns[1].imm, g.xlated_insns[4].imm, g.xlated_insns[5].imm), (0, 0, 0));
        assert_eq!(g.xlated_insns[0].imm, 1);
        let text = g.to_text();
        assert_eq!(Golden::parse(&text).unwrap(), g);
    }
}
