//! The real agent CLIs (Claude Code, Codex CLI, Gemini CLI; OpenCode,
//! Aider) end to end against a scripted model server, and squiggle's
//! packages for them (the Claude Code and Codex plugin, the Gemini CLI
//! extension) installed by the real CLIs.

mod aider;
mod claude;
mod codex;
mod codex_plugin;
mod gemini;
mod gemini_extension;
mod opencode;
mod plugin;
mod plugin_install;
