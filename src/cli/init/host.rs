//! What `squiggle init` takes: an agent whose hooks run `squiggle hook
//! <agent>` from its settings file (the rest of `init`), or a host that
//! runs squiggle from a file of its own: an OpenCode or Kilo CLI plugin
//! (`plugin_file`), Aider's lint commands (`aider`).

use std::sync::OnceLock;

use clap::ValueEnum;
use clap::builder::PossibleValue;

use super::Args;
use crate::cli::hook::Agent;

/// A host `init` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    Hook(Agent),
    File(FileHost),
}

/// The hosts squiggle reaches through a file it writes whole.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileHost {
    /// OpenCode: a plugin in `.opencode/plugins/` appends the block to the
    /// output of the edit, write and patch tools.
    Opencode,
    /// Kilo CLI (an OpenCode fork): the same plugin in `.kilo/plugins/`.
    Kilo,
    /// Aider: `lint-cmd` entries in `.aider.conf.yml` (its `--auto-lint`
    /// sends a failing lint's output to the model).
    Aider,
}

impl ValueEnum for Host {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: OnceLock<Vec<Host>> = OnceLock::new();
        ALL.get_or_init(|| {
            let hooks = Agent::value_variants().iter().copied().map(Host::Hook);
            let files = FileHost::value_variants().iter().copied().map(Host::File);
            hooks.chain(files).collect()
        })
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        match self {
            Host::Hook(agent) => agent.to_possible_value(),
            Host::File(host) => host.to_possible_value(),
        }
    }
}

/// `init` for a file host; the options that belong to one hook agent are
/// refused by name.
pub(super) fn init(host: FileHost, args: &Args) -> Result<u8, String> {
    let name = host
        .to_possible_value()
        .map(|v| v.get_name().to_string())
        .unwrap_or_default();
    for (set, option) in [
        (args.trust_hook, "--trust-hook"),
        (args.batch, "--batch"),
        (args.stop_gate, "--stop-gate"),
    ] {
        if set {
            return Err(format!(
                "{option} is for a hook agent; {name} runs squiggle from a file init writes"
            ));
        }
    }
    match host {
        FileHost::Opencode => super::plugin_file::init(super::plugin_file::OPENCODE, args),
        FileHost::Kilo => super::plugin_file::init(super::plugin_file::KILO, args),
        FileHost::Aider => super::aider::init(args),
    }
}
