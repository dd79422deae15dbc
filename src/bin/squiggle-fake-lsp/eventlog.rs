//! The optional JSON-lines log that tests read to assert what crossed the wire.
//!
//! One line per event, flushed at once, so a test can read it even after killing the fake.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{Value, json};

pub struct EventLog {
    file: Option<File>,
}

impl EventLog {
    pub fn open(path: Option<&Path>) -> Result<EventLog> {
        let file = match path {
            None => None,
            Some(path) => Some(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .with_context(|| format!("cannot open log file {}", path.display()))?,
            ),
        };
        Ok(EventLog { file })
    }

    pub fn write(&mut self, line: &Value) {
        let Some(file) = &mut self.file else { return };
        let mut text = line.to_string();
        text.push('\n');
        if let Err(err) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
            eprintln!("squiggle-fake-lsp: cannot write the log file: {err}");
        }
    }

    pub fn incoming(&mut self, msg: &Value) {
        // Without a log file, building the line (a copy of the whole
        // message) would be the fake's biggest cost per message.
        if self.file.is_none() {
            return;
        }
        self.write(&json!({"dir": "in", "msg": msg}));
    }

    pub fn outgoing(&mut self, msg: &Value) {
        if self.file.is_none() {
            return;
        }
        self.write(&json!({"dir": "out", "msg": msg}));
    }

    pub fn event(&mut self, name: &str, mut fields: Value) {
        if self.file.is_none() {
            return;
        }
        if let Value::Object(map) = &mut fields {
            map.insert("event".into(), json!(name));
        }
        self.write(&fields);
    }
}
