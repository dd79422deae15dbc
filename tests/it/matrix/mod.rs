//! The real language servers, per language, on the fixture projects under
//! `tests/fixtures/`: the text an agent sees after an edit, navigation, and
//! importers found across files.

mod c;
mod components;
mod config;
mod declared_root;
mod dependents;
mod feedback;
mod go;
mod navigation;
mod project_compiler;
mod project_local;
mod python;
mod rust;
mod rust_1_99;
mod typescript;
