//! The map-creation goldens, `expected/linux-7.3/map_create.txt`: what
//! BPF_MAP_CREATE answers on x86_64 for map types, sizes and flags, as
//! root and in an unprivileged run (CAP_SYS_ADMIN, CAP_NET_ADMIN,
//! CAP_PERFMON and CAP_BPF dropped before the map is created):
//!
//! ```text
//! # <two header lines>
//! TYPE KEY_SIZE VALUE_SIZE MAX_ENTRIES FLAGS root|unpriv => ok|ERRNO
//! ```
//!
//! (`FLAGS` in hex.) `record --set map-create` creates every map again,
//! each as the one map of a load of `r0 = 0; exit` (the program is loaded
//! when the map could be created, and does not matter), and writes the
//! file anew; a new map is a new line with any answer.

use crate::backend::{Backend, BtfMode, LoadOutcome, LoadRequest};
use crate::isa::Insn;
use crate::isa::op::*;
use crate::link::{Func, LinkedProgram};
use crate::map::MapDef;
use crate::target::Arch;

/// One map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub map_type: u32,
    pub key_size: u32,
    pub value_size: u32,
    pub max_entries: u32,
    pub flags: u32,
    pub unpriv: bool,
    /// `ok` or the errno's name.
    pub result: String,
}

impl Case {
    pub fn def(&self) -> MapDef {
        let mut d = MapDef::new("m", self.map_type, self.key_size, self.value_size, self.max_entries);
        d.map_flags = self.flags;
        d
    }

    /// The line without its answer.
    pub fn args(&self) -> String {
        format!(
            "{} {} {} {} {:#x} {}",
            self.map_type,
            self.key_size,
            self.value_size,
            self.max_entries,
            self.flags,
            if self.unpriv { "unpriv" } else { "root" }
        )
    }

    /// The load that creates the map: in an unprivileged run the map is
    /// created after the capabilities are dropped, whatever its type.
    pub fn request(&self, arch: Arch) -> LoadRequest {
        let insns = vec![Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), Insn::new(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)];
        LoadRequest {
            name: format!("map-create/{}", self.args()),
            prog: LinkedProgram { insns, funcs: vec![Func { name: "map_create".into(), start: 0, global: true, nargs: 0 }], relocs: Vec::new() },
            prog_type: crate::prog_type::SOCKET_FILTER,
            expected_attach_type: None,
            attach_func: None,
            prog_flags: 0,
            log_level: 0,
            unpriv: self.unpriv,
            caps_unpriv: Vec::new(),
            maps: vec![self.def()],
            btf: BtfMode::None,
            test_run: None,
            arch,
            want_jited: false,
            license: "GPL".into(),
            privileged_setup: false,
            log_size: crate::backend::loader::LOG_BUF_SIZE,
            create_every_map: true,
            scenario: Default::default(),
        }
    }
}

/// `ok`, or the errno's name when the map was not created (the loaders
/// report it as `map 'm': failed to create: ...`).
pub fn result_of(out: &LoadOutcome) -> String {
    if out.log.starts_with("libbpf: map 'm': failed to create") {
        let name = crate::sys::errno_name(out.errno);
        if name.is_empty() { format!("errno {}", out.errno) } else { name.to_string() }
    } else {
        "ok".to_string()
    }
}

/// The file: its `#` lines and its maps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapCreateFile {
    pub header: Vec<String>,
    pub cases: Vec<Case>,
}

pub fn parse(text: &str) -> Result<MapCreateFile, String> {
    let header = text.lines().take_while(|l| l.starts_with('#')).map(str::to_string).collect();
    let mut cases = Vec::new();
    for l in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (args, result) = l.split_once(" => ").ok_or_else(|| format!("no ' => ' in {l:?}"))?;
        let f: Vec<&str> = args.split_whitespace().collect();
        if f.len() != 6 {
            return Err(format!("{l:?}: six fields before ' => '"));
        }
        let num = |i: usize| -> Result<u32, String> {
            let v = f[i];
            let n = match v.strip_prefix("0x") {
                Some(h) => u32::from_str_radix(h, 16),
                None => v.parse(),
            };
            n.map_err(|e| format!("{l:?}: {v}: {e}"))
        };
        let unpriv = match f[5] {
            "root" => false,
            "unpriv" => true,
            other => return Err(format!("{l:?}: {other}: root or unpriv")),
        };
        cases.push(Case {
            map_type: num(0)?,
            key_size: num(1)?,
            value_size: num(2)?,
            max_entries: num(3)?,
            flags: num(4)?,
            unpriv,
            result: result.trim().to_string(),
        });
    }
    Ok(MapCreateFile { header, cases })
}

pub fn render(f: &MapCreateFile) -> String {
    let mut s = String::new();
    for h in &f.header {
        s.push_str(h);
        s.push('\n');
    }
    for c in &f.cases {
        s.push_str(&format!("{} => {}\n", c.args(), c.result));
    }
    s
}

/// `file` recorded again through `backend` on `arch`, in one batch.
pub fn record(backend: &dyn Backend, arch: Arch, file: &MapCreateFile, header: &[String]) -> Result<MapCreateFile, String> {
    let reqs: Vec<LoadRequest> = file.cases.iter().map(|c| c.request(arch)).collect();
    let outs = backend.load_batch(&reqs);
    let cases = file
        .cases
        .iter()
        .zip(outs)
        .map(|(c, out)| {
            let out = out.map_err(|u| format!("map-create {}: {}", c.args(), u.0))?;
            Ok(Case { result: result_of(&out), ..c.clone() })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(MapCreateFile { header: header.to_vec(), cases })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_is_parse_s_inverse() {
        let text = "# a\n# b\n2 4 8 1 0x0 root => ok\n1 4 8 16 0x40 unpriv => EPERM\n9 4 8 16 0x1 root => ENOTSUPP\n";
        let f = parse(text).unwrap();
        assert_eq!(f.cases[1], Case { map_type: 1, key_size: 4, value_size: 8, max_entries: 16, flags: 0x40, unpriv: true, result: "EPERM".into() });
        assert_eq!(render(&f), text);
        let fail = LoadOutcome { errno: 524, log: "libbpf: map 'm': failed to create: ENOTSUPP (524)\n".into(), ..LoadOutcome::default() };
        assert_eq!(result_of(&fail), "ENOTSUPP");
        assert_eq!(result_of(&LoadOutcome { accepted: true, ..LoadOutcome::default() }), "ok");
    }
}
