//! Reading a text file a user names (a case file, a manifest, an expectations file): only a
//! regular file, opened without blocking (a FIFO cannot hang the open) and checked on the open
//! handle, read through a bounded reader, UTF-8, a leading byte order mark dropped. `/dev/zero`
//! or a FIFO named like one of them is an error naming what it is, never a hang or an
//! allocation without end.

use std::io::Read as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

/// The largest text file read: far beyond any case file, manifest or expectations file.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The file's text; `what` names it in errors (`a case file`), `split` says what to do with one
/// too large. The error does not repeat the path (callers put it first).
pub fn read(path: &Path, what: &str, split: &str) -> Result<String, String> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot read: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err(format!("cannot read: {}, not a regular file", kind(&meta)));
    }
    let too_large = || {
        format!(
            "the file is too large for {what}: more than {} MiB ({split})",
            MAX_BYTES / (1024 * 1024)
        )
    };
    if meta.len() > MAX_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(too_large());
    }
    let mut text = String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (invalid byte at offset {}); {what} is UTF-8",
            e.utf8_error().valid_up_to()
        )
    })?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

/// What a path that is not a regular file or folder is, in words.
pub fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file or folder"
    }
}
