//! The real agent CLIs (Claude Code, Codex CLI, Gemini CLI) end to end
//! against a scripted model server, and squiggle's packages for them (the
//! Claude Code and Codex plugin, the Gemini CLI extension) installed by the
//! real CLIs.

mod claude;
mod codex;
mod codex_plugin;
mod gemini;
mod gemini_extension;
mod plugin;
mod plugin_install;
