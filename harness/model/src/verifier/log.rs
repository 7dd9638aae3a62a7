//! The verifier log (`kernel/bpf/log.c`): `bpf_vlog_init`, `bpf_verifier_vlog`,
//! `bpf_vlog_reset`, `bpf_vlog_finalize` and `bpf_vlog_alignment`.
//!
//! The kernel writes into the user's buffer as it goes. By default the buffer
//! is a ring: when the log outgrows it, the oldest text is overwritten and
//! `bpf_vlog_finalize` rotates the ring so the user sees the *last*
//! `size - 1` bytes; the load then fails with `ENOSPC`. With `BPF_LOG_FIXED`
//! the first `size - 1` bytes are kept instead. Either way `log_true_size`
//! is the size the whole log would have needed (with its NUL).
//!
//! We keep the kernel's position arithmetic (`start_pos`, `end_pos`,
//! `len_max`) exactly, and only the logical text the final buffer can still
//! show, so memory stays bounded by the buffer size whatever the program.

use super::errno::{EINVAL, ENOSPC};

pub const BPF_LOG_LEVEL1: u32 = 1;
pub const BPF_LOG_LEVEL2: u32 = 2;
pub const BPF_LOG_STATS: u32 = 4;
pub const BPF_LOG_FIXED: u32 = 8;
pub const BPF_LOG_LEVEL: u32 = BPF_LOG_LEVEL1 | BPF_LOG_LEVEL2;
pub const BPF_LOG_MASK: u32 = BPF_LOG_LEVEL | BPF_LOG_STATS | BPF_LOG_FIXED;
pub const BPF_LOG_MIN_ALIGNMENT: u32 = 8;
pub const BPF_LOG_ALIGNMENT: u32 = 40;
/// `BPF_VERIFIER_TMP_LOG_SIZE`: one `verbose()` call prints at most this
/// many bytes minus the NUL (`vscnprintf` into the kernel's scratch buffer).
pub const BPF_VERIFIER_TMP_LOG_SIZE: usize = 1024;

/// Dead text kept before a trim at most (beyond the live text's size).
const TRIM_SLACK_MAX: usize = 64 << 20;

/// `struct bpf_verifier_log` plus the text the user buffer holds.
#[derive(Clone, Debug)]
pub struct BpfVerifierLog {
    pub level: u32,
    /// `len_total`: the user buffer's size (0: no buffer).
    pub len_total: u32,
    /// Whether the user gave a buffer (`ubuf != NULL`).
    has_buf: bool,
    pub start_pos: u64,
    pub end_pos: u64,
    pub len_max: u32,
    /// Logical text from position `text_base` to `end_pos`.
    text: Vec<u8>,
    text_base: u64,
}

/// `bpf_verifier_log_attr_valid`.
pub fn bpf_verifier_log_attr_valid(level: u32, has_buf: bool, size: u32) -> bool {
    // ubuf and len_total are given together or not at all
    if has_buf != (size != 0) {
        return false;
    }
    // a buffer without a level is meaningless
    if has_buf && level == 0 {
        return false;
    }
    if level & !BPF_LOG_MASK != 0 {
        return false;
    }
    size <= u32::MAX >> 2
}

/// The verifier's error message in a log as a load hands it back: the last
/// line before 7.3's "Verification failed:" report, or, without one (an
/// older kernel, a level without the report), the last before the
/// `processed N insns` statistics, or the log's last line; with an `N: `
/// insn index in front kept. None for an empty log.
pub fn error_message(log: &str) -> Option<&str> {
    let lines: Vec<&str> = log.lines().collect();
    let end = lines
        .iter()
        .position(|l| l.starts_with("Verification failed"))
        .or_else(|| lines.iter().rposition(|l| l.starts_with("processed ") && l.contains(" insns (limit ")))
        .unwrap_or(lines.len());
    lines[..end].iter().rev().find(|l| !l.trim().is_empty()).copied()
}

/// `bpf_vlog_alignment`: the padding that puts a `;` comment at column 40
/// (or the next multiple of 8 past `pos + 4`).
pub fn bpf_vlog_alignment(pos: u64) -> usize {
    let m = (pos + (BPF_LOG_MIN_ALIGNMENT / 2) as u64).max(BPF_LOG_ALIGNMENT as u64);
    let up = m.div_ceil(BPF_LOG_MIN_ALIGNMENT as u64) * BPF_LOG_MIN_ALIGNMENT as u64;
    (up - pos).saturating_sub(1) as usize
}

impl BpfVerifierLog {
    /// `bpf_vlog_init`: `Err(EINVAL)` for attributes the kernel refuses.
    /// The buffer exists when `size != 0` (the loader passes one with any
    /// non-zero level).
    pub fn bpf_vlog_init(level: u32, size: u32) -> Result<BpfVerifierLog, i32> {
        let has_buf = size != 0;
        let log = BpfVerifierLog { level, len_total: size, has_buf, start_pos: 0, end_pos: 0, len_max: 0, text: Vec::new(), text_base: 0 };
        if !bpf_verifier_log_attr_valid(level, has_buf, size) {
            return Err(EINVAL);
        }
        Ok(log)
    }

    /// A log that records nothing (level 0), for phases run without a load.
    pub fn disabled() -> BpfVerifierLog {
        BpfVerifierLog { level: 0, len_total: 0, has_buf: false, start_pos: 0, end_pos: 0, len_max: 0, text: Vec::new(), text_base: 0 }
    }

    /// `bpf_verifier_log_needed`.
    pub fn needed(&self) -> bool {
        self.level != 0
    }

    fn fixed(&self) -> bool {
        self.level & BPF_LOG_FIXED != 0
    }

    /// `bpf_verifier_vlog`: one message, already formatted.
    pub fn vlog(&mut self, msg: &str) {
        if !self.needed() {
            return;
        }
        let mut bytes = msg.as_bytes();
        if bytes.len() > BPF_VERIFIER_TMP_LOG_SIZE - 1 {
            bytes = &bytes[..BPF_VERIFIER_TMP_LOG_SIZE - 1];
        }
        let n = bytes.len() as u64 + 1; // with the NUL
        let len = self.end_pos + n;
        self.len_max = if len > u32::MAX as u64 { u32::MAX } else { self.len_max.max(len as u32) };

        if self.fixed() {
            // Only positions below len_total - 1 can ever be shown.
            let keep = (self.len_total as u64).saturating_sub(1);
            if self.end_pos < keep {
                let room = (keep - self.end_pos) as usize;
                self.truncate_text_to(self.end_pos);
                self.text.extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
            self.end_pos += n - 1;
        } else {
            let new_end = self.end_pos + n;
            if new_end - self.start_pos >= self.len_total as u64 {
                self.start_pos = new_end - self.len_total as u64;
            }
            self.truncate_text_to(self.end_pos);
            self.text.extend_from_slice(bytes);
            self.end_pos = new_end - 1;
            self.trim_front();
        }
    }

    /// Drops text the final buffer can no longer show (before `start_pos`),
    /// in chunks so appends stay amortised O(1): once the dead text is 4
    /// times the live (for a live part up to 16 MiB; as large as the live
    /// part beyond), so that each byte appended is moved a quarter time.
    fn trim_front(&mut self) {
        let drop = self.start_pos.saturating_sub(self.text_base) as usize;
        let live = self.text.len().saturating_sub(drop);
        if drop > 0 && drop >= live.max(live.saturating_mul(4).min(TRIM_SLACK_MAX)) {
            let drop = drop.min(self.text.len());
            self.text.drain(..drop);
            self.text_base += drop as u64;
        }
    }

    fn truncate_text_to(&mut self, pos: u64) {
        if pos < self.text_base {
            self.text.clear();
            self.text_base = pos;
            return;
        }
        let keep = (pos - self.text_base) as usize;
        if keep < self.text.len() {
            self.text.truncate(keep);
        }
    }

    /// `bpf_vlog_reset`: forget everything after `new_pos`.
    pub fn reset(&mut self, new_pos: u64) {
        if new_pos > self.end_pos || !self.needed() {
            return;
        }
        self.end_pos = new_pos;
        if self.end_pos < self.start_pos {
            self.start_pos = self.end_pos;
        }
        self.truncate_text_to(new_pos);
    }

    /// What the user buffer holds at the end (`bpf_vlog_finalize`'s
    /// rotation done), without the NUL.
    pub fn contents(&self) -> String {
        if !self.has_buf {
            return String::new();
        }
        let (from, to) = if self.fixed() { (0, self.end_pos.min((self.len_total as u64).saturating_sub(1))) } else { (self.start_pos, self.end_pos) };
        let a = from.saturating_sub(self.text_base) as usize;
        let b = (to.saturating_sub(self.text_base) as usize).min(self.text.len());
        String::from_utf8_lossy(self.text.get(a.min(b)..b).unwrap_or(&[])).into_owned()
    }

    /// `bpf_vlog_finalize`: `(log_true_size, Err(ENOSPC) when truncated)`.
    pub fn finalize(&self) -> (u32, Result<(), i32>) {
        if self.level == 0 {
            return (0, Ok(()));
        }
        let truncated = self.has_buf && self.len_max > self.len_total;
        (self.len_max, if truncated { Err(ENOSPC) } else { Ok(()) })
    }
}

/// The main pass writes into the same buffer as the front end.
impl super::do_check::VLog for BpfVerifierLog {
    fn level(&self) -> u32 {
        self.level
    }
    /// The main pass often joins what the kernel prints with several
    /// `verbose()` calls (a whole register state), so its text is written
    /// in pieces that each fit the kernel's per-call limit.
    fn vlog(&mut self, s: &str) {
        let mut rest = s;
        while !rest.is_empty() {
            let mut cut = rest.len().min(BPF_VERIFIER_TMP_LOG_SIZE - 1);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (head, tail) = rest.split_at(cut);
            BpfVerifierLog::vlog(self, head);
            rest = tail;
        }
    }
    fn end_pos(&self) -> u64 {
        self.end_pos
    }
    fn reset(&mut self, pos: u64) {
        BpfVerifierLog::reset(self, pos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(level: u32, size: u32, msgs: &[&str]) -> BpfVerifierLog {
        let mut l = BpfVerifierLog::bpf_vlog_init(level, size).unwrap();
        for m in msgs {
            l.vlog(m);
        }
        l
    }

    #[test]
    fn rotating_keeps_the_tail() {
        let l = log_of(1, 8, &["hello ", "world\n"]);
        assert_eq!(l.contents(), " world\n");
        assert_eq!(l.finalize(), (13, Err(ENOSPC)));
        let l = log_of(1, 64, &["hello ", "world\n"]);
        assert_eq!(l.contents(), "hello world\n");
        assert_eq!(l.finalize(), (13, Ok(())));
    }

    #[test]
    fn fixed_keeps_the_head() {
        let l = log_of(9, 8, &["hello ", "world\n"]);
        assert_eq!(l.contents(), "hello w");
        assert_eq!(l.finalize(), (13, Err(ENOSPC)));
    }

    #[test]
    fn reset_rewinds() {
        let mut l = log_of(1, 100, &["abc\n"]);
        let p = l.end_pos;
        l.vlog(" xyz");
        l.reset(p - 1);
        l.vlog(";\n");
        assert_eq!(l.contents(), "abc;\n");
    }

    #[test]
    fn attrs() {
        assert_eq!(BpfVerifierLog::bpf_vlog_init(16, 100).unwrap_err(), EINVAL);
        assert_eq!(BpfVerifierLog::bpf_vlog_init(0, 100).unwrap_err(), EINVAL);
        assert!(BpfVerifierLog::bpf_vlog_init(1, 0).is_ok());
        assert_eq!(BpfVerifierLog::bpf_vlog_init(1, u32::MAX).unwrap_err(), EINVAL);
    }

    #[test]
    fn alignment() {
        // "(b4) w2 = 1" is 11 wide: the comment goes to column 40
        assert_eq!(bpf_vlog_alignment(11), 28);
        assert_eq!(bpf_vlog_alignment(31), 8);
        assert_eq!(bpf_vlog_alignment(38), 9);
    }
}
