//! The dev registry's persistence: an append-only journal of changes, one JSON object a line,
//! each write one appended line (then `fdatasync`), compacted into the changes that rebuild
//! the current state when the registry starts.
//!
//! A line cut short by a crash is the last one and is ignored on load; any other line that
//! does not parse is an error naming the file and line. A state file of the format before the
//! journal (one JSON object holding the whole state) is read and rewritten as a journal.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::RegistryError;
use crate::model::{CompatibilityLevel, SchemaReference, SchemaType};

use super::Mode;

/// One change of the registry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum Event {
    /// A schema got a global id.
    Schema {
        /// Its id.
        id: i32,
        /// Its type.
        #[serde(rename = "schemaType")]
        schema_type: SchemaType,
        /// Its text.
        schema: String,
        /// Its references.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        references: Vec<SchemaReference>,
        /// Its Confluent `metadata` (data contracts), if given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        metadata: Option<serde_json::Value>,
        /// Its Confluent `ruleSet` (data contracts), if given.
        #[serde(rename = "ruleSet", default, skip_serializing_if = "Option::is_none")]
        rule_set: Option<serde_json::Value>,
    },
    /// A subject got a version.
    Version {
        /// The subject.
        subject: String,
        /// The version number.
        version: i32,
        /// The schema id it holds.
        id: i32,
    },
    /// A version was soft-deleted (`permanent: false`) or removed.
    Delete {
        /// The subject.
        subject: String,
        /// The version number.
        version: i32,
        /// Removed for good (else only marked deleted).
        permanent: bool,
    },
    /// A compatibility level was set (`level`) or removed (`None`); `subject` `None` is the
    /// global one.
    Compatibility {
        /// The subject, or `None` for the global level.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject: Option<String>,
        /// The level, or `None` to remove the subject's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        level: Option<CompatibilityLevel>,
    },
    /// A mode was set or removed, like [`Event::Compatibility`].
    Mode {
        /// The subject, or `None` for the global mode.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        subject: Option<String>,
        /// The mode, or `None` to remove the subject's own.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<Mode>,
    },
}

/// The journal file.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
}

impl Journal {
    /// Reads the events in `path` (none when it does not exist yet).
    pub(crate) fn load(path: &Path) -> Result<Vec<Event>, RegistryError> {
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(dev_error(format!("could not read {}: {e}", path.display()))),
        };
        if let Some(events) = legacy::events(&text) {
            return Ok(events);
        }
        let lines: Vec<&str> = text.lines().collect();
        let mut events = Vec::with_capacity(lines.len());
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Event>(line) {
                Ok(event) => events.push(event),
                // The last line may be cut short by a crash during its write.
                Err(_) if i + 1 == lines.len() && !text.ends_with('\n') => break,
                Err(e) => {
                    return Err(dev_error(format!(
                        "{} line {} is not a registry journal entry: {e}",
                        path.display(),
                        i + 1
                    )))
                }
            }
        }
        Ok(events)
    }

    /// Replaces the file at `path` by `events` (written next to it, synced, then renamed over
    /// it) and returns the journal to append to.
    pub(crate) fn rewrite(path: &Path, events: &[Event]) -> Result<Self, RegistryError> {
        let tmp = tmp_path(path);
        let written = (|| -> io::Result<()> {
            let mut file = File::create(&tmp)?;
            let mut buf = Vec::new();
            for event in events {
                serde_json::to_writer(&mut buf, event).map_err(io::Error::other)?;
                buf.push(b'\n');
            }
            file.write_all(&buf)?;
            file.sync_all()?;
            fs::rename(&tmp, path)
        })();
        written.map_err(|e| dev_error(format!("could not write {}: {e}", path.display())))?;
        Ok(Journal {
            path: path.to_path_buf(),
        })
    }

    /// Appends `events` as lines and syncs them; on failure the file is cut back to where it
    /// was, so a failed request leaves no trace.
    pub(crate) fn append(&self, events: &[Event]) -> io::Result<()> {
        let mut line = Vec::new();
        for event in events {
            serde_json::to_writer(&mut line, event).map_err(io::Error::other)?;
            line.push(b'\n');
        }
        let mut file = OpenOptions::new().append(true).open(&self.path)?;
        let before = file.metadata()?.len();
        let written = file.write_all(&line).and_then(|()| file.sync_data());
        if written.is_err() {
            let _ = file.set_len(before);
        }
        written
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

fn dev_error(reason: String) -> RegistryError {
    RegistryError::Dev { reason }
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// The state file written before the journal: `{"compatibility", "schemas", "subjects"}`.
mod legacy {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::Event;
    use crate::model::{CompatibilityLevel, SchemaReference, SchemaType};

    #[derive(Deserialize)]
    struct State {
        #[serde(default)]
        compatibility: Option<CompatibilityLevel>,
        #[serde(default)]
        schemas: BTreeMap<i32, Stored>,
        #[serde(default)]
        subjects: BTreeMap<String, Subject>,
    }

    #[derive(Deserialize)]
    struct Stored {
        #[serde(rename = "schemaType", default)]
        schema_type: SchemaType,
        schema: String,
        #[serde(default)]
        references: Vec<SchemaReference>,
    }

    #[derive(Deserialize)]
    struct Subject {
        #[serde(default)]
        versions: BTreeMap<i32, i32>,
        #[serde(default)]
        compatibility: Option<CompatibilityLevel>,
    }

    /// The events of a whole-state file, `None` when `text` is not one.
    pub(super) fn events(text: &str) -> Option<Vec<Event>> {
        let trimmed = text.trim_start();
        if !trimmed.starts_with('{') || trimmed.starts_with("{\"op\"") {
            return None;
        }
        let state: State = serde_json::from_str(text).ok()?;
        let mut events = Vec::new();
        if let Some(level) = state.compatibility {
            events.push(Event::Compatibility {
                subject: None,
                level: Some(level),
            });
        }
        for (id, s) in state.schemas {
            events.push(Event::Schema {
                id,
                schema_type: s.schema_type,
                schema: s.schema,
                references: s.references,
                metadata: None,
                rule_set: None,
            });
        }
        for (subject, st) in state.subjects {
            for (version, id) in st.versions {
                events.push(Event::Version {
                    subject: subject.clone(),
                    version,
                    id,
                });
            }
            if let Some(level) = st.compatibility {
                events.push(Event::Compatibility {
                    subject: Some(subject),
                    level: Some(level),
                });
            }
        }
        Some(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        std::env::temp_dir().join(format!(
            "karrow-journal-{name}-{}-{nanos}",
            std::process::id()
        ))
    }

    fn version(v: i32) -> Event {
        Event::Version {
            subject: "s".into(),
            version: v,
            id: 1,
        }
    }

    #[test]
    fn appends_lines_and_ignores_a_torn_last_line() {
        let path = temp("torn");
        let journal = Journal::rewrite(&path, &[version(1)]).unwrap();
        journal.append(&[version(2)]).unwrap();
        assert_eq!(Journal::load(&path).unwrap(), vec![version(1), version(2)]);
        // A crash in the middle of the third write.
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(br#"{"op":"version","subj"#).unwrap();
        assert_eq!(Journal::load(&path).unwrap(), vec![version(1), version(2)]);
        // Garbage in the middle is an error naming the line.
        fs::write(&path, "{\"op\":\"nope\"}\n{}\n").unwrap();
        let err = Journal::load(&path).unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        fs::remove_file(&path).unwrap();
    }

    #[test]
    fn reads_the_whole_state_file_of_before() {
        let path = temp("legacy");
        fs::write(
            &path,
            r#"{"compatibility":"FULL","schemas":{"1":{"schemaType":"AVRO","schema":"\"int\""}},"subjects":{"s":{"versions":{"1":1},"compatibility":"NONE"}}}"#,
        )
        .unwrap();
        let events = Journal::load(&path).unwrap();
        assert_eq!(events.len(), 4);
        assert_eq!(events[2], version(1));
        fs::remove_file(&path).unwrap();
    }
}
