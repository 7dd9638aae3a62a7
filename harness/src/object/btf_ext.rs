//! `.BTF.ext`: the per-instruction BTF of an object (`struct
//! btf_ext_header`, then `func_info`, `line_info` and `core_relo`
//! subsections), read as libbpf's `btf_ext__new` reads it, and the records
//! of one linked program gathered as `reloc_prog_func_and_line_info` does.
//!
//! A subsection is `u32 rec_size`, then per ELF section `struct
//! btf_ext_info_sec { u32 sec_name_off; u32 num_info; }` and `num_info`
//! records of `rec_size` bytes whose first `u32` is the byte offset of an
//! instruction in that section.

use std::fmt;

use super::INSN_SZ;

/// `sizeof(struct bpf_func_info)`.
pub const FUNC_INFO_MIN_REC_SIZE: u32 = 8;
/// `sizeof(struct bpf_line_info)`.
pub const LINE_INFO_MIN_REC_SIZE: u32 = 16;
/// `sizeof(struct bpf_core_relo)`.
pub const CORE_RELO_MIN_REC_SIZE: u32 = 16;

/// The records of one ELF section in a subsection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtInfoSec {
    /// The section's name, a string of the object's BTF.
    pub sec_name_off: u32,
    /// The ELF section of that name (libbpf's `sec_idxs`), when there is
    /// one.
    pub sec_idx: Option<usize>,
    /// `num_info` records of the subsection's `rec_size`.
    pub records: Vec<u8>,
}

/// One subsection (`struct btf_ext_info`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtInfo {
    /// 0 when the subsection is empty.
    pub rec_size: u32,
    pub secs: Vec<ExtInfoSec>,
}

/// A parsed `.BTF.ext`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BtfExt {
    pub func_info: ExtInfo,
    pub line_info: ExtInfo,
    pub core_relo: ExtInfo,
}

fn u32_at(d: &[u8], off: usize) -> Option<u32> {
    d.get(off..off.checked_add(4)?).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

impl BtfExt {
    /// `btf_ext__new`'s checks: a bad header, subsection or record size is
    /// an error (libbpf's `-EINVAL`/`-ENOTSUP`).
    pub fn parse(data: &[u8]) -> Result<BtfExt, String> {
        let hdr_len = u32_at(data, 4).ok_or(".BTF.ext header too short")? as usize;
        match u16::from_le_bytes([data[0], data[1]]) {
            crate::btf::BTF_MAGIC => {}
            m if m == crate::btf::BTF_MAGIC.swap_bytes() => return Err("big-endian .BTF.ext is not supported".into()),
            m => return Err(format!("invalid .BTF.ext magic {m:#x}")),
        }
        if data[2] != 1 {
            return Err(format!("unsupported .BTF.ext version {}", data[2]));
        }
        if data[3] != 0 {
            return Err(format!("unsupported .BTF.ext flags {:#x}", data[3]));
        }
        if data.len() < hdr_len {
            return Err(".BTF.ext header not found".into());
        }
        if data.len() == hdr_len {
            return Err(".BTF.ext has no data".into());
        }
        // func_info and line_info offsets and lengths are mandatory
        if hdr_len < 24 {
            return Err(".BTF.ext header missing func_info, line_info".into());
        }
        let field = |off: usize| u32_at(data, off).unwrap_or(0);
        let mut ext = BtfExt {
            func_info: parse_info(data, hdr_len, field(8), field(12), FUNC_INFO_MIN_REC_SIZE, "func_info")?,
            line_info: parse_info(data, hdr_len, field(16), field(20), LINE_INFO_MIN_REC_SIZE, "line_info")?,
            core_relo: ExtInfo::default(),
        };
        if hdr_len >= 32 {
            ext.core_relo = parse_info(data, hdr_len, field(24), field(28), CORE_RELO_MIN_REC_SIZE, "core_relo")?;
        }
        Ok(ext)
    }

    /// Maps each subsection's section names to ELF sections: `sec_idx` of
    /// the first section named so (`name` gives a BTF string, `find` the
    /// section of a name).
    pub fn map_sections(&mut self, name: impl Fn(u32) -> Option<String>, find: impl Fn(&str) -> Option<usize>) {
        for info in [&mut self.func_info, &mut self.line_info, &mut self.core_relo] {
            for s in &mut info.secs {
                s.sec_idx = name(s.sec_name_off).filter(|n| !n.is_empty()).and_then(|n| find(&n));
            }
        }
    }
}

/// `btf_ext_parse_sec_info` for one subsection at `off` (after the header)
/// of `len` bytes.
fn parse_info(data: &[u8], hdr_len: usize, off: u32, len: u32, min_rec_size: u32, what: &str) -> Result<ExtInfo, String> {
    if len == 0 {
        return Ok(ExtInfo::default());
    }
    if off & 3 != 0 {
        return Err(format!(".BTF.ext {what} section is not aligned to 4 bytes"));
    }
    let start = hdr_len as u64 + u64::from(off);
    let end = start + u64::from(len);
    if end > data.len() as u64 {
        return Err(format!(".BTF.ext {what} section (off {off}, len {len}) is beyond the end of the ELF section"));
    }
    let info = &data[start as usize..end as usize];
    let rec_size = u32_at(info, 0).ok_or_else(|| format!(".BTF.ext {what} record size not found"))?;
    if rec_size < min_rec_size || rec_size & 3 != 0 {
        return Err(format!(".BTF.ext {what} section has invalid record size {rec_size}"));
    }
    let mut at = 4;
    if at == info.len() {
        return Err(format!(".BTF.ext {what} section has no records"));
    }
    let mut secs = Vec::new();
    while at < info.len() {
        let (Some(sec_name_off), Some(num)) = (u32_at(info, at), u32_at(info, at + 4)) else {
            return Err(format!(".BTF.ext {what} section header is not found"));
        };
        if num == 0 {
            return Err(format!(".BTF.ext {what} section has incorrect num_records"));
        }
        let total = 8 + u64::from(num) * u64::from(rec_size);
        if total > (info.len() - at) as u64 {
            return Err(format!(".BTF.ext {what} section has incorrect num_records"));
        }
        let records = info[at + 8..at + total as usize].to_vec();
        secs.push(ExtInfoSec { sec_name_off, sec_idx: None, records });
        at += total as usize;
    }
    Ok(ExtInfo { rec_size, secs })
}

/// `func_info` or `line_info` records as BPF_PROG_LOAD takes them: each
/// record's first `u32` an instruction index of the linked program.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct BtfExtRecords {
    /// `func_info_rec_size` / `line_info_rec_size`.
    pub rec_size: u32,
    pub data: Vec<u8>,
}

impl BtfExtRecords {
    /// `func_info_cnt` / `line_info_cnt`.
    pub fn cnt(&self) -> u32 {
        if self.rec_size == 0 { 0 } else { (self.data.len() / self.rec_size as usize) as u32 }
    }

    /// Each record's `insn_off` and the `u32` after it (a `func_info`'s
    /// `type_id`; a `line_info`'s `file_name_off`).
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.data.chunks_exact(self.rec_size.max(8) as usize).map(|r| (u32_at(r, 0).unwrap_or(0), u32_at(r, 4).unwrap_or(0)))
    }
}

/// Lengths only: the records are binary.
impl fmt::Debug for BtfExtRecords {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BtfExtRecords {{ rec_size: {}, cnt: {} }}", self.rec_size, self.cnt())
    }
}

/// Where one (sub)program lies in its ELF section and where the linker put
/// it (libbpf's `sec_idx`, `sec_insn_off`, `sec_insn_cnt`, `sub_insn_off`).
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    pub sec_idx: usize,
    pub sec_insn_off: usize,
    pub sec_insn_cnt: usize,
    pub sub_insn_off: usize,
}

/// `adjust_prog_btf_ext_info`: appends the records of the program at `at`
/// from the first subsection entry of its section to `out`, their byte
/// offsets made instruction indices of the linked program. `false`
/// (libbpf's `-ENOENT`) when that section has no record inside the
/// program, or no entry at all.
pub fn append_prog_records(info: &ExtInfo, at: &Placement, out: &mut BtfExtRecords) -> bool {
    let Some(sec) = info.secs.iter().find(|s| s.sec_idx == Some(at.sec_idx)) else { return false };
    let rec_size = info.rec_size as usize;
    let (mut first, mut end) = (None, 0);
    for (i, r) in sec.records.chunks_exact(rec_size).enumerate() {
        let insn = (u32_at(r, 0).unwrap_or(0) as u64 / INSN_SZ) as usize;
        if insn < at.sec_insn_off {
            continue;
        }
        if insn >= at.sec_insn_off + at.sec_insn_cnt {
            break;
        }
        first.get_or_insert(i);
        end = i + 1;
    }
    let Some(first) = first else { return false };
    let adj = at.sub_insn_off as i64 - at.sec_insn_off as i64;
    for r in sec.records[first * rec_size..end * rec_size].chunks_exact(rec_size) {
        let insn = (u32_at(r, 0).unwrap_or(0) as u64 / INSN_SZ) as i64 + adj;
        out.data.extend_from_slice(&(insn as u32).to_le_bytes());
        out.data.extend_from_slice(&r[4..]);
    }
    out.rec_size = info.rec_size;
    true
}

/// A linked program's `func_info` and `line_info`, gathered as libbpf's
/// `reloc_prog_func_and_line_info` does for the main program and then each
/// subprogram appended: `None` when the main program has no records of
/// that kind (libbpf then skips the kind for the whole program).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgBtfExt {
    pub func_info: Option<BtfExtRecords>,
    pub line_info: Option<BtfExtRecords>,
}

impl ProgBtfExt {
    /// Adds the records of the (sub)program `name` placed at `at`; `main`
    /// for the main program, which comes first. A subprogram without
    /// records of a kind the main program has is an error, as in libbpf.
    pub fn add(&mut self, ext: &BtfExt, main: bool, name: &str, at: &Placement) -> Result<(), String> {
        for (info, slot, what) in [(&ext.func_info, &mut self.func_info, "function"), (&ext.line_info, &mut self.line_info, "line")] {
            if !main && slot.is_none() {
                continue;
            }
            let mut recs = slot.take().unwrap_or_default();
            if append_prog_records(info, at, &mut recs) {
                *slot = Some(recs);
            } else if !main {
                return Err(format!("prog '{name}': missing .BTF.ext {what} info"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A `.BTF.ext` with a 32-byte header, func_info then line_info.
    fn ext(func: &[u32], line: &[u32]) -> Vec<u8> {
        let (f, l) = (words(func), words(line));
        let mut d = vec![0x9f, 0xeb, 1, 0];
        d.extend(words(&[32, 0, f.len() as u32, f.len() as u32, l.len() as u32, 0, 0]));
        d.extend(f);
        d.extend(l);
        d
    }

    // section "a" (name 1) with records at insns 0, 3 (one program of 3
    // insns, one of 2); section "b" (name 5) with one at insn 0
    const FUNC: &[u32] = &[8, 1, 2, 0, 10, 24, 11, 5, 1, 0, 12];
    const LINE: &[u32] = &[16, 1, 3, 0, 100, 200, 1, 8, 101, 201, 2, 24, 102, 202, 3];

    #[test]
    fn parses_func_and_line_info() {
        let e = BtfExt::parse(&ext(FUNC, LINE)).expect("parses");
        assert_eq!(e.func_info.rec_size, 8);
        assert_eq!(e.func_info.secs.len(), 2);
        assert_eq!((e.func_info.secs[0].sec_name_off, e.func_info.secs[0].records.len()), (1, 16));
        assert_eq!(e.line_info.rec_size, 16);
        assert_eq!(e.line_info.secs[0].records.len(), 48);
        assert_eq!(e.core_relo, ExtInfo::default());
    }

    #[test]
    fn bad_input_is_an_error() {
        let good = ext(FUNC, LINE);
        for n in [0, 1, 4, 7, 31, 32, good.len() - 1] {
            assert!(BtfExt::parse(&good[..n]).is_err(), "truncated to {n}");
        }
        let mut bad_rec = ext(FUNC, LINE);
        bad_rec[32] = 6; // func_info rec_size 6 < 8
        assert!(BtfExt::parse(&bad_rec).unwrap_err().contains("invalid record size 6"));
        let mut odd = ext(FUNC, LINE);
        odd[32] = 10; // not a multiple of 4
        assert!(BtfExt::parse(&odd).is_err());
        let mut line_small = ext(FUNC, LINE);
        line_small[32 + FUNC.len() * 4] = 8; // line_info records need 16
        assert!(BtfExt::parse(&line_small).is_err());
        let mut huge = ext(FUNC, LINE);
        huge[32 + 8..32 + 12].copy_from_slice(&u32::MAX.to_le_bytes()); // num_info
        assert!(BtfExt::parse(&huge).unwrap_err().contains("num_records"));
        let mut zero = ext(FUNC, LINE);
        zero[32 + 8..32 + 12].copy_from_slice(&0u32.to_le_bytes());
        assert!(BtfExt::parse(&zero).is_err());
        let mut far = ext(FUNC, LINE);
        far[8..12].copy_from_slice(&u32::MAX.to_le_bytes()); // func_info_off
        assert!(BtfExt::parse(&far).is_err());
        let mut magic = ext(FUNC, LINE);
        magic[0] = 0;
        assert!(BtfExt::parse(&magic).is_err());
        assert!(BtfExt::parse(&ext(&[8], LINE)).unwrap_err().contains("no records"));
    }

    fn mapped() -> BtfExt {
        let mut e = BtfExt::parse(&ext(FUNC, LINE)).expect("parses");
        e.map_sections(|off| Some(if off == 1 { "a" } else { "b" }.to_string()), |n| Some(if n == "a" { 3 } else { 4 }));
        e
    }

    #[test]
    fn records_of_appended_subprograms_are_shifted() {
        let e = mapped();
        // main: section b's program of 4 insns at 0; then section a's
        // second program (insns 3..5) appended at 4
        let mut p = ProgBtfExt::default();
        p.add(&e, true, "main", &Placement { sec_idx: 4, sec_insn_off: 0, sec_insn_cnt: 4, sub_insn_off: 0 }).expect("main");
        p.add(&e, false, "sub", &Placement { sec_idx: 3, sec_insn_off: 3, sec_insn_cnt: 2, sub_insn_off: 4 }).expect("sub");
        let f = p.func_info.expect("func_info");
        assert_eq!((f.rec_size, f.cnt()), (8, 2));
        assert_eq!(f.pairs().collect::<Vec<_>>(), vec![(0, 12), (4, 11)]);
        // line_info has no entry for section b: the main program has no
        // line records, so none are kept for the subprogram either
        assert_eq!(p.line_info, None);
    }

    #[test]
    fn a_program_without_records() {
        let e = mapped();
        let mut p = ProgBtfExt::default();
        // section a's first program: insns 0..3 have a func record at 0
        // and line records at 0 and 1
        p.add(&e, true, "first", &Placement { sec_idx: 3, sec_insn_off: 0, sec_insn_cnt: 3, sub_insn_off: 0 }).expect("main");
        assert_eq!(p.line_info.as_ref().map(|l| l.pairs().collect::<Vec<_>>()), Some(vec![(0, 100), (1, 101)]));
        // a subprogram of an unmapped section: an error, as in libbpf
        assert!(p.add(&e, false, "lost", &Placement { sec_idx: 9, sec_insn_off: 0, sec_insn_cnt: 1, sub_insn_off: 3 }).is_err());
        // a main program without records: none for it or its subprograms
        let mut q = ProgBtfExt::default();
        q.add(&e, true, "bare", &Placement { sec_idx: 9, sec_insn_off: 0, sec_insn_cnt: 1, sub_insn_off: 0 }).expect("no records");
        q.add(&e, false, "sub", &Placement { sec_idx: 3, sec_insn_off: 0, sec_insn_cnt: 3, sub_insn_off: 1 }).expect("skipped");
        assert_eq!(q, ProgBtfExt::default());
    }
}
