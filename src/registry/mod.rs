//! The built-in language servers, as plain data (in progress): `languages`
//! maps file names to LSP language ids.

pub mod languages;
