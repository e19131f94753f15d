//! The output folder: checked before any experiment runs, and written one
//! whole file at a time, so that a failed write leaves the old file intact.

use std::fs;
use std::io::Write as _;
use std::path::Path;

/// Makes sure `dir` exists and files can be created in it, by creating and
/// removing a probe file: the check the runner makes before spending any
/// time on an experiment.
///
/// # Errors
///
/// A message naming the folder and what the system said.
pub fn prepare_dir(dir: &Path) -> Result<(), String> {
    fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the output folder {}: {e}", dir.display()))?;
    let probe = dir.join(format!(".bloomlab-probe-{}", std::process::id()));
    let written = fs::File::create_new(&probe).and_then(|mut f| f.write_all(b"probe"));
    let removed = fs::remove_file(&probe);
    written
        .and(removed)
        .map_err(|e| format!("cannot write into the output folder {}: {e}", dir.display()))
}

/// Writes `contents` to `path` through a temporary file in the same folder,
/// renamed over `path` once complete: a reader sees the old file or the new
/// one, and a failure leaves the old one as it was.
///
/// # Errors
///
/// A message naming `path` and what the system said.
pub fn write_atomic(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), String> {
    // `dir/.name.tmp-<pid>` for `dir/name`.
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let written = fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(contents.as_ref())?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&tmp, path));
    written.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_creates_and_leaves_nothing_behind() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().join("a/b");
        prepare_dir(&dir).unwrap();
        assert!(dir.is_dir());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
    }

    #[test]
    fn prepare_refuses_a_folder_under_a_file() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("file"), "x").unwrap();
        let e = prepare_dir(&dir.path().join("file/sub")).unwrap_err();
        assert!(e.starts_with("cannot create the output folder"), "{e}");
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("REPORT.md");
        write_atomic(&path, "old").unwrap();
        write_atomic(&path, "new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        // A rename onto a non-empty folder fails: the folder is untouched
        // and no temporary file is left.
        let blocked = dir.path().join("taken");
        fs::create_dir_all(blocked.join("inside")).unwrap();
        assert!(write_atomic(&blocked, "x").is_err());
        assert!(blocked.join("inside").is_dir());
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }
}
