//! The text of an impact answer: per symbol its uses by file (tests
//! marked), then the importers, then what was cut. Pure.

use super::ImpactResult;

pub fn render(result: &ImpactResult) -> String {
    let mut out = Vec::new();
    if result.symbols.is_empty() {
        // Notes mean something was found and cut, or could not be asked.
        out.push(match result.target.as_str() {
            _ if !result.notes.is_empty() => {
                "No symbol's uses are known: see the notes below.".to_string()
            }
            "diff" => "The diff changes no symbol a server could name.".to_string(),
            "file" => "No exported symbol found in the file.".to_string(),
            _ => "No symbol found.".to_string(),
        });
    }
    for s in &result.symbols {
        let kind = if s.kind.is_empty() {
            String::new()
        } else {
            format!("{}, ", s.kind)
        };
        out.push(format!(
            "{} ({kind}{}): {} use(s) in {} file(s), {} in tests",
            s.name,
            s.declared,
            s.uses,
            s.files.len(),
            s.test_uses
        ));
        for f in &s.files {
            let lines: Vec<String> = f.lines.iter().map(u32::to_string).collect();
            let test = if f.test { " (test)" } else { "" };
            out.push(format!("  {}{test}: {}", f.path, lines.join(", ")));
        }
        if s.truncated {
            out.push(format!("  … and {} more", s.uses - listed(s)));
        }
    }
    if !result.importers.is_empty() {
        let names: Vec<String> = result
            .importers
            .iter()
            .map(|i| {
                let mut name = i.path.clone();
                if i.test {
                    name.push_str(" (test)");
                }
                if i.no_use_found {
                    name.push_str(" (no use found)");
                }
                name
            })
            .collect();
        out.push(format!("imported by: {}", names.join(", ")));
    }
    for note in &result.notes {
        out.push(format!("note: {note}"));
    }
    out.join("\n")
}

fn listed(s: &super::SymbolImpact) -> usize {
    s.files.iter().map(|f| f.lines.len()).sum()
}
