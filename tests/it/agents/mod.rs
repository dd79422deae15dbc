//! The real agent CLIs (Claude Code, Codex CLI, Gemini CLI) end to end
//! against a scripted model server, and the Claude Code plugin installed by
//! the real `claude`.

mod claude;
mod codex;
mod gemini;
mod plugin;
mod plugin_install;
