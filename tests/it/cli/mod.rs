//! The `squiggle` binary's subcommands, run as a user or a hook runs them:
//! the real binary in a temporary workspace, mostly against the scripted
//! fake server.

mod check;
mod doctor;
mod hook;
mod hook_hosts;
mod init;
mod init_hosts;
mod install;
mod status;
mod stop_gate;
// Unix only: its stub server is a `#!/bin/sh` script found on PATH.
#[cfg(unix)]
mod strict;
mod tools;
mod version;
