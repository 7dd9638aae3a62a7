//! 7.3's structured failure reports (`kernel/bpf/diagnostics.c`): after the
//! classic one-line message, levels 1 and 2 get a block
//!
//! ```text
//!
//! Verification failed: <Category>: <Problem>
//!
//! Reason:
//!   <text wrapped at 100 columns>
//!
//! At:
//!   insn N
//!        | ^-- error: <problem>
//!   Instruction context:
//!       N-1 | (xx) ...
//!   >>> N   | (xx) ...
//!
//! Causal path:            (main-pass reports about a register)
//!   insn M
//!        | ^-- update: R1 changed from ... to ...
//!   ...
//!
//! Suggestion:
//!   <text>
//!
//! ```
//!
//! The "Causal path" comes from an event log the main pass keeps while it
//! walks a path ([`BpfDiag`]): taken branches and register or stack-slot
//! changes with before/after snapshots (`bpf_diag_mod_begin` /
//! `bpf_diag_mod_end`). A queued branch remembers the log's length and
//! cuts it back when it resumes, so the log always describes the path being
//! verified. To explain a bad register, a report walks back from it through
//! the moves, spills and fills that carried its value until it reaches the
//! instruction that produced it.
//!
//! With the program's `line_info`, "At:" names the function, file, line
//! and column instead of the insn, and shows the source lines around it
//! (`Source context:`) before the insns.

use std::collections::VecDeque;

use bpf_isa::Insn;
use bpf_isa::op::*;

use super::do_check::Env;
use super::env::VerifierEnv;
use super::linfo::{BpfLineInfo, bpf_find_linfo, bpf_get_linfo_source};
use super::log::BPF_LOG_LEVEL;
use super::reg::*;
use super::scalar::Scalar;
use super::scalar::cnum::Cnum64;
use super::state::BPF_REG_SIZE;
use super::tnum::{Tnum, tnum_is_const, tnum_is_unknown};
use crate::btf::Btf;

pub const REGISTER_TYPE_SAFETY: &str = "Register Type Safety";
pub const MEMORY_SAFETY: &str = "Memory Safety";
pub const RESOURCE_LIFETIME_SAFETY: &str = "Resource Lifetime Safety";
pub const CALL_TYPE_SAFETY: &str = "Call Type Safety";
pub const EXECUTION_CONTEXT_SAFETY: &str = "Execution Context Safety";
pub const PROGRAM_STRUCTURE: &str = "Program Structure";
pub const POLICY: &str = "Policy";

/// `BPF_DIAG_TEXT_WIDTH`.
const TEXT_WIDTH: usize = 100;
/// `BPF_DIAG_TEXT_INDENT`.
const TEXT_INDENT: &str = "  ";
/// `BPF_DIAG_CONTEXT`: insns shown before and after the one at fault.
const CONTEXT: i64 = 2;
/// `BPF_DIAG_SOURCE_LANE_WIDTH`.
const SOURCE_LANE_WIDTH: usize = 88;
/// `BPF_DIAG_TAB_WIDTH`.
const TAB_WIDTH: usize = 8;
/// `BPF_DIAG_FMT_BUF_SIZE`: a source lane's buffer.
const FMT_BUF_SIZE: usize = 256;
/// `BPF_DIAG_HISTORY_RENDER_MAX`: events of a causal path shown in full.
const HISTORY_RENDER_MAX: usize = 64;
/// `DISASM_LINE_LEN`: an insn's text is cut to fit this buffer.
const DISASM_LINE_LEN: usize = 160;
/// `BPF_DIAG_EVENT_LOG_MAX_SIZE / sizeof(struct bpf_diag_history_event)`
/// (64 MiB of 152-byte events): beyond this the oldest events of a path
/// are dropped, and the report says how many.
const EVENT_LOG_MAX: usize = (64 << 20) / 152;
/// A queue of this many events grows straight to [`EVENT_LOG_MAX`].
const EVENT_LOG_GROW_TO_MAX: usize = 1 << 16;

/// Where a report goes: the log, and the program whose insns it shows.
pub trait DiagOut {
    fn diag_level(&self) -> u32;
    fn diag_write(&mut self, s: &str);
    fn diag_prog_len(&self) -> usize;
    fn diag_insn(&self, idx: usize) -> Option<Insn>;
    /// The insn's disasm.c text as the log prints it.
    fn diag_disasm(&self, idx: usize) -> String;
    /// `prog->aux->linfo` and `prog->aux->btf`.
    fn diag_linfo(&self) -> (&[BpfLineInfo], Option<&Btf>);
    /// `bpf_find_containing_subprog`: the start of the subprogram holding
    /// `idx`, the start of the next one (or the program's end) and its
    /// `bpf_subprog_name`.
    fn diag_subprog(&self, idx: usize) -> Option<(usize, usize, String)>;
}

impl DiagOut for VerifierEnv<'_> {
    fn diag_level(&self) -> u32 {
        self.level()
    }
    fn diag_write(&mut self, s: &str) {
        self.verbose(s);
    }
    fn diag_prog_len(&self) -> usize {
        self.len()
    }
    fn diag_insn(&self, idx: usize) -> Option<Insn> {
        self.insns.get(idx).copied()
    }
    fn diag_disasm(&self, idx: usize) -> String {
        self.insn_text(idx)
    }
    fn diag_linfo(&self) -> (&[BpfLineInfo], Option<&Btf>) {
        (&self.linfo, self.input.prog_btf.as_deref())
    }
    fn diag_subprog(&self, idx: usize) -> Option<(usize, usize, String)> {
        if idx >= self.len() || self.subprog_cnt == 0 {
            return None;
        }
        let n = self.subprog_info[..self.subprog_cnt].partition_point(|s| s.start <= idx).max(1) - 1;
        let end = if n + 1 < self.subprog_cnt { self.subprog_info[n + 1].start } else { self.len() };
        Some((self.subprog_info[n].start, end, self.bpf_subprog_name(n)))
    }
}

/// `bpf_diag_enabled`: only levels 1 and 2 get diagnostics (not 4 alone).
pub fn bpf_diag_enabled(out: &dyn DiagOut) -> bool {
    out.diag_level() & BPF_LOG_LEVEL != 0
}

fn diag_write(out: &mut dyn DiagOut, s: &str) {
    if bpf_diag_enabled(out) {
        out.diag_write(s);
    }
}

/// `diag_print_wrapped_prefixed`: greedy wrap at spaces so that prefix and
/// text fit 100 columns; explicit newlines end a line; a word longer than
/// the line is cut.
fn diag_print_wrapped_prefixed(out: &mut dyn DiagOut, first_prefix: &str, next_prefix: &str, text: &str) {
    let t = text.as_bytes();
    let mut prefix = first_prefix;
    let mut p = 0;
    while p < t.len() {
        let width = TEXT_WIDTH.saturating_sub(prefix.len()).max(1);
        let line = &t[p..];
        let mut len = 0;
        let mut last_space: Option<usize> = None;
        while len < line.len() && line[len] != b'\n' && len < width {
            if line[len] == b' ' {
                last_space = Some(len);
            }
            len += 1;
        }
        if len < line.len()
            && line[len] != b'\n'
            && line[len] != b' '
            && let Some(s) = last_space.filter(|&s| s > 0)
        {
            len = s;
        }
        let chunk = String::from_utf8_lossy(&line[..len]);
        diag_write(out, &format!("{prefix}{chunk}\n"));
        p += len;
        while p < t.len() && t[p] == b' ' {
            p += 1;
        }
        if p < t.len() && t[p] == b'\n' {
            p += 1;
        }
        prefix = next_prefix;
    }
}

fn diag_print_indented(out: &mut dyn DiagOut, text: &str) {
    diag_print_wrapped_prefixed(out, TEXT_INDENT, TEXT_INDENT, text);
}

/// `bpf_diag_header`.
fn bpf_diag_header(out: &mut dyn DiagOut, category: &str, problem: &str) {
    if problem.is_empty() {
        diag_write(out, &format!("\nVerification failed: {category}\n"));
        return;
    }
    let mut cs = problem.chars();
    let first = cs.next().map(|c| c.to_ascii_uppercase()).unwrap_or(' ');
    diag_write(out, &format!("\nVerification failed: {category}: {first}{}\n", cs.as_str()));
}

/// `diag_section`.
fn diag_section(out: &mut dyn DiagOut, title: &str) {
    diag_write(out, &format!("\n{title}:\n"));
}

/// `diag_reason`.
fn diag_reason(out: &mut dyn DiagOut, text: &str) {
    if !bpf_diag_enabled(out) {
        return;
    }
    diag_section(out, "Reason");
    diag_print_indented(out, text);
}

/// `diag_suggestion`.
fn diag_suggestion(out: &mut dyn DiagOut, text: &str) {
    if !bpf_diag_enabled(out) {
        return;
    }
    diag_section(out, "Suggestion");
    diag_print_indented(out, text);
    diag_write(out, "\n");
}

/// `diag_print_source_annotation`: the label and message under a source
/// line of `line_width` digits, indented as the line is.
fn diag_print_source_annotation(out: &mut dyn DiagOut, line_width: usize, indent: usize, label: &str, msg: &str) {
    let indent = indent.min(SOURCE_LANE_WIDTH.saturating_sub(line_width + 8));
    let text = format!("{label}: {msg}");
    let pad = " ".repeat(line_width + 4);
    let ind = " ".repeat(indent);
    let first = format!("  {pad} | {ind}^-- ");
    let next = format!("  {pad} | {ind}    ");
    diag_print_wrapped_prefixed(out, &first, &next, &text);
}

/// `format_disasm_line`: the insn's text, or `None` where the kernel shows
/// no line (outside the program, the second half of an `ld_imm64`, an
/// `ld_imm64` cut off by the end).
fn format_disasm_line(out: &dyn DiagOut, idx: i64) -> Option<String> {
    let n = out.diag_prog_len() as i64;
    if idx < 0 || idx >= n {
        return None;
    }
    let i = idx as usize;
    if i > 0 && out.diag_insn(i - 1).is_some_and(|x| x.is_ld_imm64()) {
        return None;
    }
    if out.diag_insn(i).is_some_and(|x| x.is_ld_imm64()) && i + 1 >= out.diag_prog_len() {
        return None;
    }
    // disasm.c text with pointers as the log shows them, in the kernel's
    // 160-byte line buffer
    let mut text = out.diag_disasm(i).trim_end_matches('\n').to_string();
    if text.len() > DISASM_LINE_LEN - 1 {
        let mut cut = DISASM_LINE_LEN - 1;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        while text.ends_with('\n') {
            text.pop();
        }
    }
    Some(text)
}

/// `diag_print_insn_context`.
fn diag_print_insn_context(out: &mut dyn DiagOut, insn_idx: usize) {
    let last = out.diag_prog_len().saturating_sub(1);
    let width = last.to_string().len();
    let lines: Vec<(i64, Option<String>)> = (-CONTEXT..=CONTEXT)
        .map(|row| {
            let i = insn_idx as i64 + row;
            (i, format_disasm_line(out, i))
        })
        .collect();
    diag_write(out, "  Instruction context:\n");
    for (i, text) in lines {
        if let Some(text) = text {
            let mark = if i == insn_idx as i64 { ">>> " } else { "    " };
            diag_write(out, &format!("  {mark}{i:>width$} | {text}\n"));
        }
    }
}

/// `diag_line_width`: digits of a line number.
fn diag_line_width(line: u32) -> usize {
    line.to_string().len()
}

/// `round_up` to a tab stop.
fn next_tab_stop(col: usize) -> usize {
    (col + 1).div_ceil(TAB_WIDTH) * TAB_WIDTH
}

/// `diag_line_indent`: the columns of the line's leading blanks.
fn diag_line_indent(line: &str) -> usize {
    let mut indent = 0;
    for b in line.bytes() {
        match b {
            b' ' => indent += 1,
            b'\t' => indent = next_tab_stop(indent),
            _ => break,
        }
    }
    indent
}

/// `diag_format_source_text`: the line in `width` columns with tabs
/// expanded, cut with "..." when longer ("..." for a missing line).
fn diag_format_source_text(line: Option<&str>, width: i64) -> Vec<u8> {
    let mut buf = Vec::new();
    if width <= 0 {
        return buf;
    }
    let width = width as usize;
    let size = FMT_BUF_SIZE;
    let line = line.unwrap_or("...").as_bytes();
    let mut p = 0;
    let mut col = 0;
    while p < line.len() && col < width && buf.len() + 1 < size {
        if line[p] == b'\t' {
            let next = next_tab_stop(col);
            while col < next && col < width && buf.len() + 1 < size {
                buf.push(b' ');
                col += 1;
            }
        } else {
            buf.push(line[p]);
            col += 1;
        }
        p += 1;
    }
    if p < line.len() {
        let mut ellipsis = width.min(3);
        while !buf.is_empty() && col > width - ellipsis {
            buf.pop();
            col -= 1;
        }
        while ellipsis > 0 && buf.len() + 1 < size {
            buf.push(b'.');
            ellipsis -= 1;
        }
    }
    buf
}

/// `diag_format_source_lane`: `<prefix><n> | <text>` in the lane's
/// width; empty for a line number below 1.
fn diag_format_source_lane(prefix: &str, line_width: usize, line_num: i64, line: Option<&str>) -> String {
    if line_num <= 0 {
        return String::new();
    }
    let head = format!("{prefix}{line_num:>line_width$} | ");
    let text = diag_format_source_text(line, SOURCE_LANE_WIDTH as i64 - head.len() as i64);
    // the kernel's buffer holds 255 bytes
    let mut out = head.into_bytes();
    out.extend_from_slice(&text);
    out.truncate(FMT_BUF_SIZE - 1);
    String::from_utf8_lossy(&out).into_owned()
}

/// `bpf_diag_source`: where the insn is (its source line and the lines
/// around it from the subprogram's `line_info`, or just its index), the
/// annotation, and the insns around it.
fn bpf_diag_source(out: &mut dyn DiagOut, insn_idx: usize, label: &str, msg: &str) {
    if !bpf_diag_enabled(out) {
        return;
    }
    let (linfo, btf) = out.diag_linfo();
    let found = btf.zip(bpf_find_linfo(linfo, out.diag_prog_len(), insn_idx)).map(|(b, i)| (b, bpf_get_linfo_source(b, &linfo[i])));
    let Some((btf, src)) = found.filter(|(_, s)| s.file.is_some_and(|f| !f.is_empty())) else {
        diag_write(out, &format!("  insn {insn_idx}\n"));
        diag_print_source_annotation(out, 0, 0, label, msg);
        diag_print_insn_context(out, insn_idx);
        return;
    };
    let subprog = out.diag_subprog(insn_idx);
    let file = src.file.unwrap_or("");
    let head = match subprog.as_ref().map(|s| s.2.as_str()).filter(|f| !f.is_empty()) {
        Some(func) => format!("  {func} @ {file}:{}:{}\n", src.line_num, src.line_col),
        None => format!("  {file}:{}:{}\n", src.line_num, src.line_col),
    };
    let Some(line) = src.line.filter(|l| !l.is_empty()) else {
        diag_write(out, &head);
        diag_print_source_annotation(out, 0, 0, label, msg);
        diag_print_insn_context(out, insn_idx);
        return;
    };
    let line_num = src.line_num as i64;
    let start_line = line_num - CONTEXT;
    let end_line = line_num + CONTEXT;
    let width = diag_line_width(end_line as u32);
    let indent = diag_line_indent(line);
    let mut rows: Vec<(i64, Option<String>)> = (start_line..=end_line).map(|n| (n, None)).collect();
    // the records of the subprogram holding the insn, or all of them
    let (lo, hi) = subprog.as_ref().map_or((0, usize::MAX), |s| (s.0, s.1));
    for r in linfo.iter().filter(|r| (lo..hi).contains(&(r.insn_off as usize))) {
        let s = bpf_get_linfo_source(btf, r);
        let n = s.line_num as i64;
        if s.file_name_off != src.file_name_off || n < start_line || n > end_line {
            continue;
        }
        let Some(l) = s.line.filter(|l| !l.is_empty()) else {
            continue;
        };
        let row = &mut rows[(n - start_line) as usize];
        if row.1.is_none() {
            row.1 = Some(l.to_string());
        }
    }
    diag_write(out, &head);
    diag_write(out, "  Source context:\n");
    for (n, l) in rows {
        let prefix = if n == line_num { ">>> " } else { "    " };
        let lane = diag_format_source_lane(prefix, width, n, l.as_deref());
        diag_write(out, &format!("  {lane}\n"));
        if n == line_num {
            diag_print_source_annotation(out, width, indent, label, msg);
        }
    }
    diag_print_insn_context(out, insn_idx);
}

/// `bpf_diag_program_structure`.
pub fn bpf_diag_program_structure(out: &mut dyn DiagOut, insn_idx: usize, problem: &str, suggestion: &str, reason: &str) {
    if !bpf_diag_enabled(out) {
        return;
    }
    bpf_diag_header(out, PROGRAM_STRUCTURE, problem);
    diag_section(out, "Reason");
    diag_print_indented(out, reason);
    diag_section(out, "At");
    bpf_diag_source(out, insn_idx, "error", problem);
    diag_suggestion(out, suggestion);
}

/// `bpf_diag_policy`.
pub fn bpf_diag_policy(out: &mut dyn DiagOut, insn_idx: usize, operation: &str, reason: &str, suggestion: &str) {
    if !bpf_diag_enabled(out) {
        return;
    }
    bpf_diag_header(out, POLICY, "operation is not allowed");
    diag_reason(out, &format!("The {operation} is not allowed: {reason}."));
    diag_section(out, "At");
    bpf_diag_source(out, insn_idx, "error", &format!("policy check failed for {operation}"));
    diag_suggestion(out, suggestion);
}

/// `bpf_diag_memory`.
pub fn bpf_diag_memory(out: &mut dyn DiagOut, insn_idx: usize, problem: &str, reason: &str, suggestion: &str) {
    if !bpf_diag_enabled(out) {
        return;
    }
    bpf_diag_header(out, MEMORY_SAFETY, problem);
    diag_reason(out, reason);
    diag_section(out, "At");
    bpf_diag_source(out, insn_idx, "error", problem);
    diag_suggestion(out, suggestion);
}

/// `bpf_diag_reg_type_plain`: a register type in words.
pub fn bpf_diag_reg_type_plain(t: RegType) -> String {
    let s = match base_type(t) {
        NOT_INIT => "an uninitialized value",
        SCALAR_VALUE => "an integer scalar",
        PTR_TO_CTX => "a context pointer",
        PTR_TO_STACK => "a stack pointer",
        PTR_TO_MAP_VALUE if type_may_be_null(t) => "a nullable map value pointer",
        PTR_TO_MAP_VALUE => "a map value pointer",
        PTR_TO_MEM if type_may_be_null(t) => "a nullable memory pointer",
        PTR_TO_MEM => "a memory pointer",
        PTR_TO_BTF_ID if type_may_be_null(t) => "a nullable kernel object pointer",
        PTR_TO_BTF_ID if super::graph::type_is_non_owning_ref(t) => "a borrowed allocated object pointer",
        PTR_TO_BTF_ID if super::graph::type_is_ptr_alloc_obj(t) => "an owned allocated object pointer",
        PTR_TO_BTF_ID if t & PTR_UNTRUSTED != 0 => "an untrusted kernel object pointer",
        PTR_TO_BTF_ID => "a kernel object pointer",
        _ => return reg_type_str(t),
    };
    s.to_string()
}

// ------------------------------------------------------------ event log

/// `enum bpf_diag_mod_reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModReason {
    Write,
    Spill,
    VarWrite,
    RefRelease,
    PktDataChange,
    NonOwnRef,
    CallerSaved,
}

/// What a change touched (`struct bpf_diag_mod_target`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Reg(u8),
    StackArg(u8),
    StackSlot(u16),
    /// `[min_off, max_off)` of a variable-offset stack write.
    StackRange(i16, i16),
}

/// `struct bpf_diag_mod_target`: a place in one frame instance
/// (`frame_id` tells apart frames that reused a frame number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub frame_id: u32,
    pub frameno: u8,
    pub kind: TargetKind,
}

/// `struct bpf_diag_reg_snapshot`: what a report says about a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    typ: RegType,
    /// The map (`aux`) for map pointer types, the struct for
    /// `PTR_TO_BTF_ID`, 0 for others: with `typ` it says all an `Option`
    /// would, in half the room.
    map_aux: i64,
    var_off: Tnum,
    r64: Cnum64,
}

impl Snapshot {
    /// The zeroed snapshot of a missing value.
    const NONE: Snapshot = Snapshot { typ: NOT_INIT, map_aux: 0, var_off: Tnum { value: 0, mask: 0 }, r64: Cnum64 { base: 0, size: 0 } };

    /// `diag_snapshot_reg`.
    fn of(reg: &RegState) -> Snapshot {
        let aux = if type_is_map_ptr(reg.typ) || base_type(reg.typ) == PTR_TO_BTF_ID { reg.aux } else { 0 };
        Snapshot { typ: reg.typ, map_aux: aux, var_off: reg.s.var_off, r64: reg.s.r64 }
    }

    /// The map, for map pointer types.
    fn map(&self) -> Option<i64> {
        type_is_map_ptr(self.typ).then_some(self.map_aux)
    }

    /// `diag_snapshot_unknown`.
    fn unknown(&self) -> bool {
        tnum_is_unknown(self.var_off) && cnum64_unknown(self.r64)
    }
}

/// `diag_cnum64_unknown`.
fn cnum64_unknown(r: Cnum64) -> bool {
    r.smin() == i64::MIN && r.smax() == i64::MAX && r.umin() == 0 && r.umax() == u64::MAX
}

/// `enum bpf_diag_context_kind`: the regions that constrain what a path
/// may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CtxKind {
    /// Not in any region: the program itself is non-sleepable.
    None,
    Rcu,
    Preempt,
    Irq,
    Lock,
}

impl CtxKind {
    /// `diag_context_name`.
    fn name(self) -> &'static str {
        match self {
            CtxKind::Rcu => "RCU read lock region",
            CtxKind::Preempt => "non-preemptible region",
            CtxKind::Irq => "IRQ-disabled region",
            CtxKind::Lock => "lock region",
            CtxKind::None => "non-sleepable program",
        }
    }

    /// `diag_context_constraint`.
    fn constraint(self) -> Option<&'static str> {
        Some(match self {
            CtxKind::Rcu => "RCU read-side critical sections cannot call operations that may sleep",
            CtxKind::Preempt => "preemption-disabled code cannot call operations that may sleep",
            CtxKind::Irq => "IRQ-disabled code cannot call operations that may sleep",
            CtxKind::Lock => "code holding a BPF spin lock cannot call operations that may sleep",
            CtxKind::None => return None,
        })
    }
}

#[derive(Clone, Copy, Debug)]
enum EventKind {
    Branch {
        cond_true: bool,
    },
    Mod {
        target: Target,
        origin: Option<Target>,
        old: Snapshot,
        new: Snapshot,
        reason: ModReason,
    },
    /// A reference acquired or released (`BPF_DIAG_HISTORY_REF_*`).
    Ref {
        acquire: bool,
        ref_id: u32,
    },
    /// A region entered or left, and its depth after.
    Context {
        kind: CtxKind,
        enter: bool,
        depth: u32,
    },
}

/// `struct bpf_diag_history_event` (a report marks its lineage apart,
/// and insn indexes fit 32 bits: a path can hold 400k of these).
#[derive(Clone, Copy, Debug)]
struct Event {
    insn_idx: u32,
    kind: EventKind,
}

/// `struct bpf_diag_mod_scope`: a change in progress.
#[derive(Clone, Copy, Debug)]
struct ModScope {
    old: Snapshot,
    target: Target,
    origin: Option<Target>,
    reason: ModReason,
    insn_idx: usize,
}

/// `struct bpf_diag`: the main pass's event log (`env->diag`, present when
/// the log level asks for diagnostics).
#[derive(Clone, Debug, Default)]
pub struct BpfDiag {
    /// The retained events of the current path, oldest first.
    events: VecDeque<Event>,
    /// How many events of this path were pushed out before `events[0]`
    /// (which makes it `events[0]`'s index in the path's full history).
    first_seq: u64,
    scope: Option<ModScope>,
    frame_id_gen: u32,
}

impl BpfDiag {
    /// `diag_append_history`.
    fn append(&mut self, e: Event) {
        let len = self.events.len();
        if len >= EVENT_LOG_MAX {
            self.events.pop_front();
            self.first_seq += 1;
        } else if len == self.events.capacity() && len >= EVENT_LOG_GROW_TO_MAX {
            // a path this long is likely to reach the cap: grow there at
            // once rather than through more doublings, each a copy of the
            // whole queue into freshly faulted pages
            self.events.reserve_exact(EVENT_LOG_MAX - len);
        }
        self.events.push_back(e);
    }

    /// `bpf_diag_event_log_save`.
    pub fn save(&self) -> u64 {
        self.first_seq + self.events.len() as u64
    }

    /// `bpf_diag_event_log_restore`: back to the log as it was at `pos`.
    pub fn restore(&mut self, pos: u64) {
        let pos = pos.min(self.save());
        if pos <= self.first_seq {
            // a long path, since given up, pushed out everything up to
            // `pos`: start empty and count all of it as dropped
            self.first_seq = pos;
            self.events.clear();
            return;
        }
        self.events.truncate((pos - self.first_seq) as usize);
    }

    /// `bpf_diag_init_frame`: a new frame's identity.
    pub fn new_frame_id(&mut self) -> u32 {
        self.frame_id_gen += 1;
        self.frame_id_gen
    }
}

/// `diag_target_matches`: a variable-offset write range matches the slots
/// it overlaps.
fn diag_target_matches(ev: &Target, t: &Target) -> bool {
    if ev.frame_id != t.frame_id || ev.frameno != t.frameno {
        return false;
    }
    match (ev.kind, t.kind) {
        (TargetKind::StackRange(min, max), TargetKind::StackSlot(spi)) => {
            let slot_off = -(spi as i32 + 1) * BPF_REG_SIZE as i32;
            (min as i32) < slot_off + BPF_REG_SIZE as i32 && (max as i32) > slot_off
        }
        (TargetKind::Reg(a), TargetKind::Reg(b)) => a == b,
        (TargetKind::StackArg(a), TargetKind::StackArg(b)) => a == b,
        (TargetKind::StackSlot(a), TargetKind::StackSlot(b)) => a == b,
        _ => false,
    }
}

/// `diag_mod_keeps_lineage`: an ALU op that updates a register in place
/// keeps following the same register back.
fn diag_mod_keeps_lineage(insn: Option<Insn>, target: &Target, reason: ModReason) -> bool {
    if reason != ModReason::Write || !matches!(target.kind, TargetKind::Reg(_)) {
        return false;
    }
    let Some(insn) = insn else { return false };
    if !matches!(insn.class(), BPF_ALU | BPF_ALU64) {
        return false;
    }
    matches!(op(insn.code), BPF_ADD | BPF_SUB | BPF_MUL | BPF_OR | BPF_AND | BPF_LSH | BPF_RSH | BPF_ARSH | BPF_XOR | BPF_NEG | BPF_END)
}

/// `diag_s64_str`.
fn s64_str(v: i64) -> String {
    match v {
        i64::MIN => "S64_MIN".into(),
        i64::MAX => "S64_MAX".into(),
        _ => v.to_string(),
    }
}

/// `diag_u64_str`.
fn u64_str(v: u64) -> String {
    if v == u64::MAX { "U64_MAX".into() } else { v.to_string() }
}

/// `diag_scalar_range`.
fn diag_scalar_range(r: Cnum64) -> String {
    format!("signed range [{}, {}], unsigned range [{}, {}]", s64_str(r.smin()), s64_str(r.smax()), u64_str(r.umin()), u64_str(r.umax()))
}

/// `bpf_diag_fmt_s64_sum`: `value + addend`, or why it overflows.
pub fn bpf_diag_fmt_s64_sum(value: i64, addend: i32) -> String {
    match value.checked_add(addend as i64) {
        Some(s) => s.to_string(),
        None => format!("{value} plus {addend} ({})", if addend < 0 { "below S64_MIN" } else { "above S64_MAX" }),
    }
}

/// `diag_access_offset`.
fn diag_access_offset(off: i32, s: &Scalar) -> String {
    if tnum_is_const(s.var_off) {
        return format!("constant {}", bpf_diag_fmt_s64_sum(s.var_off.value as i64, off));
    }
    if tnum_is_unknown(s.var_off) && cnum64_unknown(s.r64) {
        return "unbounded".into();
    }
    if off != 0 {
        format!("variable: known bits {:#x}, unknown mask {:#x}, plus fixed offset {off}; {}", s.var_off.value, s.var_off.mask, diag_scalar_range(s.r64))
    } else {
        format!("variable: known bits {:#x}, unknown mask {:#x}; {}", s.var_off.value, s.var_off.mask, diag_scalar_range(s.r64))
    }
}

/// `diag_var_offset`.
fn diag_var_offset(s: &Snapshot) -> String {
    if tnum_is_const(s.var_off) {
        return format!("at offset {}", s.var_off.value as i64);
    }
    if s.unknown() {
        return "with unknown offset".into();
    }
    format!("with variable offset: known bits {:#x}, unknown mask {:#x}, {}", s.var_off.value, s.var_off.mask, diag_scalar_range(s.r64))
}

/// `diag_mod_target_desc`.
fn diag_mod_target_desc(t: &Target) -> String {
    match t.kind {
        TargetKind::Reg(r) => format!("R{r}"),
        TargetKind::StackArg(s) => format!("*(R11-{})", (s as usize + 1) * BPF_REG_SIZE),
        TargetKind::StackSlot(spi) => format!("stack slot fp{}", -(spi as i64 + 1) * BPF_REG_SIZE as i64),
        TargetKind::StackRange(..) => "value".into(),
    }
}

/// What a history report follows (`struct bpf_diag_history_opts`, the
/// register and stack-argument scopes).
#[derive(Clone, Copy, Debug)]
enum Scope {
    Reg(u8),
    /// A region kind and the path's depth in it.
    Context(CtxKind, u32),
    /// A reference by id.
    Ref(u32),
}

// ------------------------------------------------------------ main pass

impl DiagOut for Env<'_, '_> {
    fn diag_level(&self) -> u32 {
        self.log.level()
    }
    fn diag_write(&mut self, s: &str) {
        self.log.vlog(s);
    }
    fn diag_prog_len(&self) -> usize {
        self.input.insns.len()
    }
    fn diag_insn(&self, idx: usize) -> Option<Insn> {
        self.input.insns.get(idx).copied()
    }
    fn diag_disasm(&self, idx: usize) -> String {
        self.insn_text(idx)
    }
    fn diag_linfo(&self) -> (&[BpfLineInfo], Option<&Btf>) {
        (self.input.linfo, self.input.prog_btf)
    }
    fn diag_subprog(&self, idx: usize) -> Option<(usize, usize, String)> {
        let len = self.input.insns.len();
        if idx >= len {
            return None;
        }
        let subs = self.input.subprogs;
        if subs.is_empty() {
            return Some((0, len, String::new()));
        }
        let n = subs.partition_point(|s| s.start <= idx).max(1) - 1;
        let end = subs.get(n + 1).map_or(len, |s| s.start);
        Some((subs[n].start, end, subs[n].name.clone()))
    }
}

impl Env<'_, '_> {
    /// A register of frame `frameno` as a change target.
    pub(crate) fn diag_reg_target(&self, frameno: usize, regno: usize) -> Target {
        let frame_id = self.cur.frame.get(frameno).map_or(0, |f| f.diag_frame_id);
        Target { frame_id, frameno: frameno as u8, kind: TargetKind::Reg(regno as u8) }
    }

    /// A stack slot of frame `frameno` as a change target.
    pub(crate) fn diag_slot_target(&self, frameno: usize, spi: usize) -> Target {
        let frame_id = self.cur.frame.get(frameno).map_or(0, |f| f.diag_frame_id);
        Target { frame_id, frameno: frameno as u8, kind: TargetKind::StackSlot(spi as u16) }
    }

    /// `target_to_reg`: the value a target names in the current state, if
    /// its frame is still the one the target was taken in.
    fn diag_target_to_reg(&self, t: &Target) -> Option<RegState> {
        let f = self.cur.frame.get(t.frameno as usize)?;
        if f.diag_frame_id != t.frame_id {
            return None;
        }
        match t.kind {
            TargetKind::Reg(r) => f.regs.get(r as usize).copied(),
            TargetKind::StackSlot(spi) => f.stack.get(spi as usize).map(|s| s.spilled_ptr),
            _ => None,
        }
    }

    /// `bpf_diag_mod_begin`: `target` is about to change (`origin`: where
    /// the new value comes from, if not what the insn implies).
    pub(crate) fn diag_mod_begin(&mut self, target: Target, origin: Option<Target>, reason: ModReason) {
        if self.diag.is_none() {
            return;
        }
        // only the snapshot is kept: it is all the event records
        let old = self.diag_target_to_reg(&target).map(|r| Snapshot::of(&r));
        let insn_idx = self.insn_idx;
        if let Some(d) = self.diag.as_mut() {
            d.scope = old.map(|old| ModScope { old, target, origin, reason, insn_idx });
        }
    }

    /// `bpf_diag_mod_end`: record the change begun by [`Self::diag_mod_begin`].
    pub(crate) fn diag_mod_end(&mut self) {
        let Some(scope) = self.diag.as_mut().and_then(|d| d.scope.take()) else { return };
        let Some(new) = self.diag_target_to_reg(&scope.target) else { return };
        self.diag_record_mod(scope.insn_idx, scope.target, scope.reason, Some(scope.old), Some(Snapshot::of(&new)), scope.origin);
    }

    /// `bpf_diag_record_scrub`: a value destroyed (not when already unset).
    pub(crate) fn diag_record_scrub(&mut self, target: Target, reason: ModReason) {
        if self.diag.is_none() {
            return;
        }
        let Some(old) = self.diag_target_to_reg(&target) else { return };
        if old.typ == NOT_INIT {
            return;
        }
        self.diag_record_mod(self.insn_idx, target, reason, Some(Snapshot::of(&old)), None, None);
    }

    /// `bpf_diag_record_scrub_stack`: a variable-offset write to
    /// `[min_off, max_off)` of frame `frameno`.
    pub(crate) fn diag_record_scrub_stack(&mut self, frameno: usize, min_off: i64, max_off: i64, reason: ModReason) {
        if self.diag.is_none() {
            return;
        }
        let frame_id = self.cur.frame.get(frameno).map_or(0, |f| f.diag_frame_id);
        let t = Target { frame_id, frameno: frameno as u8, kind: TargetKind::StackRange(min_off as i16, max_off as i16) };
        self.diag_record_mod(self.insn_idx, t, reason, None, None, None);
    }

    /// `bpf_diag_record_caller_saved`: R1-R5 are lost to a call.
    pub(crate) fn bpf_diag_record_caller_saved(&mut self) {
        let f = self.cur.curframe();
        for r in 1..=5 {
            let t = self.diag_reg_target(f, r);
            self.diag_record_scrub(t, ModReason::CallerSaved);
        }
    }

    /// `bpf_diag_record_branch`.
    pub(crate) fn diag_record_branch(&mut self, insn_idx: usize, cond_true: bool) {
        if let Some(d) = self.diag.as_mut() {
            d.append(Event { insn_idx: insn_idx as u32, kind: EventKind::Branch { cond_true } });
        }
    }

    /// `diag_mod_insn_origin`: a move's source register, a store's stored
    /// register.
    fn diag_mod_insn_origin(&self, insn_idx: usize, target: &Target) -> Option<Target> {
        let insn = self.input.insns.get(insn_idx)?;
        let class = insn.class();
        if matches!(target.kind, TargetKind::Reg(_)) && matches!(class, BPF_ALU | BPF_ALU64) && op(insn.code) == BPF_MOV && src(insn.code) == BPF_X {
            return Some(Target { kind: TargetKind::Reg(insn.src), ..*target });
        }
        if !matches!(target.kind, TargetKind::StackArg(_) | TargetKind::StackSlot(_)) || class != BPF_STX {
            return None;
        }
        let f = self.cur.curframe();
        Some(self.diag_reg_target(f, insn.src as usize))
    }

    /// `diag_record_mod`: an in-place update that changed nothing is left
    /// out.
    fn diag_record_mod(&mut self, insn_idx: usize, target: Target, reason: ModReason, old: Option<Snapshot>, new: Option<Snapshot>, origin: Option<Target>) {
        let old_s = old.unwrap_or(Snapshot::NONE);
        let new_s = new.unwrap_or(Snapshot::NONE);
        let origin = origin.or_else(|| self.diag_mod_insn_origin(insn_idx, &target));
        if old.is_some()
            && new.is_some()
            && matches!(reason, ModReason::Write | ModReason::Spill)
            && old_s == new_s
            && origin.is_none()
            && diag_mod_keeps_lineage(self.input.insns.get(insn_idx).copied(), &target, reason)
        {
            return;
        }
        if let Some(d) = self.diag.as_mut() {
            d.append(Event { insn_idx: insn_idx as u32, kind: EventKind::Mod { target, origin, old: old_s, new: new_s, reason } });
        }
    }

    /// `bpf_diag_event_log_save`.
    pub(crate) fn diag_log_save(&self) -> u64 {
        self.diag.as_ref().map_or(0, BpfDiag::save)
    }

    /// `bpf_diag_event_log_restore`.
    pub(crate) fn diag_log_restore(&mut self, pos: u64) {
        if let Some(d) = self.diag.as_mut() {
            d.restore(pos);
        }
    }

    /// `diag_reg_snapshot`: a value in words.
    fn diag_reg_snapshot(&self, s: &Snapshot) -> String {
        let offset = diag_var_offset(s);
        let map_name = s.map().and_then(|m| usize::try_from(m).ok()).and_then(|m| self.maps.get(m)).map(|m| m.name.as_str()).filter(|n| !n.is_empty());
        match base_type(s.typ) {
            _ if s.typ == SCALAR_VALUE => {
                if tnum_is_const(s.var_off) {
                    format!("integer scalar value {}", s.var_off.value as i64)
                } else if s.unknown() {
                    "integer scalar with unknown value".into()
                } else if s.r64.is_const() {
                    format!("integer scalar value {}", s.r64.smin())
                } else {
                    format!("integer scalar with {}", diag_scalar_range(s.r64))
                }
            }
            _ if s.typ == NOT_INIT => "uninitialized value".into(),
            PTR_TO_CTX => format!("context pointer {offset}"),
            PTR_TO_STACK => format!("stack pointer {offset}"),
            PTR_TO_MAP_VALUE => {
                let kind = if type_may_be_null(s.typ) { "nullable map value" } else { "map value" };
                match map_name {
                    Some(n) => format!("{kind} from {n} {offset}"),
                    None => format!("{kind} {offset}"),
                }
            }
            CONST_PTR_TO_MAP => match map_name {
                Some(n) => format!("map pointer for map {n}"),
                None => "map pointer".into(),
            },
            // the program's own objects, owned or borrowed, with their
            // struct's bpf_diag_fmt_btf_type
            PTR_TO_BTF_ID if super::graph::type_is_ptr_alloc_obj(s.typ) => {
                let kind = if super::graph::type_is_non_owning_ref(s.typ) { "borrowed" } else { "owned" };
                match super::kfuncs::btf_type_name(s.map_aux) {
                    "" => format!("{kind} allocated object pointer"),
                    name => format!("{kind} allocated object pointer type=(struct {name})"),
                }
            }
            PTR_TO_BTF_ID if !super::kfuncs::btf_type_name(s.map_aux).is_empty() => {
                format!("{} type=(struct {}) {offset}", reg_type_str(s.typ), super::kfuncs::btf_type_name(s.map_aux))
            }
            _ => format!("{} {offset}", reg_type_str(s.typ)),
        }
    }

    /// `diag_print_mod`.
    fn diag_print_mod(&mut self, insn_idx: usize, target: &Target, reason: ModReason, old: &Snapshot, new: &Snapshot) {
        if let TargetKind::StackRange(min, max) = target.kind {
            let msg = format!("variable-offset stack write may affect bytes fp{min} through fp{}", max as i32 - 1);
            bpf_diag_source(self, insn_idx, "invalidated", &msg);
            return;
        }
        let old_s = self.diag_reg_snapshot(old);
        let new_s = self.diag_reg_snapshot(new);
        let desc = diag_mod_target_desc(target);
        let is_reg = matches!(target.kind, TargetKind::Reg(_));
        let mut label = "update";
        let why = match reason {
            ModReason::RefRelease => Some(if is_reg { "resource release invalidated this pointer" } else { "resource release invalidated this value" }),
            ModReason::PktDataChange => Some("packet data may have moved"),
            ModReason::NonOwnRef => Some("leaving the protected region invalidated this borrowed pointer"),
            ModReason::CallerSaved => Some(if matches!(target.kind, TargetKind::StackArg(_)) {
                "call invalidated this outgoing stack argument"
            } else {
                "call invalidated this caller-saved register"
            }),
            ModReason::Write if matches!(target.kind, TargetKind::StackSlot(_)) => Some("a later stack write overwrote this spilled value"),
            ModReason::Spill => {
                label = "spilled";
                None
            }
            _ => None,
        };
        if let Some(why) = why {
            bpf_diag_source(self, insn_idx, "invalidated", &format!("{desc}: {why}; previous value was {old_s}"));
            return;
        }
        bpf_diag_source(self, insn_idx, label, &format!("{desc} changed from {old_s} to {new_s}"));
    }

    /// `diag_print_history`: the "Causal path" section: a register's
    /// lineage, a region's entries and exits, or a reference's life.
    fn diag_print_history(&mut self, scope: Scope) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let Some(d) = self.diag.take() else { return };
        // diag_build_lineage
        let mut in_lineage = vec![false; d.events.len()];
        let f = self.cur.curframe();
        let mut lineage_start = None;
        if let Scope::Reg(regno) = scope {
            let mut target = self.diag_reg_target(f, regno as usize);
            for i in (0..d.events.len()).rev() {
                let e = &d.events[i];
                let EventKind::Mod { target: et, origin, reason, .. } = e.kind else { continue };
                if !diag_target_matches(&et, &target) {
                    continue;
                }
                in_lineage[i] = true;
                lineage_start = Some(i);
                if let Some(o) = origin {
                    target = o;
                    continue;
                }
                if !matches!(reason, ModReason::Write | ModReason::Spill) {
                    continue;
                }
                if diag_mod_keeps_lineage(self.input.insns.get(e.insn_idx as usize).copied(), &et, reason) {
                    continue;
                }
                break;
            }
        }
        // diag_history_start_idx
        let start = match scope {
            Scope::Context(kind, depth) if depth != 0 => {
                // scan backwards for the newest entry at depth 1 into this
                // kind of region; meeting an exit that brought the depth to
                // 0 first means starting from index 0
                let mut at = 0;
                for i in (0..d.events.len()).rev() {
                    let EventKind::Context { kind: k, enter, depth } = d.events[i].kind else { continue };
                    if k != kind {
                        continue;
                    }
                    if enter && depth == 1 {
                        at = i;
                        break;
                    }
                    if !enter && depth == 0 {
                        break;
                    }
                }
                at
            }
            Scope::Context(..) => 0,
            _ if lineage_start.is_some() => lineage_start.unwrap_or(0),
            Scope::Ref(id) => {
                (0..d.events.len()).rev().find(|&i| matches!(d.events[i].kind, EventKind::Ref { acquire: true, ref_id } if ref_id == id)).unwrap_or(0)
            }
            Scope::Reg(_) => 0,
        };
        let visible = |i: usize, e: &Event| match (e.kind, scope) {
            (EventKind::Branch { .. }, _) => true,
            (EventKind::Mod { .. }, _) => lineage_start.is_some() && in_lineage[i],
            (EventKind::Ref { ref_id, .. }, Scope::Ref(id)) => ref_id == id,
            (EventKind::Context { kind, .. }, Scope::Context(k, _)) => kind == k,
            _ => false,
        };
        let shown: Vec<Event> = d.events.iter().enumerate().skip(start).filter(|&(i, e)| visible(i, e)).map(|(_, e)| *e).collect();
        let first_seq = d.first_seq;
        self.diag = Some(d);

        diag_section(self, "Causal path");
        let cnt = shown.len();
        let half = HISTORY_RENDER_MAX / 2;
        let mut first = true;
        for (k, e) in shown.iter().enumerate() {
            if cnt > HISTORY_RENDER_MAX && k >= half && k < cnt - half {
                if k != half {
                    continue;
                }
                if !first {
                    diag_write(self, "\n");
                }
                first = false;
                diag_write(self, &format!("  {} intermediate causal-history events omitted\n", cnt - HISTORY_RENDER_MAX));
                continue;
            }
            if !first {
                diag_write(self, "\n");
            }
            first = false;
            match e.kind {
                EventKind::Branch { cond_true } => {
                    let msg = format!(
                        "took the {} branch of this conditional, goto {}",
                        if cond_true { "true" } else { "false" },
                        if cond_true { "followed" } else { "not followed" }
                    );
                    bpf_diag_source(self, e.insn_idx as usize, "branch", &msg);
                }
                EventKind::Mod { target, reason, old, new, .. } => self.diag_print_mod(e.insn_idx as usize, &target, reason, &old, &new),
                EventKind::Ref { acquire, ref_id } => {
                    let label = if acquire { "acquired" } else { "released" };
                    bpf_diag_source(self, e.insn_idx as usize, label, &format!("owned resource (id={ref_id})"));
                }
                EventKind::Context { kind, enter, depth } => {
                    let msg = format!("{} {}; depth is now {depth}", if enter { "entered" } else { "left" }, kind.name());
                    bpf_diag_source(self, e.insn_idx as usize, "context", &msg);
                }
            }
        }
        if cnt == 0 {
            diag_write(self, "  no retained diagnostic events on this path\n");
        }
        if first_seq != 0 {
            let s = if first_seq == 1 { "" } else { "s" };
            diag_write(self, &format!("  {first_seq} older causal-history event{s} not retained because diagnostic event storage reached capacity\n"));
        }
    }

    /// `bpf_diag_record_ref_acquire` / `_release`.
    pub(crate) fn diag_record_ref(&mut self, insn_idx: usize, acquire: bool, ref_id: u32) {
        if let Some(d) = self.diag.as_mut() {
            d.append(Event { insn_idx: insn_idx as u32, kind: EventKind::Ref { acquire, ref_id } });
        }
    }

    /// `bpf_diag_record_context`: one event per entry into or exit from a
    /// region. Exits are logged as well as entries because a report needs
    /// them to find where the path last left the region altogether.
    pub(crate) fn diag_record_context(&mut self, insn_idx: usize, kind: CtxKind, enter: bool, depth: u32) {
        if let Some(d) = self.diag.as_mut() {
            d.append(Event { insn_idx: insn_idx as u32, kind: EventKind::Context { kind, enter, depth } });
        }
    }

    /// `bpf_diag_call_type`: `argno` is 1-based (0: unknown), `regno` the
    /// register it is in.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bpf_diag_call_type(
        &mut self,
        insn_idx: usize,
        argno: usize,
        regno: Option<usize>,
        call_name: &str,
        arg_name: Option<&str>,
        reason: &str,
        suggestion: &str,
    ) {
        if !bpf_diag_enabled(self) {
            return;
        }
        const ORDINALS: [&str; 12] = ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "eleventh", "twelfth"];
        let ordinal = argno.checked_sub(1).and_then(|i| ORDINALS.get(i));
        let arg_desc = match (ordinal, arg_name) {
            (Some(o), Some(n)) => format!("{o} argument ({n})"),
            (Some(o), None) => format!("{o} argument"),
            (None, Some(n)) => format!("argument {n}"),
            (None, None) => "argument".into(),
        };
        bpf_diag_header(self, CALL_TYPE_SAFETY, "invalid call argument");
        diag_reason(self, &format!("The {arg_desc} to {call_name} does not satisfy the verifier contract: {reason}."));
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", &format!("invalid {arg_desc} for {call_name}"));
        if let Some(r) = regno {
            self.diag_print_history(Scope::Reg(r as u8));
        }
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_call_arg` for register argument `regno` (R1-R5) of the
    /// call at `insn_idx`.
    pub(crate) fn bpf_diag_call_arg(&mut self, insn_idx: usize, regno: usize, call_name: &str, reason: &str, suggestion: &str) {
        let name = if call_name.is_empty() { "call" } else { call_name };
        self.bpf_diag_call_type(insn_idx, regno, Some(regno), name, Some(&format!("R{regno}")), reason, suggestion);
    }

    /// `diag_context_depth`.
    fn diag_context_depth(&self, kind: CtxKind) -> u32 {
        match kind {
            CtxKind::Rcu => self.cur.active_rcu_locks,
            CtxKind::Preempt => self.cur.active_preempt_locks,
            CtxKind::Irq => self.cur.refs.iter().filter(|r| r.typ == super::state::REF_TYPE_IRQ).count() as u32,
            CtxKind::Lock => self.cur.active_locks,
            CtxKind::None => 0,
        }
    }

    /// `bpf_diag_ctx_forbidden`: an operation that may sleep, in a region
    /// that forbids it (or in a non-sleepable program).
    pub(crate) fn bpf_diag_ctx_forbidden(&mut self, insn_idx: usize, operation: &str, suggestion: &str) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let kind = if self.cur.active_rcu_locks != 0 {
            CtxKind::Rcu
        } else if self.cur.active_preempt_locks != 0 {
            CtxKind::Preempt
        } else if self.cur.active_irq_id != 0 {
            CtxKind::Irq
        } else if self.cur.active_locks != 0 {
            CtxKind::Lock
        } else {
            CtxKind::None
        };
        let depth = self.diag_context_depth(kind);
        let context = kind.name();
        bpf_diag_header(self, EXECUTION_CONTEXT_SAFETY, "operation is not allowed in this context");
        let reason = match kind.constraint() {
            Some(c) if depth != 0 => {
                format!("The operation {operation} cannot be used in {context} because {c}. This path is still inside {}.", diag_active_context(depth, context))
            }
            Some(c) => format!("The operation {operation} cannot be used in {context} because {c}."),
            None => format!("The operation {operation} cannot be used in {context}."),
        };
        diag_reason(self, &reason);
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", &format!("{operation} is not allowed in {context}"));
        if kind != CtxKind::None {
            self.diag_print_history(Scope::Context(kind, depth));
        }
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_ctx_active`: an operation that must not run inside a
    /// region.
    pub(crate) fn bpf_diag_ctx_active(&mut self, insn_idx: usize, operation: &str, kind: CtxKind, suggestion: &str) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let depth = self.diag_context_depth(kind);
        let context = kind.name();
        bpf_diag_header(self, EXECUTION_CONTEXT_SAFETY, "operation is not allowed in this context");
        diag_reason(
            self,
            &format!(
                "The operation {operation} cannot be used while this path is still inside {}. Leave the region before this operation.",
                diag_active_context(depth, context)
            ),
        );
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", &format!("{operation} is not allowed before leaving {context}"));
        self.diag_print_history(Scope::Context(kind, depth));
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_ctx_required`.
    pub(crate) fn bpf_diag_ctx_required(&mut self, insn_idx: usize, operation: &str, kind: CtxKind, suggestion: &str) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let context = kind.name();
        bpf_diag_header(self, EXECUTION_CONTEXT_SAFETY, "required context is not active");
        diag_reason(self, &format!("The operation {operation} requires an active {context}, but this path is outside one."));
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", &format!("{operation} requires {context}"));
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_ctx_underflow`: leaving a region the path is not in.
    pub(crate) fn bpf_diag_ctx_underflow(&mut self, insn_idx: usize, operation: &str, kind: CtxKind, suggestion: &str) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let context = kind.name();
        bpf_diag_header(self, EXECUTION_CONTEXT_SAFETY, "unmatched context exit");
        diag_reason(
            self,
            &format!("The operation {operation} tries to leave {context}, but this path has no active {context} to leave. The current depth is 0."),
        );
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", &format!("{operation} has no matching enter on this path"));
        self.diag_print_history(Scope::Context(kind, 0));
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_res`: a resource (dynptr, iterator, lock, IRQ flag) used
    /// against its lifetime.
    pub(crate) fn bpf_diag_res(&mut self, insn_idx: usize, problem: &str, reason: &str, suggestion: &str) {
        if !bpf_diag_enabled(self) {
            return;
        }
        bpf_diag_header(self, RESOURCE_LIFETIME_SAFETY, problem);
        diag_reason(self, reason);
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", problem);
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_irq`: an IRQ flag restored against the IRQ states held
    /// (`depth` of them).
    pub(crate) fn bpf_diag_irq(&mut self, insn_idx: usize, problem: &str, reason: &str, suggestion: &str, depth: u32) {
        if !bpf_diag_enabled(self) {
            return;
        }
        bpf_diag_header(self, RESOURCE_LIFETIME_SAFETY, problem);
        diag_reason(self, reason);
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", problem);
        if depth != 0 {
            self.diag_print_history(Scope::Context(CtxKind::Irq, depth));
        }
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_lock`: as [`Self::bpf_diag_res`], with the lock held
    /// (`(insn, id, kind name)`).
    pub(crate) fn bpf_diag_lock(&mut self, insn_idx: usize, problem: &str, reason: &str, suggestion: &str, active: Option<(usize, u32, &str)>) {
        if !bpf_diag_enabled(self) {
            return;
        }
        bpf_diag_header(self, RESOURCE_LIFETIME_SAFETY, problem);
        diag_reason(self, reason);
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", problem);
        if let Some((at, id, name)) = active {
            diag_section(self, "Active lock");
            bpf_diag_source(self, at, "acquired", &format!("active {name} has verifier identity {id}"));
        }
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_leak`: a reference still held at an exit.
    pub(crate) fn bpf_diag_leak(&mut self, ref_id: u32, alloc_insn: usize, fail_insn: usize) {
        if !bpf_diag_enabled(self) {
            return;
        }
        bpf_diag_header(self, RESOURCE_LIFETIME_SAFETY, "unreleased resource");
        diag_reason(
            self,
            &format!("Owned resource (id={ref_id}) was acquired at instruction {alloc_insn} and still needs to be released before this exit path."),
        );
        diag_section(self, "At");
        bpf_diag_source(self, fail_insn, "error", &format!("owned resource (id={ref_id}) still needs release"));
        self.diag_print_history(Scope::Ref(ref_id));
        diag_suggestion(self, "Release or transfer ownership of the acquired resource on every path before the program exits.");
    }

    /// `bpf_diag_register_type`.
    pub(crate) fn bpf_diag_register_type(&mut self, regno: usize, problem: &str, reason: &str, suggestion: &str) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let insn_idx = self.insn_idx;
        bpf_diag_header(self, REGISTER_TYPE_SAFETY, problem);
        diag_reason(self, reason);
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", problem);
        self.diag_print_history(Scope::Reg(regno as u8));
        diag_suggestion(self, suggestion);
    }

    /// `bpf_diag_unreadable_reg`.
    pub(crate) fn bpf_diag_unreadable_reg(&mut self, regno: usize) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let insn_idx = self.insn_idx;
        let f = self.cur.curframe();
        let target = self.diag_reg_target(f, regno);
        // the newest change of the register says whether it was invalidated
        let (invalidated, never) = match &self.diag {
            Some(d) => {
                let last = d.events.iter().rev().find_map(|e| match e.kind {
                    EventKind::Mod { target: t, new, .. } if diag_target_matches(&t, &target) => Some(new.typ == NOT_INIT),
                    _ => None,
                });
                (last.unwrap_or(false), d.first_seq == 0)
            }
            None => (false, false),
        };
        bpf_diag_header(self, REGISTER_TYPE_SAFETY, "unreadable register");
        if invalidated {
            diag_reason(
                self,
                &format!("R{regno} is not readable here. A previous operation invalidated this register, so the verifier cannot use it as an input."),
            );
        } else if never {
            diag_reason(self, &format!("R{regno} has never been initialized on this path, so the verifier cannot use it as an input."));
        } else {
            diag_reason(self, &format!("R{regno} is not readable here. It may never have been initialized, or an earlier operation may have invalidated it."));
        }
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", &format!("R{regno} is not readable"));
        self.diag_print_history(Scope::Reg(regno as u8));
        if invalidated {
            diag_suggestion(self, "Avoid using the register after it is invalidated, or initialize it again before this instruction.");
        } else if never {
            diag_suggestion(self, &format!("Initialize R{regno} on every path before this instruction."));
        } else {
            diag_suggestion(self, "Initialize the register on every path, or initialize it again after any operation that invalidates it.");
        }
    }

    /// `bpf_diag_invalid_deref`.
    pub(crate) fn bpf_diag_invalid_deref(&mut self, regno: usize, reg: &RegState, kind: DerefKind, offset: i64) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let insn_idx = self.insn_idx;
        let name = format!("R{regno}");
        let type_name = bpf_diag_reg_type_plain(reg.typ);
        bpf_diag_header(self, REGISTER_TYPE_SAFETY, "invalid dereference");
        let reason = match kind {
            DerefKind::Scalar => format!("{name} is an integer scalar here, not a pointer to memory."),
            DerefKind::NullablePtr => format!(
                "{name} may be NULL here ({type_name}). The program could dereference NULL on this path, so the verifier cannot prove this access is safe."
            ),
            DerefKind::ModifiedPtr => format!("{name} has offset {offset} here, but this pointer type must be dereferenced in its original form."),
            DerefKind::InvalidPtr => format!("{name} has type {type_name} here, which is not valid for this memory access."),
        };
        diag_reason(self, &reason);
        diag_section(self, "At");
        let msg = if kind == DerefKind::ModifiedPtr {
            format!("dereference requires the original {type_name} pointer")
        } else {
            format!("invalid dereference of {name} ({type_name})")
        };
        bpf_diag_source(self, insn_idx, "error", &msg);
        self.diag_print_history(Scope::Reg(regno as u8));
        diag_suggestion(
            self,
            match kind {
                DerefKind::NullablePtr => "Add a NULL check before the access and dereference the pointer only on the non-NULL path.",
                DerefKind::ModifiedPtr => {
                    "Preserve the original pointer in another register, or use only offsets this pointer type permits before dereferencing it."
                }
                _ => {
                    "Preserve a pointer-valued register where needed, or reload and revalidate the pointer after scalar arithmetic, helper calls, or other operations that can invalidate it."
                }
            },
        );
    }

    /// `bpf_diag_mem_bounds`: `off` is the access's fixed offset, `reg`
    /// the pointer with its variable part.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn bpf_diag_mem_bounds(&mut self, regno: usize, type_name: &str, proof: &str, off: i32, size: i32, mem_size: u32, reg: &RegState) {
        if !bpf_diag_enabled(self) {
            return;
        }
        let insn_idx = self.insn_idx;
        let offset = diag_access_offset(off, &reg.s);
        bpf_diag_header(self, MEMORY_SAFETY, "access outside bounds");
        let reason = format!(
            "The verifier cannot prove offset + access_size <= object_size. Here, {proof}. R{regno} is {type_name}; offset is {offset}; access_size is {size}; object_size is {mem_size}."
        );
        diag_reason(self, &reason);
        diag_section(self, "At");
        bpf_diag_source(self, insn_idx, "error", "access may be outside object bounds");
        self.diag_print_history(Scope::Reg(regno as u8));
        diag_suggestion(self, "Add or adjust a bounds check that proves offset + access_size stays within the object.");
    }
}

/// `enum bpf_diag_invalid_deref_kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DerefKind {
    Scalar,
    NullablePtr,
    ModifiedPtr,
    InvalidPtr,
}

/// `diag_active_context`.
fn diag_active_context(depth: u32, context: &str) -> String {
    if depth == 1 { format!("an active {context} (depth 1)") } else { format!("{depth} active {context}s (depth {depth})") }
}

/// `bpf_diag_expected_reg_types`: the accepted types, comma-separated.
pub fn bpf_diag_expected_reg_types(types: &[RegType]) -> String {
    types.iter().map(|&t| reg_type_str(t)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn event_log_restore_cuts_and_rotates() {
        let mut d = BpfDiag::default();
        let e = Event { insn_idx: 0, kind: EventKind::Branch { cond_true: true } };
        for _ in 0..5 {
            d.append(e);
        }
        let mark = d.save();
        d.append(e);
        d.restore(mark);
        assert_eq!(d.events.len(), 5);
        d.first_seq = 3;
        d.restore(2);
        assert_eq!((d.events.len(), d.first_seq), (0, 2));
    }

    #[test]
    fn sums_and_bounds_read_as_the_kernel_prints_them() {
        assert_eq!(bpf_diag_fmt_s64_sum(i64::MAX, 1), format!("{} plus 1 (above S64_MAX)", i64::MAX));
        assert_eq!(bpf_diag_fmt_s64_sum(-8, 4), "-4");
        let mut w = String::new();
        let _ = write!(w, "{:#x}", 0u64);
        assert_eq!(w, "0x0");
    }
}
