//! Loading and atomically rewriting the dev registry's JSON state file.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::RegistryError;

/// Reads the state file; `None` when it does not exist yet.
pub(crate) fn load<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, RegistryError> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(RegistryError::Dev {
                reason: format!("could not read state file {}: {e}", path.display()),
            })
        }
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| RegistryError::Dev {
            reason: format!(
                "state file {} is not valid registry state: {e}",
                path.display()
            ),
        })
}

/// Writes the state to a temporary file next to `path` and renames it over `path`, so a
/// crash never leaves a half-written file.
pub(crate) fn save<T: Serialize>(path: &Path, state: &T) -> io::Result<()> {
    let json = serde_json::to_vec_pretty(state).map_err(io::Error::other)?;
    let tmp = tmp_path(path);
    {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(&json)?;
        file.write_all(b"\n")?;
        file.sync_all()?;
    }
    fs::rename(&tmp, path)
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}
