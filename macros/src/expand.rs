//! Whichever of the attributes expands first sees the item with all the
//! others still on it: it takes them all, in source order, and emits the
//! static description of the item and its `inventory` registration.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Error, Item, ItemFn, ItemStatic, LitStr, Meta, Result};

use crate::asm;
use crate::tags::{RawAttr, TEST_ATTRS, TagState};

const DECL_ATTRS: &[&str] = &["sec", "object", "subprog", "map", "global"];

fn ours(name: &str) -> bool {
    TEST_ATTRS.contains(&name) || DECL_ATTRS.contains(&name)
}

/// Our attribute's name if `attr` is one (`msg`, `bpf_selftest::msg`, ...).
fn our_name(attr: &Attribute) -> Option<String> {
    let path = attr.path();
    let last = path.segments.last()?.ident.to_string();
    let prefix_ok = path.segments.len() == 1
        || path.segments.first().is_some_and(|s| {
            let s = s.ident.to_string();
            s == "bpf_selftest" || s == "bpf_selftest_macros" || s == "prelude"
        });
    (prefix_ok && ours(&last)).then_some(last)
}

fn raw_attr(attr: &Attribute, name: String) -> Result<RawAttr> {
    let span = attr.pound_token.span;
    let args = match &attr.meta {
        Meta::Path(_) => TokenStream::new(),
        Meta::List(l) => l.tokens.clone(),
        Meta::NameValue(nv) => {
            return Err(Error::new_spanned(nv, format!("write #[{name}(...)], not #[{name} = ...]")));
        }
    };
    // The first and last tokens with their own spans (a rebuilt bracket
    // group would not carry the closing position on stable).
    let (pound, path) = (&attr.pound_token, attr.path());
    let whole = quote!(#pound #path #args);
    Ok(RawAttr { name, args, span, whole: Some(whole) })
}

/// Splits the item's attributes into ours (in order, after the expanding
/// one) and the rest.
fn take_attrs(first: RawAttr, attrs: Vec<Attribute>) -> Result<(Vec<RawAttr>, Vec<Attribute>)> {
    let mut mine = vec![first];
    let mut rest = Vec::new();
    for a in attrs {
        match our_name(&a) {
            Some(n) => mine.push(raw_attr(&a, n)?),
            None => rest.push(a),
        }
    }
    Ok((mine, rest))
}

fn site() -> TokenStream {
    quote! {
        ::bpf_selftest::registry::Site {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
            column: ::core::column!(),
        }
    }
}

pub fn expand(first: &str, args: TokenStream, item: TokenStream) -> TokenStream {
    match expand_inner(first, args, item) {
        Ok(ts) => ts,
        Err(e) => e.to_compile_error(),
    }
}

fn expand_inner(first: &str, args: TokenStream, item: TokenStream) -> Result<TokenStream> {
    let first = RawAttr { name: first.to_string(), args, span: Span::call_site(), whole: None };
    let item: Item = syn::parse2(item)?;
    match item {
        Item::Fn(f) => {
            let (mine, rest) = take_attrs(first, f.attrs.clone())?;
            if mine.iter().any(|a| a.name == "subprog") { subprog(f, mine, rest) } else { program(f, mine, rest) }
        }
        Item::Static(s) => {
            let (mine, rest) = take_attrs(first, s.attrs.clone())?;
            static_decl(s, mine, rest)
        }
        other => Err(Error::new_spanned(other, "BPF selftest attributes go on a `fn` (program, #[subprog]) or a `static` (#[map], #[global])")),
    }
}

fn check_fn_shape(f: &ItemFn) -> Result<()> {
    if !f.sig.inputs.is_empty() {
        return Err(Error::new_spanned(&f.sig.inputs, "a BPF function takes no Rust parameters (a global subprog declares #[subprog(global, nargs = N)])"));
    }
    if !f.sig.generics.params.is_empty() || f.sig.asyncness.is_some() || f.sig.abi.is_some() {
        return Err(Error::new_spanned(&f.sig, "a BPF function is a plain `fn name() { bpf_asm!(...) }`"));
    }
    Ok(())
}

fn program(f: ItemFn, mine: Vec<RawAttr>, rest: Vec<Attribute>) -> Result<TokenStream> {
    check_fn_shape(&f)?;
    let mut sec: Option<(String, Span)> = None;
    let mut object: Option<(String, Span)> = None;
    let mut tags = TagState::default();
    let mut errors: Option<Error> = None;
    let mut note = |e: Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    for a in &mine {
        match a.name.as_str() {
            "sec" => {
                let s = match syn::parse2::<LitStr>(a.args.clone()) {
                    Ok(s) => s.value(),
                    Err(_) => {
                        note(a.error("#[sec] takes the section name as a string, e.g. #[sec(\"socket\")]"));
                        continue;
                    }
                };
                if sec.is_some() {
                    note(a.error("a program has one #[sec]"));
                } else if s.is_empty() {
                    note(a.error("#[sec] needs a section name"));
                } else {
                    sec = Some((s, a.span));
                }
            }
            "object" => match syn::parse2::<LitStr>(a.args.clone()) {
                Ok(p) if p.value().is_empty() => note(a.error("#[object] needs the path of a BPF object (`.o`) or of its C source (`.c`)")),
                Ok(p) if object.is_some() => note(Error::new(p.span(), "a program has one #[object]")),
                Ok(p) => object = Some((p.value(), a.span)),
                Err(_) => note(a.error("#[object] takes a path as a string, e.g. #[object(\"bpf/my_prog.bpf.c\")]")),
            },
            "map" | "global" => note(a.error(format!("#[{}] goes on a `static`, not on a program", a.name))),
            _ => {
                if let Err(e) = tags.push(a) {
                    note(e);
                }
            }
        }
    }
    // a program from an object has its code there and no body here
    let body = match mine.iter().find(|a| a.name == "object") {
        None => Some(asm::body_of(&f.block, f.sig.ident.span()).and_then(|b| asm::expand(&b, &f.sig.ident))),
        Some(_) if f.block.stmts.is_empty() => None,
        Some(_) => Some(Err(Error::new_spanned(&f.block, "a program with #[object] has its code in the object: its body is `{}`"))),
    };
    if let Some(Err(e)) = &body {
        note(e.clone());
    }
    let Some((sec, _)) = sec else {
        note(Error::new(
            f.sig.ident.span(),
            format!("program '{}' needs #[sec(\"...\")] (its ELF section, e.g. \"socket\" or \"raw_tp\"), or #[subprog]", f.sig.ident),
        ));
        return Err(errors.expect("noted"));
    };
    if let Some(e) = errors {
        return Err(e);
    }
    let (asm, checks) = match body {
        Some(b) => b?,
        None => (quote! { ::bpf_selftest::registry::Asm { source: "", operands: &[], compiled: ::core::option::Option::None } }, TokenStream::new()),
    };
    // a relative path is the crate's, as `include_bytes!` paths are the file's
    let object = match object {
        None => quote! { ::core::option::Option::None },
        Some((p, _)) if std::path::Path::new(&p).is_absolute() => quote! { ::core::option::Option::Some(#p) },
        Some((p, _)) => quote! { ::core::option::Option::Some(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), "/", #p)) },
    };
    let ident = &f.sig.ident;
    let name = ident.to_string();
    let vis = &f.vis;
    let tag_strs = &tags.tags;
    let tag_lines = &tags.lines;
    let site = site();
    Ok(quote! {
        #(#rest)*
        #[allow(non_upper_case_globals)]
        #vis static #ident: ::bpf_selftest::registry::ProgDecl = ::bpf_selftest::registry::ProgDecl {
            name: #name,
            site: #site,
            sec: #sec,
            tags: &[#(#tag_strs),*],
            tag_lines: &[#(#tag_lines),*],
            asm: #asm,
            object: #object,
        };
        ::bpf_selftest::inventory::submit! { ::bpf_selftest::registry::Decl::Program(&#ident) }
        #checks
    })
}

fn subprog(f: ItemFn, mine: Vec<RawAttr>, rest: Vec<Attribute>) -> Result<TokenStream> {
    check_fn_shape(&f)?;
    let mut global = false;
    let mut nargs: Option<u32> = None;
    for a in &mine {
        if a.name != "subprog" {
            return Err(a.error(format!("#[{}] does not apply to a #[subprog]", a.name)));
        }
        let parser = syn::meta::parser(|m| {
            if m.path.is_ident("global") {
                global = true;
                Ok(())
            } else if m.path.is_ident("nargs") {
                let n: syn::LitInt = m.value()?.parse()?;
                let v: u32 = n.base10_parse()?;
                if v > 5 {
                    return Err(Error::new(n.span(), "a BPF function takes at most 5 arguments"));
                }
                nargs = Some(v);
                Ok(())
            } else {
                Err(m.error("#[subprog] takes `global` and `nargs = N`"))
            }
        });
        syn::parse::Parser::parse2(parser, a.args.clone())?;
    }
    if nargs.is_some() && !global {
        return Err(mine[0].error("nargs is for global subprogs: #[subprog(global, nargs = N)]"));
    }
    let body = asm::body_of(&f.block, f.sig.ident.span())?;
    let (asm, checks) = asm::expand(&body, &f.sig.ident)?;
    let ident = &f.sig.ident;
    let name = ident.to_string();
    let vis = &f.vis;
    let nargs = nargs.unwrap_or(0);
    let site = site();
    Ok(quote! {
        #(#rest)*
        #[allow(non_upper_case_globals)]
        #vis static #ident: ::bpf_selftest::registry::SubprogDecl = ::bpf_selftest::registry::SubprogDecl {
            name: #name,
            site: #site,
            global: #global,
            nargs: #nargs,
            asm: #asm,
        };
        ::bpf_selftest::inventory::submit! { ::bpf_selftest::registry::Decl::Subprog(&#ident) }
        #checks
    })
}

fn static_decl(s: ItemStatic, mine: Vec<RawAttr>, rest: Vec<Attribute>) -> Result<TokenStream> {
    let kind = mine[0].name.clone();
    if kind != "map" && kind != "global" {
        return Err(mine[0].error(format!("#[{kind}] goes on a program `fn`, not on a `static`")));
    }
    if let Some(a) = mine.get(1) {
        return Err(a.error(format!("#[{}] does not go with #[{kind}]", a.name)));
    }
    if !matches!(s.mutability, syn::StaticMutability::None) {
        return Err(Error::new_spanned(&s.mutability, format!("a #[{kind}] static is immutable on the Rust side")));
    }
    let ident = &s.ident;
    let name = ident.to_string();
    let ty = &s.ty;
    let site = site();
    let mut item = s.clone();
    item.attrs = rest;
    let decl = if kind == "map" {
        if !mine[0].args.is_empty() {
            return Err(Error::new_spanned(&mine[0].args, "#[map] takes no arguments: the static's value is the map (Map::new(...))"));
        }
        quote! {
            static __BPF_DECL: ::bpf_selftest::registry::MapDecl =
                ::bpf_selftest::registry::MapDecl { name: #name, site: #site, map: &#ident };
            ::bpf_selftest::inventory::submit! { ::bpf_selftest::registry::Decl::Map(&__BPF_DECL) }
        }
    } else {
        let section = global_section(&mine[0])?;
        quote! {
            fn __bpf_init(big_endian: bool) -> ::std::vec::Vec<u8> {
                ::bpf_selftest::registry::GlobalValue::to_bytes(&#ident, big_endian)
            }
            static __BPF_DECL: ::bpf_selftest::registry::GlobalDecl = ::bpf_selftest::registry::GlobalDecl {
                name: #name,
                site: #site,
                section: #section,
                size: ::core::mem::size_of::<#ty>(),
                align: ::core::mem::align_of::<#ty>(),
                init: ::bpf_selftest::registry::GlobalInit::Value(__bpf_init),
            };
            ::bpf_selftest::inventory::submit! { ::bpf_selftest::registry::Decl::Global(&__BPF_DECL) }
        }
    };
    Ok(quote! {
        #[allow(non_upper_case_globals)]
        #item
        const _: () = { #decl };
    })
}

fn global_section(a: &RawAttr) -> Result<TokenStream> {
    if a.args.is_empty() {
        return Ok(quote!(::bpf_selftest::registry::GlobalSection::Auto));
    }
    let sec = if let Ok(id) = syn::parse2::<syn::Ident>(a.args.clone()) {
        match id.to_string().as_str() {
            "data" => ".data".to_string(),
            "bss" => ".bss".to_string(),
            "rodata" => ".rodata".to_string(),
            _ => return Err(Error::new(id.span(), "#[global] takes data, bss, rodata or a section name such as \".data.custom\"")),
        }
    } else if let Ok(s) = syn::parse2::<LitStr>(a.args.clone()) {
        let v = s.value();
        let ok = [".data", ".bss", ".rodata"].contains(&v.as_str()) || v.starts_with(".data.") || v.starts_with(".rodata.");
        if !ok {
            return Err(Error::new(s.span(), "a global-data section is .data, .bss, .rodata, .data.* or .rodata.*"));
        }
        v
    } else {
        return Err(Error::new_spanned(&a.args, "#[global] takes data, bss, rodata or a section name such as \".data.custom\""));
    };
    Ok(quote!(::bpf_selftest::registry::GlobalSection::Named(#sec)))
}
