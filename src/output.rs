//! Output files (`--chart`, and any later `--html` or `--save`): never an input of the same run,
//! never a file named `-`, and never left half-written (a temporary file beside it, renamed).

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::InputError;
use crate::error::UsageError;

/// One input of the run, with the flag that named it.
pub struct Input<'a> {
    pub flag: &'static str,
    pub path: &'a Path,
}

/// Writes `bytes` to the file `flag` names, after checking it is none of `inputs`.
pub fn write_file(flag: &str, path: &Path, bytes: &[u8], inputs: &[Input<'_>]) -> Result<()> {
    check_target(flag, path, inputs)?;
    let shown = path.display().to_string();
    let cannot = |e: std::io::Error| InputError::new(&shown, format!("cannot write {flag}: {e}"));
    // A device or a pipe (`/dev/null`, `/dev/stdout`, `>(...)`) is written in place: it cannot
    // be replaced by a rename, and nothing half-written stays in it.
    if let Ok(meta) = fs::metadata(path)
        && !meta.is_file()
    {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(cannot)?;
        f.write_all(bytes).map_err(cannot)?;
        return f.flush().map_err(|e| cannot(e).into());
    }
    let temp = temp_path(path);
    let written = File::create_new(&temp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    let renamed = written.and_then(|()| fs::rename(&temp, path));
    if let Err(e) = renamed {
        // The temporary file may not exist (create failed); nothing else to clean.
        let _ = fs::remove_file(&temp);
        return Err(cannot(e).into());
    }
    Ok(())
}

/// Refuses `-` and any output that is the same file as an input: same canonical path, or same
/// device and inode (hard links, symlinks, `/proc/self/fd` names).
pub fn check_target(flag: &str, path: &Path, inputs: &[Input<'_>]) -> Result<()> {
    if path == Path::new("-") {
        anyhow::bail!(UsageError(format!(
            "{flag} -: found `-`, expected a file name (stdout holds the run's own output)"
        )));
    }
    let target = canonical_output(path);
    let target_id = identity(path);
    for input in inputs {
        if input.path == Path::new("-") {
            continue;
        }
        let same_path = target.is_some() && target == fs::canonicalize(input.path).ok();
        let same_file = target_id.is_some() && target_id == identity(input.path);
        if same_path || same_file {
            anyhow::bail!(UsageError(format!(
                "{flag} {}: found the file of {} {}, expected an output file that is not an \
                 input of this run (it would be overwritten)",
                path.display(),
                input.flag,
                input.path.display()
            )));
        }
    }
    Ok(())
}

/// The canonical path of an output that may not exist yet: its folder's, joined with its name.
fn canonical_output(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Some(fs::canonicalize(parent).ok()?.join(name))
}

#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// `.NAME.PID.tmp` beside the output, so the rename stays on one file system.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hpacalc-out-{name}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn an_output_that_is_an_input_is_refused() {
        let dir = scratch("same");
        let input = dir.join("hpa.yaml");
        fs::write(&input, "keep me").unwrap();
        let hard = dir.join("hard.yaml");
        fs::hard_link(&input, &hard).unwrap();
        let dotted = dir.join(".").join("hpa.yaml");
        let inputs = [Input {
            flag: "--hpa",
            path: &input,
        }];
        for out in [&input, &hard, &dotted] {
            let err = write_file("--chart", out, b"svg", &inputs).unwrap_err();
            assert!(err.to_string().contains("found the file of --hpa"), "{err}");
        }
        #[cfg(unix)]
        {
            let link = dir.join("link.svg");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(write_file("--chart", &link, b"svg", &inputs).is_err());
        }
        assert_eq!(fs::read_to_string(&input).unwrap(), "keep me");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dash_is_not_a_file_name() {
        let err = write_file("--chart", Path::new("-"), b"svg", &[]).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some());
        assert!(!Path::new("-").exists());
    }

    #[test]
    fn the_output_is_written_whole_and_no_temporary_file_stays() {
        let dir = scratch("whole");
        let out = dir.join("chart.svg");
        fs::write(&out, "old").unwrap();
        write_file("--chart", &out, b"new", &[]).unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "new");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        // A folder that does not exist: an error naming the file, nothing created.
        let missing = dir.join("no/such/chart.svg");
        let err = write_file("--chart", &missing, b"x", &[]).unwrap_err();
        assert!(err.to_string().contains("cannot write --chart"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
