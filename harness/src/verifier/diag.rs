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
//! Suggestion:
//!   <text>
//!
//! ```
//!
//! Programs loaded here carry no `line_info`, so the source-lane form of
//! `bpf_diag_source` never applies. The front end needs the "Program
//! Structure" and "Policy" categories; the others come with the main pass.

use super::env::VerifierEnv;
use super::log::BPF_LOG_LEVEL;

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

/// `bpf_diag_enabled`: only levels 1 and 2 get diagnostics (not 4 alone).
pub fn bpf_diag_enabled(env: &VerifierEnv<'_>) -> bool {
    env.level() & BPF_LOG_LEVEL != 0
}

fn diag_write(env: &mut VerifierEnv<'_>, s: &str) {
    if bpf_diag_enabled(env) {
        env.verbose(s);
    }
}

/// `diag_print_wrapped_prefixed`: greedy wrap at spaces so that prefix and
/// text fit 100 columns; explicit newlines end a line; a word longer than
/// the line is cut.
fn diag_print_wrapped_prefixed(env: &mut VerifierEnv<'_>, first_prefix: &str, next_prefix: &str, text: &str) {
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
        diag_write(env, &format!("{prefix}{chunk}\n"));
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

fn diag_print_indented(env: &mut VerifierEnv<'_>, text: &str) {
    diag_print_wrapped_prefixed(env, TEXT_INDENT, TEXT_INDENT, text);
}

/// `bpf_diag_header`.
fn bpf_diag_header(env: &mut VerifierEnv<'_>, category: &str, problem: &str) {
    if problem.is_empty() {
        diag_write(env, &format!("\nVerification failed: {category}\n"));
        return;
    }
    let mut cs = problem.chars();
    let first = cs.next().map(|c| c.to_ascii_uppercase()).unwrap_or(' ');
    diag_write(env, &format!("\nVerification failed: {category}: {first}{}\n", cs.as_str()));
}

/// `diag_section`.
fn diag_section(env: &mut VerifierEnv<'_>, title: &str) {
    diag_write(env, &format!("\n{title}:\n"));
}

/// `diag_reason`.
fn diag_reason(env: &mut VerifierEnv<'_>, text: &str) {
    diag_section(env, "Reason");
    diag_print_indented(env, text);
}

/// `diag_suggestion`.
fn diag_suggestion(env: &mut VerifierEnv<'_>, text: &str) {
    diag_section(env, "Suggestion");
    diag_print_indented(env, text);
    diag_write(env, "\n");
}

/// `diag_print_source_annotation` without a source line (line width 0).
fn diag_print_source_annotation(env: &mut VerifierEnv<'_>, line_width: usize, indent: usize, label: &str, msg: &str) {
    let indent = indent.min(SOURCE_LANE_WIDTH.saturating_sub(line_width + 8));
    let text = format!("{label}: {msg}");
    let pad = " ".repeat(line_width + 4);
    let ind = " ".repeat(indent);
    let first = format!("  {pad} | {ind}^-- ");
    let next = format!("  {pad} | {ind}    ");
    diag_print_wrapped_prefixed(env, &first, &next, &text);
}

/// `format_disasm_line`: the insn's text, or `None` where the kernel shows
/// no line (outside the program, the second half of an `ld_imm64`, an
/// `ld_imm64` cut off by the end).
fn format_disasm_line(env: &VerifierEnv<'_>, idx: i64) -> Option<String> {
    let n = env.len() as i64;
    if idx < 0 || idx >= n {
        return None;
    }
    let i = idx as usize;
    if i > 0 && env.insns[i - 1].is_ld_imm64() {
        return None;
    }
    if env.insns[i].is_ld_imm64() && i + 1 >= env.len() {
        return None;
    }
    // disasm.c text with pointers as root sees them (diag passes
    // env->allow_ptr_leaks, same as the log)
    Some(env.insn_text(i).trim_end_matches('\n').to_string())
}

/// `diag_print_insn_context`.
fn diag_print_insn_context(env: &mut VerifierEnv<'_>, insn_idx: usize) {
    let last = env.len().saturating_sub(1);
    let width = last.to_string().len();
    let lines: Vec<(i64, Option<String>)> = (-CONTEXT..=CONTEXT)
        .map(|row| {
            let i = insn_idx as i64 + row;
            (i, format_disasm_line(env, i))
        })
        .collect();
    diag_write(env, "  Instruction context:\n");
    for (i, text) in lines {
        if let Some(text) = text {
            let mark = if i == insn_idx as i64 { ">>> " } else { "    " };
            diag_write(env, &format!("  {mark}{i:>width$} | {text}\n"));
        }
    }
}

/// `bpf_diag_source` for a program without line info.
fn bpf_diag_source(env: &mut VerifierEnv<'_>, insn_idx: usize, label: &str, msg: &str) {
    diag_write(env, &format!("  insn {insn_idx}\n"));
    diag_print_source_annotation(env, 0, 0, label, msg);
    diag_print_insn_context(env, insn_idx);
}

/// `bpf_diag_program_structure`.
pub fn bpf_diag_program_structure(env: &mut VerifierEnv<'_>, insn_idx: usize, problem: &str, suggestion: &str, reason: &str) {
    if !bpf_diag_enabled(env) {
        return;
    }
    bpf_diag_header(env, PROGRAM_STRUCTURE, problem);
    diag_section(env, "Reason");
    diag_print_indented(env, reason);
    diag_section(env, "At");
    bpf_diag_source(env, insn_idx, "error", problem);
    diag_suggestion(env, suggestion);
}

/// `bpf_diag_policy`.
pub fn bpf_diag_policy(env: &mut VerifierEnv<'_>, insn_idx: usize, operation: &str, reason: &str, suggestion: &str) {
    if !bpf_diag_enabled(env) {
        return;
    }
    bpf_diag_header(env, POLICY, "operation is not allowed");
    diag_reason(env, &format!("The {operation} is not allowed: {reason}."));
    diag_section(env, "At");
    bpf_diag_source(env, insn_idx, "error", &format!("policy check failed for {operation}"));
    diag_suggestion(env, suggestion);
}
