//! The program's `line_info`: BTF records that map insns to source lines
//! (`struct bpf_line_info`). `check_btf_line` ([`super::check_btf`])
//! validates them at load; the log then quotes the source line of an insn
//! (`verbose_linfo` in `kernel/bpf/log.c`) and the diagnostics show the
//! source around a failing insn (`bpf_diag_source`, [`super::diag`]).

use crate::btf::Btf;

/// `struct bpf_line_info`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BpfLineInfo {
    pub insn_off: u32,
    pub file_name_off: u32,
    pub line_off: u32,
    /// Line number in the upper 22 bits, column in the lower 10.
    pub line_col: u32,
}

/// `sizeof(struct bpf_line_info)`.
pub const BPF_LINE_INFO_SIZE: u32 = 16;

/// `BPF_LINE_INFO_LINE_NUM`.
pub fn bpf_line_info_line_num(line_col: u32) -> u32 {
    line_col >> 10
}

/// `BPF_LINE_INFO_LINE_COL`.
pub fn bpf_line_info_line_col(line_col: u32) -> u32 {
    line_col & 0x3ff
}

/// `line_info` as `BPF_PROG_LOAD` receives it: `line_info_rec_size` and
/// `line_info_cnt` records of that size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineInfoAttr {
    pub rec_size: u32,
    pub cnt: u32,
    /// `cnt * rec_size` bytes, little-endian records.
    pub data: Vec<u8>,
}

impl LineInfoAttr {
    /// Records of `sizeof(struct bpf_line_info)` each.
    pub fn from_records(recs: &[BpfLineInfo]) -> LineInfoAttr {
        let mut data = Vec::with_capacity(recs.len() * BPF_LINE_INFO_SIZE as usize);
        for r in recs {
            for w in [r.insn_off, r.file_name_off, r.line_off, r.line_col] {
                data.extend_from_slice(&w.to_le_bytes());
            }
        }
        LineInfoAttr { rec_size: BPF_LINE_INFO_SIZE, cnt: recs.len() as u32, data }
    }
}

/// `bpf_find_linfo`: the last record at or before `insn_off` (records
/// are in increasing order and the first is at 0), none past the end of
/// the program.
pub fn bpf_find_linfo(linfo: &[BpfLineInfo], prog_len: usize, insn_off: usize) -> Option<usize> {
    if linfo.is_empty() || insn_off >= prog_len {
        return None;
    }
    let after = linfo.partition_point(|r| r.insn_off as usize <= insn_off);
    Some(after.saturating_sub(1))
}

/// `struct bpf_linfo_source` as `bpf_get_linfo_source` fills it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BpfLinfoSource<'b> {
    /// The file's base name (`kbasename`).
    pub file: Option<&'b str>,
    pub line: Option<&'b str>,
    pub file_name_off: u32,
    pub line_num: u32,
    pub line_col: u32,
}

/// `kbasename`: what follows the last `/`.
pub fn kbasename(s: &str) -> &str {
    s.rsplit_once('/').map_or(s, |(_, b)| b)
}

/// `bpf_get_linfo_source`.
pub fn bpf_get_linfo_source<'b>(btf: &'b Btf, linfo: &BpfLineInfo) -> BpfLinfoSource<'b> {
    BpfLinfoSource {
        file: btf.name(linfo.file_name_off).map(kbasename),
        line: btf.name(linfo.line_off),
        file_name_off: linfo.file_name_off,
        line_num: bpf_line_info_line_num(linfo.line_col),
        line_col: bpf_line_info_line_col(linfo.line_col),
    }
}

/// `ltrim`: C's `isspace` set.
fn ltrim(s: &str) -> &str {
    s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r'])
}

/// The text `verbose_linfo` prints for `insn_off` after its prefix
/// (`"<line> @ <file>:<n>\n"`), moving `prev_linfo` on; `None` when it
/// prints nothing: no record, the record printed last, or one for the same
/// file and line as it.
pub fn verbose_linfo_text(linfo: &[BpfLineInfo], btf: Option<&Btf>, prog_len: usize, prev_linfo: &mut Option<usize>, insn_off: usize) -> Option<String> {
    let btf = btf?;
    let cur = bpf_find_linfo(linfo, prog_len, insn_off)?;
    if *prev_linfo == Some(cur) {
        return None;
    }
    let l = &linfo[cur];
    if let Some(p) = prev_linfo.map(|p| &linfo[p])
        && p.file_name_off == l.file_name_off
        && bpf_line_info_line_num(p.line_col) == bpf_line_info_line_num(l.line_col)
    {
        return None;
    }
    let line = ltrim(btf.name(l.line_off).unwrap_or(""));
    let file = kbasename(btf.name(l.file_name_off).unwrap_or(""));
    *prev_linfo = Some(cur);
    Some(format!("{line} @ {file}:{}\n", bpf_line_info_line_num(l.line_col)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_linfo_takes_the_last_record_at_or_before() {
        let r = |insn_off| BpfLineInfo { insn_off, ..BpfLineInfo::default() };
        let recs = [r(0), r(3), r(7)];
        assert_eq!(bpf_find_linfo(&recs, 10, 0), Some(0));
        assert_eq!(bpf_find_linfo(&recs, 10, 2), Some(0));
        assert_eq!(bpf_find_linfo(&recs, 10, 3), Some(1));
        assert_eq!(bpf_find_linfo(&recs, 10, 9), Some(2));
        assert_eq!(bpf_find_linfo(&recs, 10, 10), None);
        assert_eq!(bpf_find_linfo(&[], 10, 1), None);
    }

    #[test]
    fn basename_and_ltrim() {
        assert_eq!(kbasename("/a/b/t.c"), "t.c");
        assert_eq!(kbasename("t.c"), "t.c");
        assert_eq!(ltrim("\t  x = 1;"), "x = 1;");
    }
}
