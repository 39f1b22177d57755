//! Bounded reads: the one way an input file or stdin is read. A size cap is checked while reading
//! (a device or an endless pipe never fills memory), a named FIFO is given a few seconds to find a
//! writer, and devices are refused: they are not files a person means to give.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use crate::error::{InputError, display_name};

/// The largest input read: 512 MiB, above a `kubectl get pods -o json` of 100,000 pods (about
/// 390 MB), the largest capture the benchmarks read.
pub const MAX_INPUT_BYTES: u64 = 512 * 1024 * 1024;

/// How long a named FIFO may wait for a writer to open it.
pub const FIFO_OPEN_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest input streamed (`hpacalc audit --dump`): its objects are read one at a time,
/// so memory holds what is kept, not the file.
pub const MAX_STREAM_BYTES: u64 = 16 * 1024 * 1024 * 1024;

/// Opens one input (`-` is stdin) to be streamed: the name to show, and a reader that fails
/// past [`MAX_STREAM_BYTES`]. The same files are refused as by [`read_input`].
pub fn open_stream(path: &Path) -> Result<(String, Box<dyn Read + Send>), InputError> {
    let shown = display_name(&path.to_string_lossy());
    let reader: Box<dyn Read + Send> = if path == Path::new("-") {
        Box::new(io::stdin())
    } else {
        let cannot = |e: io::Error| InputError::new(&shown, format!("cannot read: {e}"));
        let meta = std::fs::metadata(path).map_err(cannot)?;
        match file_kind(&meta) {
            Kind::File => Box::new(File::open(path).map_err(cannot)?),
            Kind::Pipe => Box::new(open_with_timeout(path, &shown)?),
            Kind::Directory => {
                return Err(InputError::new(
                    &shown,
                    "found a directory, expected a file",
                ));
            }
            Kind::Device(what) => {
                return Err(InputError::new(
                    &shown,
                    format!("found a {what}, expected a regular file, a pipe or `-` for stdin"),
                ));
            }
        }
    };
    Ok((
        shown.clone(),
        Box::new(Capped {
            inner: reader,
            left: MAX_STREAM_BYTES,
            shown,
        }),
    ))
}

/// A reader that errs, instead of reading on, past its cap.
struct Capped {
    inner: Box<dyn Read + Send>,
    left: u64,
    shown: String,
}

impl Read for Capped {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self.left.checked_sub(n as u64).ok_or_else(|| {
            io::Error::other(too_large_to(&self.shown, None, MAX_STREAM_BYTES).to_string())
        })?;
        Ok(n)
    }
}

/// Reads one input (`-` is stdin) into text: the name to show in errors, and the text.
pub fn read_input(path: &Path) -> anyhow::Result<(String, String)> {
    let shown = display_name(&path.to_string_lossy());
    let bytes = if path == Path::new("-") {
        read_capped(io::stdin().lock(), &shown)?
    } else {
        read_named(path, &shown, MAX_INPUT_BYTES)?
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        InputError::new(
            &shown,
            format!("cannot read: found bytes that are not UTF-8 at byte {at}, expected text"),
        )
    })?;
    Ok((shown, text))
}

/// Reads a file of at most `cap` bytes (a credential, a certificate), as `read_input` reads an
/// input: devices refused, a FIFO given a few seconds to find a writer, the cap checked while
/// reading. The bytes are never quoted in an error.
pub fn read_bytes(path: &Path, cap: u64) -> Result<Vec<u8>, InputError> {
    read_named(path, &display_name(&path.to_string_lossy()), cap)
}

fn read_named(path: &Path, shown: &str, cap: u64) -> Result<Vec<u8>, InputError> {
    let cannot = |e: io::Error| InputError::new(shown, format!("cannot read: {e}"));
    // `metadata` follows symlinks (`/dev/stdin`, `/dev/fd/63`) and never blocks, even on a FIFO.
    let meta = std::fs::metadata(path).map_err(cannot)?;
    let kind = file_kind(&meta);
    let file = match kind {
        Kind::File => File::open(path).map_err(cannot)?,
        Kind::Directory => {
            return Err(InputError::new(
                shown,
                "found a directory, expected a file".to_string(),
            ));
        }
        Kind::Pipe => open_with_timeout(path, shown)?,
        Kind::Device(what) => {
            return Err(InputError::new(
                shown,
                format!(
                    "found a {what}, expected a regular file, a pipe or `-` for stdin \
                     (a device is never read: it may not end)"
                ),
            ));
        }
    };
    if kind == Kind::File && meta.len() > cap {
        return Err(too_large_to(shown, Some(meta.len()), cap));
    }
    // A regular file's size is known: one allocation of it (a file that grows meanwhile still
    // stops at the cap).
    let size = if kind == Kind::File { meta.len() } else { 0 };
    read_capped_to(file, shown, cap, size)
}

/// Reads at most [`MAX_INPUT_BYTES`]; one byte more is an error, found before memory grows.
pub(crate) fn read_capped(reader: impl Read, shown: &str) -> Result<Vec<u8>, InputError> {
    read_capped_to(reader, shown, MAX_INPUT_BYTES, 0)
}

fn read_capped_to(
    reader: impl Read,
    shown: &str,
    cap: u64,
    size_hint: u64,
) -> Result<Vec<u8>, InputError> {
    let cannot = |e: std::io::Error| InputError::new(shown, format!("cannot read: {e}"));
    let most = usize::try_from(cap).unwrap_or(usize::MAX);
    // With the size known, the bytes go straight into one buffer of that size.
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint.min(cap)).unwrap_or(0));
    // One byte past the cap is room to see that the input goes on.
    let mut limited = reader.take(cap.saturating_add(1));
    let mut probe = [0u8; 4096];
    loop {
        let spare = u64::try_from(bytes.capacity() - bytes.len()).unwrap_or(u64::MAX);
        // `read_to_end` retries an interrupted read itself.
        (&mut limited)
            .take(spare)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        // Full: whether more comes is read into the probe before the buffer grows, so an input
        // of the size foretold is never copied.
        let read = loop {
            match limited.read(&mut probe) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other.map_err(cannot)?,
            }
        };
        let Some(more) = probe.get(..read).filter(|m| !m.is_empty()) else {
            break;
        };
        if bytes.len().saturating_add(more.len()) > most {
            return Err(too_large_to(shown, None, cap));
        }
        // The buffer doubles, but never past the cap: growing copies it, and the old buffer and
        // the new one are held at once (no allocator can be relied on to move it in place).
        let room = most - bytes.len();
        bytes.reserve_exact(bytes.len().max(1 << 16).min(room).max(more.len()));
        bytes.extend_from_slice(more);
    }
    Ok(bytes)
}

fn too_large_to(shown: &str, size: Option<u64>, cap: u64) -> InputError {
    let found = match size {
        Some(n) => format!("found {n} bytes"),
        None => format!("found more than {cap} bytes"),
    };
    InputError::new(
        shown,
        format!(
            "{found}, expected at most {cap} bytes ({} MiB, the input size limit): \
             select fewer objects (-n, -l) before capturing",
            cap / (1024 * 1024)
        ),
    )
}

/// Opens a FIFO in a helper thread: `open` blocks until a writer comes, which may be never.
fn open_with_timeout(path: &Path, shown: &str) -> Result<File, InputError> {
    let (tx, rx) = mpsc::channel();
    let owned = path.to_path_buf();
    std::thread::spawn(move || {
        // The receiver may be gone after a timeout; nothing is left to tell.
        let _ = tx.send(File::open(owned));
    });
    match rx.recv_timeout(FIFO_OPEN_TIMEOUT) {
        Ok(Ok(file)) => Ok(file),
        Ok(Err(e)) => Err(InputError::new(shown, format!("cannot read: {e}"))),
        Err(_) => Err(InputError::new(
            shown,
            format!(
                "found a named pipe with no writer after {} s, expected a file or a pipe \
                 being written to",
                FIFO_OPEN_TIMEOUT.as_secs()
            ),
        )),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Directory,
    Pipe,
    Device(&'static str),
}

#[cfg(unix)]
fn file_kind(meta: &std::fs::Metadata) -> Kind {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        Kind::Directory
    } else if t.is_fifo() {
        Kind::Pipe
    } else if t.is_char_device() {
        Kind::Device("character device")
    } else if t.is_block_device() {
        Kind::Device("block device")
    } else if t.is_socket() {
        Kind::Device("socket")
    } else {
        Kind::File
    }
}

#[cfg(not(unix))]
fn file_kind(meta: &std::fs::Metadata) -> Kind {
    if meta.is_dir() {
        Kind::Directory
    } else {
        Kind::File
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_is_checked_while_reading() {
        let endless = io::repeat(b'a');
        let err = read_capped_to(endless, "<stdin>", 1000, 0).unwrap_err();
        assert!(
            err.to_string()
                .contains("found more than 1000 bytes, expected at most 1000 bytes"),
            "{err}"
        );
        assert_eq!(read_capped_to(&b"abc"[..], "x", 3, 3).unwrap(), b"abc");
    }

    #[test]
    fn the_buffer_never_grows_past_the_cap_nor_past_a_foretold_size() {
        let text = vec![b'a'; 300_000];
        let foretold = read_capped_to(&text[..], "x", 1 << 20, 300_000).unwrap();
        assert_eq!((foretold.len(), foretold.capacity()), (300_000, 300_000));
        let unknown = read_capped_to(&text[..], "x", 300_000, 0).unwrap();
        assert_eq!(unknown, text);
        assert!(unknown.capacity() <= 300_000, "{}", unknown.capacity());
        assert!(read_capped_to(&text[..], "x", 299_999, 0).is_err());
        assert!(read_capped_to(&text[..], "x", 299_999, 300_000).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_without_reading() {
        let err = read_input(Path::new("/dev/zero")).unwrap_err();
        assert!(
            err.to_string().contains("found a character device"),
            "{err}"
        );
    }

    #[test]
    fn a_directory_is_refused() {
        let err = read_input(Path::new("src")).unwrap_err();
        assert!(err.to_string().contains("found a directory"), "{err}");
    }
}
