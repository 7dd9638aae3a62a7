//! The `bpf_asm!(...)` body: kernel asm strings and their operands,
//! assembled at compile time.
//!
//! ```ignore
//! bpf_asm!(
//!     "r1 = %[map] ll;"
//!     "call %[bpf_map_lookup_elem];"
//!     ".8byte %[raw];",
//!     imm(bpf_map_lookup_elem),       // helper -> its id; other names are kfuncs or subprograms
//!     imm_addr(map),                  // a #[map] or #[global] (checked to exist)
//!     imm_const(off = 8 * 2),         // an integer constant expression
//!     imm_insn(raw = Insn::new(BPF_JMP | BPF_JCOND, 0, 0, 2, 0)),
//! )
//! ```
//!
//! `imm_const` values the macro can evaluate (integer literals combined with
//! `+ - * / % << >> & | ^ !`, parentheses and integer casts) are assembled
//! in; so is everything else. When an `imm_const` or `imm_insn` value needs
//! rustc (a `const`, `offset_of!`, `Insn::new(..)`), the text is still
//! assembled here with a placeholder 0 for it, so every syntax error is a
//! compile error, and the program is assembled again at first use with the
//! value rustc computed.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::parse::{Parse, ParseStream};
use syn::{Error, Expr, Ident, LitStr, Result, Token};

use crate::strlit;

pub enum OperandKind {
    /// `imm(name)`.
    Imm,
    /// `imm_addr(name)`.
    Addr,
    /// `imm_const(name = expr)`.
    Const(Expr),
    /// `imm_insn(name = expr)`.
    Insn(Expr),
}

pub struct AsmOperand {
    pub name: Ident,
    pub kind: OperandKind,
}

pub struct AsmBody {
    pub strings: Vec<LitStr>,
    pub operands: Vec<AsmOperand>,
}

impl Parse for AsmBody {
    fn parse(input: ParseStream) -> Result<Self> {
        let mut strings = Vec::new();
        while input.peek(LitStr) {
            strings.push(input.parse::<LitStr>()?);
        }
        if strings.is_empty() {
            return Err(input.error("bpf_asm! starts with the asm text: one or more string literals"));
        }
        let mut operands: Vec<AsmOperand> = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let kw: Ident = input.parse()?;
            let content;
            syn::parenthesized!(content in input);
            let name: Ident = content.parse()?;
            let kind = match kw.to_string().as_str() {
                "imm" => OperandKind::Imm,
                "imm_addr" => OperandKind::Addr,
                "imm_const" | "imm_insn" => {
                    content.parse::<Token![=]>().map_err(|e| Error::new(e.span(), format!("{kw}(name = value)")))?;
                    let e: Expr = content.parse()?;
                    if kw == "imm_const" { OperandKind::Const(e) } else { OperandKind::Insn(e) }
                }
                other => {
                    return Err(Error::new(kw.span(), format!("unknown bpf_asm! operand '{other}' (imm, imm_addr, imm_const, imm_insn)")));
                }
            };
            if !content.is_empty() {
                return Err(content.error(format!("{kw}() takes one operand")));
            }
            if operands.iter().any(|o| o.name == name) {
                return Err(Error::new(name.span(), format!("operand '{name}' is given twice")));
            }
            operands.push(AsmOperand { name, kind });
        }
        Ok(AsmBody { strings, operands })
    }
}

/// How deep `eval` looks into an expression; a deeper one is left to rustc.
const EVAL_DEPTH: usize = 256;

/// Evaluates an integer constant expression the macro can see through.
fn eval(e: &Expr) -> Option<i128> {
    eval_at(e, 0)
}

fn eval_at(e: &Expr, depth: usize) -> Option<i128> {
    use syn::{BinOp, UnOp};
    if depth > EVAL_DEPTH {
        return None;
    }
    let eval = |e: &Expr| eval_at(e, depth + 1);
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<i128>().ok(),
            _ => None,
        },
        Expr::Paren(p) => eval(&p.expr),
        Expr::Group(g) => eval(&g.expr),
        Expr::Unary(u) => {
            let v = eval(&u.expr)?;
            match u.op {
                UnOp::Neg(_) => v.checked_neg(),
                UnOp::Not(_) => Some(!v),
                _ => None,
            }
        }
        Expr::Binary(b) => {
            let (l, r) = (eval(&b.left)?, eval(&b.right)?);
            match b.op {
                BinOp::Add(_) => l.checked_add(r),
                BinOp::Sub(_) => l.checked_sub(r),
                BinOp::Mul(_) => l.checked_mul(r),
                BinOp::Div(_) => l.checked_div(r),
                BinOp::Rem(_) => l.checked_rem(r),
                BinOp::Shl(_) => u32::try_from(r).ok().filter(|&s| s < 64).and_then(|s| l.checked_shl(s)),
                BinOp::Shr(_) => u32::try_from(r).ok().filter(|&s| s < 64).and_then(|s| l.checked_shr(s)),
                BinOp::BitAnd(_) => Some(l & r),
                BinOp::BitOr(_) => Some(l | r),
                BinOp::BitXor(_) => Some(l ^ r),
                _ => None,
            }
        }
        Expr::Cast(c) => {
            let v = eval(&c.expr)?;
            let ty = c.ty.to_token_stream().to_string();
            Some(match ty.as_str() {
                "i8" => v as i8 as i128,
                "u8" => v as u8 as i128,
                "i16" => v as i16 as i128,
                "u16" => v as u16 as i128,
                "i32" => v as i32 as i128,
                "u32" => v as u32 as i128,
                "i64" | "isize" => v as i64 as i128,
                "u64" | "usize" => v as u64 as i128,
                _ => return None,
            })
        }
        _ => None,
    }
}

/// A literal's value with its byte range in the concatenated text and the
/// map from value bytes to the literal's source text.
struct Piece {
    lit: LitStr,
    start: usize,
    src: String,
    map: Vec<usize>,
}

/// The error of the assembler at `pos..pos+len` of the concatenated text,
/// pointed at the literal (and, where the compiler allows, the bytes) it
/// comes from.
fn asm_error(pieces: &[Piece], pos: usize, len: usize, msg: &str) -> Error {
    let k = pieces.iter().rposition(|p| p.start <= pos).unwrap_or(0);
    let p = &pieces[k];
    let rel = pos - p.start;
    let last = p.map.len() - 1;
    let s = p.map[rel.min(last)];
    let e = p.map[(rel + len).min(last)].max(s + 1);
    let (line, col) = strlit::line_col(&p.src, s);
    let place = if line == 1 { format!("column {col}") } else { format!("line {line}, column {col}") };
    let span = p.lit.token().subspan(s..e).unwrap_or_else(|| p.lit.span());
    Error::new(span, format!("bpf_asm: {msg} (at {place} of this string)"))
}

/// Assembles the body of `owner` and generates the `registry::Asm` value
/// plus the items that check `imm_addr` and called names exist.
pub fn expand(body: &AsmBody, owner: &Ident) -> Result<(TokenStream, TokenStream)> {
    let mut text = String::new();
    let mut pieces = Vec::new();
    for lit in &body.strings {
        let src = lit.token().to_string();
        let (value, map) = match strlit::unescape(&src) {
            Some((v, m)) if v == lit.value() => (v, m),
            _ => {
                let v = lit.value();
                let n = v.len();
                (v, vec![0; n + 1])
            }
        };
        pieces.push(Piece { lit: lit.clone(), start: text.len(), src, map });
        text.push_str(&value);
    }

    let mut runtime = false;
    let mut known: Vec<(String, bpf_isa::Operand)> = Vec::new();
    let mut op_tokens = Vec::new();
    let mut addr_checks = Vec::new();
    for op in &body.operands {
        let name = op.name.to_string();
        let (value, tokens) = match &op.kind {
            OperandKind::Imm => match bpf_isa::helper_ids::helper_id(&name) {
                Some(id) => (bpf_isa::Operand::Imm(id as i64), quote!(::bpf_selftest::registry::AsmOperand::Imm(#id as i64))),
                None => (bpf_isa::Operand::Sym(name.clone()), quote!(::bpf_selftest::registry::AsmOperand::Sym(#name))),
            },
            OperandKind::Addr => {
                let id = &op.name;
                addr_checks.push(quote!(let _ = &#id;));
                (bpf_isa::Operand::Sym(name.clone()), quote!(::bpf_selftest::registry::AsmOperand::Sym(#name)))
            }
            OperandKind::Const(e) => match eval(e).and_then(|v| i64::try_from(v).ok().or_else(|| u64::try_from(v).ok().map(|u| u as i64))) {
                Some(v) => (bpf_isa::Operand::Imm(v), quote!(::bpf_selftest::registry::AsmOperand::Imm(#v))),
                None => {
                    runtime = true;
                    (bpf_isa::Operand::Imm(0), quote!(::bpf_selftest::registry::AsmOperand::Imm((#e) as i64)))
                }
            },
            OperandKind::Insn(e) => {
                runtime = true;
                (bpf_isa::Operand::Imm(0), quote!(::bpf_selftest::registry::AsmOperand::Imm(::bpf_selftest::registry::insn_imm(#e))))
            }
        };
        known.push((name.clone(), value));
        op_tokens.push(quote!((#name, #tokens)));
    }

    let prog = bpf_isa::assemble_with(&text, &|n| known.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone())).map_err(|e| {
        // `%[x]` with no operand x: an operand no `%[...]` names is the
        // likelier typo (the asm and the operand were meant to agree)
        match unused_operand(body, &text) {
            Some(op) if e.msg.starts_with("unknown operand %[") => Error::new(
                op.name.span(),
                format!("bpf_asm: operand `{}` matches no %[...] of the asm, which uses {}", op.name, e.msg.trim_start_matches("unknown operand ")),
            ),
            _ => asm_error(&pieces, e.pos, e.len, &e.msg),
        }
    })?;
    let name_checks = call_name_checks(owner, body, &pieces, &prog);

    let compiled = if runtime {
        quote!(::core::option::Option::None)
    } else {
        let insns = prog.insns.iter().map(|i| {
            let (code, dst, src, off, imm) = (i.code, i.dst, i.src, i.off, i.imm);
            quote!(::bpf_selftest::isa::Insn::new(#code, #dst, #src, #off, #imm))
        });
        let relocs = prog.relocs.iter().map(|r| {
            let (insn, sym, pos) = (r.insn, r.symbol.as_str(), r.pos);
            let kind = match r.kind {
                bpf_isa::RelocKind::Call => quote!(::bpf_selftest::isa::RelocKind::Call),
                bpf_isa::RelocKind::LdImm64 => quote!(::bpf_selftest::isa::RelocKind::LdImm64),
            };
            quote!(::bpf_selftest::registry::CompiledReloc { insn: #insn, kind: #kind, symbol: #sym, pos: #pos })
        });
        quote!(::core::option::Option::Some((&[#(#insns),*], &[#(#relocs),*])))
    };
    let asm = quote! {
        ::bpf_selftest::registry::Asm {
            source: #text,
            operands: &[#(#op_tokens),*],
            compiled: #compiled,
        }
    };
    let mut checks = if addr_checks.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            const _: () = {
                #[allow(dead_code, clippy::no_effect_underscore_binding)]
                fn __bpf_imm_addr_exists() { #(#addr_checks)* }
            };
        }
    };
    checks.extend(name_checks);
    Ok((asm, checks))
}

/// The first `imm`/`imm_addr` operand the text never names as `%[name]`.
fn unused_operand<'a>(body: &'a AsmBody, text: &str) -> Option<&'a AsmOperand> {
    body.operands.iter().find(|op| !text.contains(&format!("%[{}]", op.name)))
}

/// Levenshtein distance of two names (byte-wise: names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The helper or 7.3 kfunc name closest to `name`, if it is close enough to
/// be what was meant.
fn closest_known(name: &str) -> Option<String> {
    let helpers = bpf_isa::helper_ids::HELPER_NAMES.iter().skip(1).map(|h| format!("bpf_{h}"));
    let kfuncs = bpf_isa::kfunc_btf_ids::X86_64.iter().chain(bpf_isa::kfunc_btf_ids::ARM64).map(|(k, _)| k.to_string());
    let limit = if name.len() > 12 { 3 } else { 2 };
    helpers.chain(kfuncs).map(|k| (edit_distance(name, &k), k)).filter(|(d, _)| *d <= limit).min().map(|(_, k)| k)
}

/// Called names that are neither helpers nor 7.3 kfuncs (`call %[x]` with
/// `imm(x)`, `call x`) must be a subprogram (or another item) of the
/// suite. For each, an item that fails to compile, with a message naming
/// the call, when the suite's module has no item of that name: a
/// deprecated fallback reached through a glob import, which any real item
/// of the name shadows, and a reference to the name under
/// `deny(deprecated)`.
fn call_name_checks(owner: &Ident, body: &AsmBody, pieces: &[Piece], prog: &bpf_isa::Program) -> TokenStream {
    let mut names: Vec<(String, Span)> = Vec::new();
    for r in prog.relocs.iter().filter(|r| r.kind == bpf_isa::RelocKind::Call) {
        if bpf_isa::kfunc_btf_ids::is_kfunc(&r.symbol) || names.iter().any(|(n, _)| *n == r.symbol) {
            continue;
        }
        // point at the operand when the name came from one, else at the asm
        let span = body.operands.iter().find(|op| op.name == r.symbol.as_str()).map_or_else(|| asm_error(pieces, r.pos, 1, "").span(), |op| op.name.span());
        names.push((r.symbol.clone(), span));
    }
    let mut out = TokenStream::new();
    for (name, span) in names {
        let Ok(ident) = syn::parse_str::<Ident>(&name) else { continue };
        let ident = Ident::new(&ident.to_string(), span);
        let mut msg = format!("unknown helper or kfunc `{name}`: not a helper of 7.3, a kfunc of its images, nor a subprogram, map or global of this suite");
        if let Some(k) = closest_known(&name) {
            msg = format!("unknown helper or kfunc `{name}`; did you mean `{k}`?");
        }
        let fallback = Ident::new(&format!("__bpf_unknown_call_{owner}_{name}"), Span::call_site());
        out.extend(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, non_upper_case_globals, dead_code)]
            mod #fallback {
                #[deprecated(note = #msg)]
                pub const #ident: () = ();
            }
            #[allow(unused_imports)]
            use self::#fallback::*;
            #[deny(deprecated)]
            const _: () = {
                let _ = &#ident;
            };
        });
    }
    out
}

/// The `bpf_asm!(...)` of a function body, which must be all there is.
pub fn body_of(block: &syn::Block, fn_span: Span) -> Result<AsmBody> {
    let mac = match block.stmts.as_slice() {
        [syn::Stmt::Macro(m)] => &m.mac,
        [syn::Stmt::Expr(Expr::Macro(m), _)] => &m.mac,
        _ => {
            return Err(Error::new(fn_span, "the body of a BPF program is one bpf_asm!(\"...\", operands...) and nothing else"));
        }
    };
    if mac.path.segments.last().is_none_or(|s| s.ident != "bpf_asm") {
        return Err(Error::new_spanned(&mac.path, "the body of a BPF program is a bpf_asm!(...) block"));
    }
    mac.parse_body::<AsmBody>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of `bpf_asm!(text)`, assembled on a thread with a 2 MiB
    /// stack (rustc gives the proc macros more).
    fn error_of(text: String) -> String {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let body: AsmBody = syn::parse_str(&format!("{text:?}")).expect("a string literal");
                match expand(&body, &Ident::new("test_prog", Span::call_site())) {
                    Ok(_) => String::new(),
                    Err(e) => e.to_string(),
                }
            })
            .expect("spawn")
            .join()
            .expect("no panic, no stack overflow")
    }

    #[test]
    fn deep_nesting_is_a_compile_error() {
        let n = 100_000;
        for text in [
            format!("r0 = 1 + {}1{}", "(".repeat(n), ")".repeat(n)),
            format!("r0 = {}1", "-".repeat(n)),
            format!(".8byte {}1{}", "(".repeat(n), ")".repeat(n)),
            format!("{}exit\n{}", ".rept 1\n".repeat(10_000), ".endr\n".repeat(10_000)),
        ] {
            let e = error_of(text);
            assert!(e.starts_with("bpf_asm: ") && e.contains("nested too deep (more than 256 levels)"), "{e}");
        }
        assert_eq!(error_of(format!("r0 = 1 + {}1{}", "(".repeat(256), ")".repeat(256))), "");
    }

    #[test]
    fn a_huge_token_is_quoted_short() {
        let e = error_of(format!("r0 = {} ll; exit", "x".repeat(1 << 20)).replace(" ll", ""));
        assert!(e.len() < 200, "{e}");
        assert!(e.contains(&format!("'{}…'", "x".repeat(40))), "{e}");
    }

    #[test]
    fn eval_leaves_deep_expressions_to_rustc() {
        // syn's own parser needs a large stack for these (in rustc it has one)
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(|| {
                let deep: Expr = syn::parse_str(&format!("{}1{}", "(".repeat(300), ")".repeat(300))).unwrap();
                assert_eq!(eval(&deep), None);
                let chain: Expr = syn::parse_str(&format!("1{}", " + 1".repeat(200))).unwrap();
                assert_eq!(eval(&chain), Some(201));
            })
            .expect("spawn")
            .join()
            .expect("no panic");
    }
}
