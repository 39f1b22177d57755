//! Every file a run writes (`--chart`, `--html`, the capture of `--save`), through one writer:
//! each file is written to a private temporary file beside its target and renamed over the
//! target only when the run has succeeded, so a run that fails changes nothing. It never writes
//! through a symlink, never opens a FIFO or a device, never writes over an input of the run, and
//! never deletes a file it did not create.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::error::{InputError, UsageError};

/// One input of the run, with the flag that named it.
pub struct Input<'a> {
    pub flag: &'static str,
    pub path: &'a Path,
}

/// The files one run writes, held aside until `commit`; dropped uncommitted, they are removed.
pub struct Outputs<'a> {
    inputs: &'a [Input<'a>],
    staged: Vec<Staged>,
    /// A `--save` folder this run created: removed again if the run fails and it is empty.
    created_dir: Option<PathBuf>,
    /// The `--save` folder: its files hold cluster data and are private (0600); every other
    /// file (`--html`, `--chart`) follows the umask, as other tools' outputs do.
    capture: Option<PathBuf>,
    committed: bool,
}

/// A file written aside, and the target it becomes.
struct Staged {
    flag: String,
    temp: PathBuf,
    target: PathBuf,
}

impl<'a> Outputs<'a> {
    pub fn new(inputs: &'a [Input<'a>]) -> Outputs<'a> {
        Outputs {
            inputs,
            staged: Vec::new(),
            created_dir: None,
            capture: None,
            committed: false,
        }
    }

    /// Refuses a target before anything is computed: `-`, an input of the run, or something
    /// that is not a regular file (a folder, a FIFO, a device).
    pub fn check(&self, flag: &str, path: &Path) -> Result<()> {
        check_target(flag, path, self.inputs)?;
        match fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() || meta.is_file() => Ok(()),
            Ok(meta) => Err(InputError::new(
                path.display().to_string(),
                format!(
                    "found {}, expected a regular file to write {flag} to (or none): a {} is \
                     never opened",
                    kind(&meta),
                    kind(&meta)
                ),
            )
            .into()),
            Err(_) => Ok(()),
        }
    }

    /// Writes `bytes` aside, to become `path` at `commit`.
    pub fn stage(&mut self, flag: &str, path: &Path, bytes: &[u8]) -> Result<()> {
        let mut file = self.create(flag, path)?;
        file.write_all(bytes).map_err(|e| cannot(flag, path, &e))?;
        Ok(())
    }

    /// A file to write aside (the pages of a list as they arrive), to become `path` at `commit`.
    pub fn create(&mut self, flag: &str, path: &Path) -> Result<File> {
        self.check(flag, path)?;
        let temp = temp_path(path);
        // `create_new` refuses any existing path, a symlink included: a file planted at the
        // temporary name is never written through.
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            let in_capture = self
                .capture
                .as_deref()
                .is_some_and(|d| path.parent() == Some(d));
            // 0666 is what the umask is taken from, as `open(2)` with O_CREAT does for shells.
            options.mode(if in_capture { 0o600 } else { 0o666 });
        }
        let file = options.open(&temp).map_err(|e| cannot(flag, path, &e))?;
        self.staged.push(Staged {
            flag: flag.to_string(),
            temp,
            target: path.to_path_buf(),
        });
        Ok(file)
    }

    /// `--save DIR`: a folder that does not exist yet (created now, private), an empty one, or
    /// an earlier capture of hpacalc (its `command.txt` says so). Anything else is refused: its
    /// files are not this run's to replace.
    pub fn capture_dir(&mut self, dir: &Path, marker: &str) -> Result<()> {
        let shown = dir.display().to_string();
        self.capture = Some(dir.to_path_buf());
        match fs::metadata(dir) {
            Err(_) => {
                let mut builder = fs::DirBuilder::new();
                builder.recursive(true);
                #[cfg(unix)]
                {
                    use std::os::unix::fs::DirBuilderExt;
                    builder.mode(0o700);
                }
                builder.create(dir).map_err(|e| {
                    InputError::new(&shown, format!("cannot create the capture folder: {e}"))
                })?;
                self.created_dir = Some(dir.to_path_buf());
                return Ok(());
            }
            Ok(meta) if !meta.is_dir() => {
                return Err(InputError::new(
                    &shown,
                    format!("found {}, expected a folder for the capture", kind(&meta)),
                )
                .into());
            }
            Ok(_) => {}
        }
        let entries: Vec<String> = fs::read_dir(dir)
            .map_err(|e| InputError::new(&shown, format!("cannot read the folder: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        if entries.is_empty() || is_capture(&dir.join("command.txt"), marker) {
            return Ok(());
        }
        let mut names = entries;
        names.sort();
        Err(UsageError(format!(
            "--save {shown}: found a folder with other files ({}), expected an empty folder or \
             an earlier capture of hpacalc (with its command.txt): its files are not this run's \
             to replace",
            crate::error::name_list(&names, 3)
        ))
        .into())
    }

    /// Renames every file written aside over its target, in the order written.
    pub fn commit(mut self) -> Result<()> {
        self.committed = true;
        for s in std::mem::take(&mut self.staged) {
            let done = File::open(&s.temp)
                .and_then(|f| f.sync_all())
                .and_then(|()| fs::rename(&s.temp, &s.target));
            if let Err(e) = done {
                let _ = fs::remove_file(&s.temp);
                return Err(cannot(&s.flag, &s.target, &e).into());
            }
        }
        Ok(())
    }
}

impl Drop for Outputs<'_> {
    fn drop(&mut self) {
        for s in &self.staged {
            let _ = fs::remove_file(&s.temp);
        }
        if !self.committed
            && let Some(dir) = &self.created_dir
        {
            // Only when empty: `remove_dir` never removes a folder with files.
            let _ = fs::remove_dir(dir);
        }
    }
}

/// Whether `path` is the `command.txt` of an earlier capture: a regular file (not a link) that
/// starts with `marker`.
fn is_capture(path: &Path, marker: &str) -> bool {
    let regular = fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    regular
        && fs::read(path)
            .ok()
            .is_some_and(|text| text.starts_with(marker.as_bytes()))
}

fn cannot(flag: &str, path: &Path, e: &std::io::Error) -> InputError {
    InputError::new(
        path.display().to_string(),
        format!("cannot write {flag}: {e}"),
    )
}

/// What a path is, for messages.
fn kind(meta: &fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() { "a folder" } else { "a file" }
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
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write_file(flag: &str, path: &Path, bytes: &[u8], inputs: &[Input<'_>]) -> Result<()> {
        let mut out = Outputs::new(inputs);
        out.stage(flag, path, bytes)?;
        out.commit()
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

    #[test]
    fn nothing_changes_until_the_run_commits() {
        let dir = scratch("uncommitted");
        let out = dir.join("pods.json");
        fs::write(&out, "earlier capture").unwrap();
        {
            let mut outputs = Outputs::new(&[]);
            outputs.stage("--save", &out, b"half a list").unwrap();
            // The run fails here: the outputs are dropped without a commit.
        }
        assert_eq!(fs::read_to_string(&out).unwrap(), "earlier capture");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            1,
            "no temporary file stays"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_replaced_never_written_through() {
        let dir = scratch("symlink");
        let victim = dir.join("victim.txt");
        fs::write(&victim, "the user's notes").unwrap();
        let link = dir.join("hpa.yaml");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        write_file("--save", &link, b"kind: HorizontalPodAutoscaler", &[]).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "the user's notes");
        assert!(fs::symlink_metadata(&link).unwrap().is_file());
        // A link planted at the temporary name makes the write fail, never follows it.
        let planted = temp_path(&dir.join("scale.json"));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        assert!(write_file("--save", &dir.join("scale.json"), b"{}", &[]).is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "the user's notes");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_never_opened() {
        let dir = scratch("fifo");
        let fifo = dir.join("hpa.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = write_file("--save", &fifo, b"x", &[]).unwrap_err();
            assert!(err.to_string().contains("found a named pipe"), "{err}");
        }
        let err = write_file("--chart", Path::new("/dev/null"), b"x", &[]).unwrap_err();
        assert!(err.to_string().contains("found a device"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_capture_folder_is_new_empty_or_an_earlier_capture() {
        let marker = "# The offline command";
        let dir = scratch("capture");
        let fresh = dir.join("new");
        let mut out = Outputs::new(&[]);
        out.capture_dir(&fresh, marker).unwrap();
        drop(out);
        assert!(
            !fresh.exists(),
            "a folder the failed run created is removed"
        );
        fs::create_dir(&fresh).unwrap();
        Outputs::new(&[]).capture_dir(&fresh, marker).unwrap();
        fs::write(fresh.join("notes.txt"), "mine").unwrap();
        let err = Outputs::new(&[]).capture_dir(&fresh, marker).unwrap_err();
        assert!(
            err.to_string()
                .contains("found a folder with other files (notes.txt)"),
            "{err}"
        );
        fs::write(fresh.join("command.txt"), format!("{marker} ...\n")).unwrap();
        Outputs::new(&[]).capture_dir(&fresh, marker).unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_capture_is_private_and_other_outputs_follow_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = scratch("modes");
        let capture = dir.join("incident").join("4711");
        let mut out = Outputs::new(&[]);
        out.capture_dir(&capture, "# marker").unwrap();
        out.stage("--save", &capture.join("pods.json"), b"{}")
            .unwrap();
        out.stage("--html", &dir.join("report.html"), b"<html>")
            .unwrap();
        out.commit().unwrap();
        assert_eq!(mode(&capture), 0o700);
        assert_eq!(mode(&dir.join("incident")), 0o700);
        assert_eq!(mode(&capture.join("pods.json")), 0o600);
        // The umask of the test process only removes bits: never more than 0666, and the owner
        // can always read and write.
        let html = mode(&dir.join("report.html"));
        assert_eq!(html & 0o600, 0o600, "{html:o}");
        assert_eq!(html & !0o666, 0, "{html:o}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
