//! The output folder: checked before any experiment runs, and written one
//! whole file at a time, so that a failed write leaves the old file intact.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

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
    let fail = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let tmp = temp_path(path);
    let written = fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(contents.as_ref())?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(fail(e));
    }
    Ok(())
}

/// `dir/.name.tmp-<pid>` for `dir/name`.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("bloomlab-files-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn prepare_creates_and_leaves_nothing_behind() {
        let dir = scratch("prepare").join("a/b");
        prepare_dir(&dir).unwrap();
        assert!(dir.is_dir());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        let _ = fs::remove_dir_all(scratch("prepare"));
    }

    #[test]
    fn prepare_refuses_a_folder_under_a_file() {
        let dir = scratch("under-file");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("file"), "x").unwrap();
        let e = prepare_dir(&dir.join("file/sub")).unwrap_err();
        assert!(e.starts_with("cannot create the output folder"), "{e}");
        let _ = fs::remove_dir_all(dir);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = scratch("atomic");
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("REPORT.md");
        write_atomic(&path, "old").unwrap();
        write_atomic(&path, "new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        // A rename onto a non-empty folder fails: the folder is untouched
        // and no temporary file is left.
        let blocked = dir.join("taken");
        fs::create_dir_all(blocked.join("inside")).unwrap();
        assert!(write_atomic(&blocked, "x").is_err());
        assert!(blocked.join("inside").is_dir());
        let names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        let _ = fs::remove_dir_all(dir);
    }
}
