//! `hpacalc audit -f DIR`: a folder of manifests (e.g. a Helm chart rendered with `helm
//! template`), read into the same `Dump` as a cluster dump, each object placed at `file:line` so
//! that findings can point at it (SARIF).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Dump;
use crate::error::{InputError, json_error, yaml_error};
use crate::input::{guard, read_input};

/// The most manifest files one walk reads.
pub const MAX_FILES: usize = 100_000;

/// The manifest files under `path` (itself when it is a file): `.yaml`, `.yml` and `.json`, in
/// name order, subfolders included. A symlinked folder is not followed (a `loop -> .` would
/// read everything again, two of them 2^40 paths), as `find` does by default.
pub fn files(path: &Path) -> Result<Vec<PathBuf>, InputError> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| InputError::new(dir.display().to_string(), format!("cannot read: {e}")))?;
        for entry in entries.flatten() {
            let p = entry.path();
            // `file_type` does not follow a symlink: a linked folder is a link, skipped.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                dirs.push(p);
            } else if kind.is_symlink() && p.is_dir() {
                continue;
            } else if p
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
            {
                out.push(p);
                if out.len() > MAX_FILES {
                    return Err(InputError::new(
                        path.display().to_string(),
                        format!(
                            "found more than {MAX_FILES} manifest files, expected a folder of one \
                             application's manifests"
                        ),
                    ));
                }
            }
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(InputError::new(
            path.display().to_string(),
            "found no .yaml, .yml or .json file, expected manifests",
        ));
    }
    Ok(out)
}

/// The first line of each YAML document's content (1-based): what a `---` line separates.
fn document_lines(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut pending: Option<usize> = Some(1);
    let mut content = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("---") {
            if content {
                starts.push(pending.unwrap_or(i + 1));
            }
            pending = None;
            content = false;
            continue;
        }
        let t = line.trim();
        if !t.is_empty() && !t.starts_with('#') && !content {
            content = true;
            pending = Some(i + 1);
        }
    }
    if content {
        starts.push(pending.unwrap_or(1));
    }
    starts
}

impl Dump {
    /// Reads one manifest file; each object's place is `file:line`.
    pub fn read_manifest(&mut self, path: &Path) -> anyhow::Result<()> {
        let (file, text) = read_input(path)?;
        self.read_manifest_text(&file, &text)
    }

    /// Reads the text of a manifest file named `file` (JSON, or YAML documents).
    pub fn read_manifest_text(&mut self, file: &str, text: &str) -> anyhow::Result<()> {
        if text.trim_start().starts_with('{') {
            guard::check_json(file, text)?;
            let value: serde_json::Value =
                serde_json::from_str(text).map_err(|e| json_error(file, &e))?;
            return self.add_document(&format!("{file}:1"), &value);
        }
        guard::check_yaml(file, text)?;
        let lines = document_lines(text);
        let mut docs = Vec::new();
        for doc in serde_yaml::Deserializer::from_str(text) {
            docs.push(serde_json::Value::deserialize(doc).map_err(|e| yaml_error(file, &e))?);
        }
        let content: Vec<&serde_json::Value> = docs.iter().filter(|d| !d.is_null()).collect();
        for (k, doc) in content.into_iter().enumerate() {
            let place = match lines.get(k) {
                Some(line) => format!("{file}:{line}"),
                None => file.to_string(),
            };
            self.add_document(&place, doc)?;
        }
        Ok(())
    }

    fn add_document(&mut self, place: &str, doc: &serde_json::Value) -> anyhow::Result<()> {
        match doc.get("items").and_then(serde_json::Value::as_array) {
            Some(items) => {
                for item in items {
                    self.add(
                        super::Place::Named(place),
                        &in_default(item).to_string(),
                        None,
                    )?;
                }
            }
            None => self.add(
                super::Place::Named(place),
                &in_default(doc).to_string(),
                None,
            )?,
        }
        Ok(())
    }
}

/// An object without a namespace is applied to `default` (kubectl's default context), as the
/// single-HPA reader places it.
fn in_default(object: &serde_json::Value) -> serde_json::Value {
    let mut object = object.clone();
    if let Some(meta) = object.get_mut("metadata").and_then(|m| m.as_object_mut())
        && meta
            .get("namespace")
            .and_then(|n| n.as_str())
            .is_none_or(str::is_empty)
    {
        meta.insert("namespace".into(), "default".into());
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_document_starts_at_its_first_content_line() {
        let text = "# Source: a.yaml\napiVersion: v1\nkind: A\n---\n# Source: b.yaml\n\napiVersion: v1\nkind: B\n---\n---\nkind: C\n";
        assert_eq!(document_lines(text), vec![2, 7, 11]);
        assert_eq!(document_lines("---\nkind: A\n"), vec![2]);
    }
}
