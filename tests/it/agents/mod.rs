//! The real agent CLIs (Claude Code, Codex CLI, Gemini CLI; OpenCode,
//! Aider, Qwen Code, Copilot CLI, Cline) end to end against a scripted model server, and squiggle's
//! packages for them (the Claude Code and Codex plugin, the Gemini CLI
//! extension) installed by the real CLIs.

mod aider;
mod claude;
mod cline;
mod codex;
mod codex_plugin;
mod copilot;
mod gemini;
mod gemini_extension;
mod opencode;
mod plugin;
mod plugin_install;
mod qwen;
