//! The built-in server entries, one module per language family, so that each
//! family's knowledge (commands, markers, settings) reads in one place.

pub mod c;
pub mod go;
pub mod others;
pub mod python;
pub mod rust;
pub mod shell;
pub mod toml;
pub mod typescript;
pub mod web;
