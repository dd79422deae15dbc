//! A scriptable fake language server, speaking real LSP over stdio.
//!
//! Tests and benchmarks point squiggle at this binary to drive its LSP client through
//! behaviours and faults that no real server produces on demand: slow waves of
//! diagnostics, stale publishes, pull-only servers, crashes, hangs, junk on the wire.
//! See docs/fake-server.md for the script format. Exit codes: 0 after `shutdown` + `exit`,
//! 1 after `exit` without `shutdown` (or stdin closing), 2 for a bad script, 3..5 for the
//! scripted crashes. `--listen ADDRESS` serves LSP over TCP instead (`listen`).

mod documents;
mod eventlog;
mod listen;
mod markers;
mod position;
mod scheduler;
mod script;
mod server;
mod wire;

use eventlog::EventLog;
use script::Script;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, address, rest @ ..] = args.as_slice()
        && flag == "--listen"
    {
        if let Err(err) = listen::run(address, rest) {
            eprintln!("squiggle-fake-lsp: {err:#}");
            std::process::exit(2);
        }
        return;
    }
    let script = match Script::load(&args) {
        Ok(script) => script,
        Err(err) => {
            eprintln!("squiggle-fake-lsp: {err:#}");
            std::process::exit(2);
        }
    };
    let log = match EventLog::open(script.log_file.as_deref()) {
        Ok(log) => log,
        Err(err) => {
            eprintln!("squiggle-fake-lsp: {err:#}");
            std::process::exit(2);
        }
    };
    server::run(script, log)
}
